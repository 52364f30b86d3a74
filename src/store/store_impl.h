// Internal: what a Store holds, shared by the files of src/store/.
#pragma once

#include <string>

#include "ksnap/store/store.h"
#include "store/sqlite_db.h"

namespace ksnap::store {

struct Store::Impl {
  Db db;
  std::string path;
};

/// Creates the tables on a fresh database, checks the schema version of an
/// existing one. Errors: kUnsupported (newer schema), kCorrupt (not ours).
Status ensure_schema(Db& db);

}  // namespace ksnap::store

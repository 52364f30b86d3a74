// `ksnap store verify` and `ksnap store gc`.
//
// verify re-derives every id from the content it names:
//   blob      decompresses to raw_size bytes whose XXH3-128 is raw_hash, and
//             whose normalized hash (for "n:" ids) is the id;
//   record    decompresses, parses, hashes to its id, and its stages name
//             existing blobs (and agree with variant_blobs);
//   tree      its header and ordered record ids hash to its id, records exist;
//   commit    names an existing tree;
// plus SQLite's own integrity check. A problem is reported, never repaired.
//
// gc deletes what no commit reaches (trees, then records, then blobs and
// raw_index rows) in one transaction, then checkpoints the WAL; `vacuum`
// also rewrites the file to give the space back to the file system.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ksnap/store/store.h"
#include "ksnap/support/status.h"

namespace ksnap::store {

struct VerifyReport {
  int64_t commits = 0, trees = 0, variants = 0, blobs = 0;
  int64_t raw_bytes = 0;
  std::vector<std::string> problems;  ///< One line each; empty = consistent.
  /// "n:" blobs whose text hashes right but normalizes to another id: the
  /// normalizer changed since they were recorded (diffs still work).
  std::vector<std::string> renormalized;
  bool ok() const { return problems.empty(); }
};

/// Checks the whole store. Errors only when it cannot be read at all.
Expected<VerifyReport> verify(Store& store);

struct GcReport {
  int64_t trees = 0, variants = 0, blobs = 0;  ///< Rows deleted.
  int64_t blob_bytes = 0;                      ///< Compressed bytes of the deleted blobs.
  int64_t file_bytes_before = 0, file_bytes_after = 0;
};

Expected<GcReport> gc(Store& store, bool vacuum);

}  // namespace ksnap::store

// Internal: what a Store holds, shared by the files of src/store/.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ksnap/store/store.h"
#include "store/sqlite_db.h"

namespace ksnap::store {

struct Store::Impl {
  Db db;
  std::string path;
};

/// Checks the schema version of an existing store; a writer upgrades
/// version 1, and with `create` makes the tables in an empty database. A
/// read-only `db` is never written. Errors: kUnsupported (newer schema),
/// kCorrupt (not ours), kNotFound (an empty database and !create).
Status ensure_schema(Db& db, bool create);

/// One row of the `unstable` table (src/store/unstable.cc).
struct UnstableRow {
  std::string id, kernel, stage, report;
};
/// The rows for every variant-stage `b` marks unstable (Variant::unstable_stages).
std::vector<UnstableRow> unstable_rows(const build::Build& b);
/// Inserts the rows the table lacks, reported first by `sha`; returns how many.
Expected<size_t> insert_unstable(Db& db, const std::vector<UnstableRow>& rows,
                                 const std::string& sha);
/// Every row, oldest first. Errors: kCorrupt naming the row.
Expected<std::vector<UnstableFact>> read_unstable_facts(Db& db);
/// Marks the variants of `b` that any row names (build::UnstableMatch::kIdentity).
Status mark_known_unstable(Db& db, build::Build* b);

// Kept normalized hashes (src/store/norm_hashes.cc, table norm_hashes).

/// True when the store has the norm_hashes table (schema version 3; a
/// version-1 or -2 store opened read-only has none and keeps no hashes).
Expected<bool> has_norm_hashes(Db& db);
/// The normalized hash of blob `blob_id`'s text under norm::kHashVersion, if
/// kept. Errors: a kept hash that is not 16 hex digits (kCorrupt).
Expected<std::optional<uint64_t>> kept_hash(Db& db, const std::string& blob_id);
/// The dialect a normalized blob id names ("n:mlir:..." -> "mlir"), "" for
/// raw ids.
std::string_view blob_dialect(std::string_view blob_id);

// Normalized hashes of raw texts (src/store/raw_norm.cc, table raw_norm).

/// True for 16 lowercase hex digits: how a kept normalized hash is written.
bool is_hex16(std::string_view h);
/// The value of a kept normalized hash as written (nullopt when not is_hex16).
std::optional<uint64_t> hex16_value(const std::string& h);

/// True when the store has the raw_norm table (schema version 4; an older
/// store opened read-only has none).
Expected<bool> has_raw_norm(Db& db);
/// The normalized hash, under norm::kHashVersion, of the text whose XXH3-128
/// is `raw_hash` lexed as `dialect` (ir::dialect_name), if a record kept it.
/// Errors: a kept hash that is not 16 hex digits (kCorrupt).
Expected<std::optional<uint64_t>> raw_norm_hash(Db& db, const std::string& raw_hash,
                                                std::string_view dialect);
/// The table as a build::KnownTexts for Build::known_texts, on a read-only
/// connection of its own to the store at `path`.
Expected<std::shared_ptr<const build::KnownTexts>> open_known_texts(const std::string& path);

}  // namespace ksnap::store

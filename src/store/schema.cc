// The store's tables (docs/history-store.md explains them):
//   commits ──tree──> trees ──tree_variants──> variants ──variant_blobs──> blobs
//   parents: commit -> parent ids, raw_index: raw text hash -> blob id,
//   unstable: variant-stages known to compile nondeterministically (version 2).
// Version 1 stores are upgraded in place when opened (migrate_1_to_2).
#include <optional>
#include <string>

#include "store/store_impl.h"

namespace ksnap::store {

namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS blobs(
  id TEXT PRIMARY KEY,          -- n:<dialect>:<normalized hash> or r:<raw hash>
  raw_hash TEXT NOT NULL,       -- XXH3-128 of the stored text
  raw_size INTEGER NOT NULL,    -- bytes of the stored text
  data BLOB NOT NULL);          -- zstd frame of the text
CREATE TABLE IF NOT EXISTS raw_index(
  raw_hash TEXT PRIMARY KEY,    -- XXH3-128 of a text seen by record
  blob TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS variants(
  id TEXT PRIMARY KEY,          -- XXH3-128 of the record JSON
  kernel TEXT NOT NULL,
  size INTEGER NOT NULL,        -- bytes of the record JSON
  data BLOB NOT NULL);          -- zstd frame of the record JSON
CREATE TABLE IF NOT EXISTS variant_blobs(
  variant TEXT NOT NULL, stage TEXT NOT NULL, blob TEXT NOT NULL,
  PRIMARY KEY(variant, stage)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS variant_blobs_blob ON variant_blobs(blob);
CREATE TABLE IF NOT EXISTS trees(
  id TEXT PRIMARY KEY,          -- XXH3-128 of the header and variant ids
  name TEXT NOT NULL, triton_version TEXT NOT NULL, arch TEXT NOT NULL,
  format_version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS tree_variants(
  tree TEXT NOT NULL, idx INTEGER NOT NULL, variant TEXT NOT NULL,
  PRIMARY KEY(tree, idx)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tree_variants_variant ON tree_variants(variant);
CREATE TABLE IF NOT EXISTS commits(
  seq INTEGER PRIMARY KEY,      -- record order
  sha TEXT NOT NULL UNIQUE,
  tree TEXT NOT NULL,
  date INTEGER NOT NULL,        -- commit date, Unix seconds, 0 = unknown
  recorded_at INTEGER NOT NULL,
  subject TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS parents(
  sha TEXT NOT NULL, idx INTEGER NOT NULL, parent TEXT NOT NULL,
  PRIMARY KEY(sha, idx)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS parents_parent ON parents(parent);
)sql";

/// Added in schema version 2: variant-stages known to compile
/// nondeterministically (docs/history-store.md, "Unstable variant-stages").
constexpr const char* kUnstableTable = R"sql(
CREATE TABLE IF NOT EXISTS unstable(
  id TEXT PRIMARY KEY,          -- XXH3-128 of kernel, source, id, signature and stage
  kernel TEXT NOT NULL,
  stage TEXT NOT NULL,
  report TEXT NOT NULL,         -- unstable.json of this one variant-stage (ksnap-unstable)
  first_commit TEXT NOT NULL,   -- the commit whose capture reported it first
  recorded_at INTEGER NOT NULL);
)sql";

/// Added in schema version 3: the normalized hash of each blob's text, by the
/// normalizer version that computed it (docs/history-store.md, "Kept
/// normalized hashes"), so that a diff against a recorded commit need not
/// normalize that side again.
constexpr const char* kNormHashesTable = R"sql(
CREATE TABLE IF NOT EXISTS norm_hashes(
  blob TEXT NOT NULL,           -- a blob id (n:<dialect>:...)
  version INTEGER NOT NULL,     -- norm::kHashVersion of the normalizer that hashed its text
  hash TEXT NOT NULL,           -- the normalized hash of its text (default options), 16 hex digits
  PRIMARY KEY(blob, version)) WITHOUT ROWID;
)sql";

/// Added in schema version 4: the normalized hash of every raw text a record
/// read, by dialect and normalizer version (docs/history-store.md, "Raw
/// texts seen before"), so that a diff against a recorded commit need not
/// normalize a file whose bytes some record already normalized.
constexpr const char* kRawNormTable = R"sql(
CREATE TABLE IF NOT EXISTS raw_norm(
  raw_hash TEXT NOT NULL,       -- XXH3-128 of a text seen by record
  dialect TEXT NOT NULL,        -- ir::dialect_name it was lexed as
  version INTEGER NOT NULL,     -- norm::kHashVersion of the normalizer that hashed it
  hash TEXT NOT NULL,           -- its normalized hash (default options), 16 hex digits
  PRIMARY KEY(raw_hash, dialect, version)) WITHOUT ROWID;
)sql";

/// 3 -> 4 also fills raw_norm from what version 3 knew: each blob's own text
/// (blobs.raw_hash) with its kept hashes. Other raw texts of raw_index map to
/// a blob whose text may normalize differently under newer rules, so they
/// get rows only when a record reads them again.
constexpr const char* kRawNormBackfill = R"sql(
INSERT OR IGNORE INTO raw_norm(raw_hash, dialect, version, hash)
  SELECT b.raw_hash, substr(b.id, 3, instr(substr(b.id, 3), ':') - 1), n.version, n.hash
  FROM blobs b JOIN norm_hashes n ON n.blob = b.id WHERE b.id LIKE 'n:%:%';
)sql";

/// Upgrades a store of version `from` to `from + 1` in place (one write
/// transaction): 1 -> 2 adds the unstable table, 2 -> 3 the index of
/// normalized hashes, 3 -> 4 the normalized hashes of raw texts. Another
/// process may have upgraded it meanwhile.
Status migrate_one(Db& db, int from) {
  KSNAP_ASSIGN_OR_RETURN(Transaction t, Transaction::begin(db, true));
  KSNAP_ASSIGN_OR_RETURN(Stmt q, db.prepare("SELECT value FROM meta WHERE key='schema_version'"));
  KSNAP_ASSIGN_OR_RETURN(bool row, q.step());
  if (!row || q.text(0) != std::to_string(from)) return Status::ok();  // checked again below
  if (from == 3) {
    KSNAP_RETURN_IF_ERROR(db.exec(kRawNormTable));
    KSNAP_RETURN_IF_ERROR(db.exec(kRawNormBackfill));
  } else {
    KSNAP_RETURN_IF_ERROR(db.exec(from == 1 ? kUnstableTable : kNormHashesTable));
  }
  KSNAP_RETURN_IF_ERROR(db.exec("UPDATE meta SET value='" + std::to_string(from + 1) +
                                "' WHERE key='schema_version'"));
  return t.commit();
}

Expected<std::string> schema_version(Db& db) {
  KSNAP_ASSIGN_OR_RETURN(Stmt q, db.prepare("SELECT value FROM meta WHERE key='schema_version'"));
  KSNAP_ASSIGN_OR_RETURN(bool row, q.step());
  if (!row)
    return make_error(ErrorCode::kCorrupt, "history store has no schema_version",
                      {db.path(), 0, 0});
  return q.text(0);
}

/// A database without a meta table: a writer with `create` makes the
/// tables when it holds none; anything else is refused, a reader writing
/// nothing. A writer decides inside a write transaction, so that two
/// processes creating the store at once do not mistake each other's fresh
/// tables for a foreign database.
Status create_schema(Db& db, bool create) {
  std::optional<Transaction> t;
  if (create) {
    KSNAP_ASSIGN_OR_RETURN(Transaction w, Transaction::begin(db, true));
    t.emplace(std::move(w));
  }
  auto tables = db.query_int("SELECT count(*) FROM sqlite_master WHERE type='table'");
  if (!tables) return tables.status();
  auto meta_now =
      db.query_int("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='meta'");
  if (!meta_now) return meta_now.status();
  if (*meta_now != 0) return Status::ok();  // another process just made it
  if (*tables != 0)
    return make_error(ErrorCode::kCorrupt,
                      "an SQLite database, but not a ksnap history store (no meta table)",
                      {db.path(), 0, 0});
  if (!create)
    return make_error(ErrorCode::kNotFound,
                      "not a ksnap history store: an empty database, no history recorded "
                      "(record a commit first, or pass --store PATH)",
                      {db.path(), 0, 0});
  KSNAP_RETURN_IF_ERROR(db.exec(kSchema));
  KSNAP_RETURN_IF_ERROR(db.exec(kUnstableTable));
  KSNAP_RETURN_IF_ERROR(db.exec(kNormHashesTable));
  KSNAP_RETURN_IF_ERROR(db.exec(kRawNormTable));
  KSNAP_RETURN_IF_ERROR(db.exec("INSERT INTO meta VALUES('schema_version', '" +
                                std::to_string(kSchemaVersion) + "')"));
  return t->commit();
}

}  // namespace

Status ensure_schema(Db& db, bool create) {
  auto has_meta =
      db.query_int("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='meta'");
  if (!has_meta) return has_meta.status();
  if (*has_meta == 0) KSNAP_RETURN_IF_ERROR(create_schema(db, create));
  KSNAP_ASSIGN_OR_RETURN(std::string v, schema_version(db));
  static const char* const kAdds[] = {"", "the table of unstable variant-stages",
                                      "the index of normalized hashes",
                                      "the normalized hashes of raw texts"};
  while ((v == "1" || v == "2" || v == "3") && !db.read_only()) {
    int from = v[0] - '0';
    Status up = migrate_one(db, from);
    if (!up.is_ok())
      return make_error(up.code(),
                        "history store schema version " + v + " must be upgraded to " +
                            std::to_string(from + 1) + " (" + kAdds[from] +
                            "), which failed: " + up.message(),
                        {db.path(), 0, 0});
    KSNAP_ASSIGN_OR_RETURN(v, schema_version(db));
  }
  // A reader takes versions 1 to 3 as they are: they lack only tables that
  // read as empty (read_unstable_facts, kept normalized hashes, raw_norm).
  if ((v == "1" || v == "2" || v == "3") && db.read_only()) return Status::ok();
  if (v != std::to_string(kSchemaVersion))
    return make_error(ErrorCode::kUnsupported,
                      "history store schema version " + v +
                          "; this ksnap reads and writes "
                          "version " +
                          std::to_string(kSchemaVersion) + "; the file was not changed",
                      {db.path(), 0, 0});
  return Status::ok();
}

}  // namespace ksnap::store

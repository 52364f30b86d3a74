// ksnap history store: captures recorded per git commit, in one SQLite file.
//
// Layout (docs/history-store.md): a commit names a tree (the build's header
// and its ordered variant records); a variant record holds the variant's
// metadata and, per IR stage, the id of a blob. A blob is one stage file's
// text, zstd-compressed, addressed by the hash of its *normalized* text
// ("n:<dialect>:<16 hex>"), so a stage whose IR did not change — even if
// its SSA names, locations or paths did — is stored once for all commits.
// An unchanged commit costs one commit row and its parent rows.
//
//   KSNAP_ASSIGN_OR_RETURN(Store s, Store::open(".ksnap/history.db", /*create=*/true));
//   KSNAP_ASSIGN_OR_RETURN(Build b, build::load_build("ci/capture"));
//   RecordOptions o;  o.sha = "3f2a...";  o.parents = {"9e1c..."};
//   KSNAP_ASSIGN_OR_RETURN(RecordStats st, s.record(b, o));   // one transaction
//   KSNAP_ASSIGN_OR_RETURN(Build again, s.load("3f2a..."));   // BuildKind::kMemory
//
// Every record is one SQLite transaction in WAL mode: a record killed at any
// point leaves the store as it was before, and readers run concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ksnap/build/build.h"
#include "ksnap/build/unstable.h"
#include "ksnap/support/status.h"

namespace ksnap::store {

/// Where `ksnap` looks for the store when no --store is given.
inline constexpr const char* kDefaultStorePath = ".ksnap/history.db";
/// $KSNAP_STORE when set, else kDefaultStorePath: the CLI's --store default.
std::string default_store_path();
/// Store layout version written to and checked in the `meta` table. Version
/// 2 added the `unstable` table, version 3 `norm_hashes` (kept normalized
/// hashes), version 4 `raw_norm` (normalized hashes of raw texts); an older
/// store is upgraded when opened for writing and read as it is when opened
/// read-only.
inline constexpr int kSchemaVersion = 4;
/// zstd level for new blobs unless RecordOptions says otherwise.
inline constexpr int kDefaultLevel = 12;

/// One recorded commit.
struct CommitInfo {
  std::string sha;                   ///< Full commit id as recorded.
  std::vector<std::string> parents;  ///< In git order (first parent first); may be unrecorded.
  int64_t date = 0;                  ///< Commit date, Unix seconds; 0 = unknown.
  int64_t recorded_at = 0;           ///< When `record` ran, Unix seconds.
  std::string subject;               ///< First line of the commit message, when known.
  std::string tree;                  ///< Tree id.
  std::string build_name;            ///< The capture's build name.
  int64_t seq = 0;                   ///< Record order (larger = recorded later).
};

/// One stage of a stored variant: where its text lives.
struct StoredStage {
  std::string stage;  ///< "ttir", "ttgir", ...
  std::string blob;   ///< Blob id.
  std::string path;   ///< Path within the capture ("cache/<dir>/<kernel>.ttgir").
  /// XXH3-128 (hex) of the bytes the recorded file had: the blob's text may
  /// be an earlier text of the same normalized form. "" in records written
  /// before it was kept.
  std::string raw_hash;
};

/// A variant record: the metadata of a build::Variant (stages without text)
/// and the blob of each stage.
struct StoredVariant {
  std::string record_id;  ///< Content hash of the record.
  build::Variant meta;    ///< Everything but stage texts; `stages` is empty.
  std::vector<StoredStage> stages;
  const StoredStage* stage(const std::string& name) const;
};

struct RecordOptions {
  std::string sha;                   ///< Required: the commit id.
  std::vector<std::string> parents;  ///< Parent commit ids, first parent first.
  int64_t date = 0;                  ///< Commit date (Unix seconds), 0 = unknown.
  std::string subject;               ///< Commit subject line (optional).
  int level = kDefaultLevel;         ///< zstd level for new blobs.
  /// Recording a commit that is already there with a different capture is an
  /// error unless `replace` (then the old record is dropped; `store gc` frees it).
  bool replace = false;
  /// Called after each variant is read, hashed and (where new) normalized
  /// and compressed: (variants done, variants in the capture). Optional.
  std::function<void(size_t done, size_t total)> progress;
};

struct RecordStats {
  bool already_recorded = false;  ///< The same capture was there: nothing written.
  bool replaced = false;
  size_t variants = 0, stages = 0;
  size_t new_blobs = 0;     ///< Blobs written by this record.
  size_t reused_blobs = 0;  ///< Stages that needed no new blob (stages - new_blobs).
  size_t new_variants = 0;  ///< Variant records written.
  bool new_tree = false;
  uint64_t input_bytes = 0;     ///< Text bytes read from the capture.
  uint64_t new_blob_bytes = 0;  ///< Compressed bytes of the new blobs.
  uint64_t new_raw_bytes = 0;   ///< Uncompressed bytes of the new blobs.
  /// Stages stored by raw hash because they could not be normalized, etc.
  std::vector<std::string> warnings;
  /// Variant-stages the capture reports unstable (its unstable.json), and
  /// how many of them the store did not know yet.
  size_t unstable = 0, new_unstable = 0;
};

/// A variant-stage known to compile nondeterministically: the store keeps
/// every one a recorded capture reported (from its unstable.json), for all
/// later commits (docs/history-store.md, "Unstable variant-stages").
struct UnstableFact {
  build::UnstableVariant variant;  ///< Identity and the one stage.
  std::string first_commit;        ///< The commit whose capture reported it first.
  int64_t recorded_at = 0;         ///< When, Unix seconds.
};

struct StoreStats {
  int64_t commits = 0, trees = 0, variants = 0, blobs = 0;
  int64_t raw_bytes = 0;     ///< Sum of blob text sizes.
  int64_t stored_bytes = 0;  ///< Sum of compressed blob sizes.
  int64_t db_bytes = 0;      ///< Pages in use (page_count - freelist) * page_size.
  int64_t file_bytes = 0;    ///< Database file plus WAL on disk.
};

/// Which parts of a commit's build load() materializes.
struct LoadOptions {
  std::vector<std::string> kernels;  ///< Only these kernels (empty = all).
  std::vector<std::string> stages;   ///< Only these stages (empty = all).
  /// Bytes of stage text the load may decompress in all (each blob is also
  /// capped at 4 GiB, what `record` reads): a damaged store cannot make a
  /// load allocate what its rows claim.
  uint64_t max_text_bytes = uint64_t{16} << 30;
};

class Store {
 public:
  /// Opens the store at `path` for writing; with `create`, creates it (and
  /// its folder, and the tables in an empty file). A store of a newer schema
  /// is refused before anything is written. Errors: kNotFound (no store, or
  /// an empty file, and !create), kUnsupported (newer schema), kCorrupt (not
  /// a ksnap store), kIoError.
  static Expected<Store> open(const std::string& path, bool create = false);
  /// Opens the store at `path` for reading only (SQLITE_OPEN_READONLY): no
  /// call through it changes the file — no tables are created, no journal
  /// mode is switched, a version-1 store is read as it is. The writing calls
  /// (record, forget, gc) fail with kIoError. Errors as open() without create.
  static Expected<Store> open_read_only(const std::string& path);

  Store(Store&&) noexcept;
  Store& operator=(Store&&) noexcept;
  ~Store();

  const std::string& path() const;

  /// Records `b` as commit `o.sha` in one transaction (see RecordOptions).
  /// Errors: unreadable stage files (naming them), kInvalidArgument for a
  /// missing sha or a conflicting earlier record, store I/O errors.
  Expected<RecordStats> record(const build::Build& b, const RecordOptions& o);

  /// The commit recorded as exactly `sha`, or nullopt.
  Expected<std::optional<CommitInfo>> find(const std::string& sha);
  /// Resolves a full id or a unique prefix (>= 4 hex digits) of a recorded
  /// commit. Errors: kNotFound, kInvalidArgument (ambiguous prefix).
  Expected<std::string> resolve_prefix(const std::string& prefix);
  /// All recorded commits, in record order.
  Expected<std::vector<CommitInfo>> commits();
  /// Recorded parents of `sha` (empty when unrecorded or none known).
  Expected<std::vector<std::string>> parents(const std::string& sha);

  /// The variant records of a commit, in capture order, without texts.
  Expected<std::vector<StoredVariant>> variants(const std::string& sha);
  /// The commit as a Build (BuildKind::kMemory): stage texts in memory,
  /// stage paths spelled `<sha12>:<path in capture>`; every variant-stage the
  /// store knows to be unstable (any commit's report, matched by identity:
  /// build::UnstableMatch::kIdentity) is in Variant::unstable_stages. A stage's text is the
  /// first one recorded with its normalized form: it normalizes exactly like
  /// the recorded file, but its cosmetics (SSA names, loc lines, paths) may be
  /// those of an earlier commit. Errors: kNotFound, kCorrupt naming the
  /// commit, variant, stage and blob (a frame that is damaged, holds more or
  /// fewer bytes than its row says, or whose text fails its content hash),
  /// kUnsupported (over LoadOptions::max_text_bytes).
  Expected<build::Build> load(const std::string& sha, const LoadOptions& o = {});
  /// The stored text of one blob, checked against its content hash.
  Expected<std::string> blob_text(const std::string& blob_id);
  /// Compressed size of one blob.
  Expected<int64_t> blob_stored_size(const std::string& blob_id);

  /// Every variant-stage known to be unstable, in the order first reported.
  /// Errors: kCorrupt (a row that is not a one-stage unstable report).
  Expected<std::vector<UnstableFact>> unstable();

  /// Drops the record of `sha` (its blobs stay until gc). kNotFound if absent.
  Status forget(const std::string& sha);

  Expected<StoreStats> stats();

  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  explicit Store(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// True for 4 to 64 hex digits: something that may name a commit by id.
bool looks_like_sha(const std::string& s);

/// Blob id of one stage text: "n:<dialect>:<16 hex>" from its normalized hash
/// under default NormalizeOptions, or "r:<32 hex>" (raw XXH3-128) when the
/// stage has no lexer or cannot be normalized (`*warning` then says why).
std::string blob_id_for(const std::string& stage, const TextBuffer& text, std::string* warning);

}  // namespace ksnap::store

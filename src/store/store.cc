// Opening a store and reading commits, variant records and blobs back.
#include "ksnap/store/store.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <system_error>

#include "ksnap/ir/lexer.h"
#include "ksnap/normalize/normalize.h"
#include "ksnap/support/hash.h"
#include "store/codec.h"
#include "store/store_impl.h"
#include "store/variant_codec.h"

namespace ksnap::store {

const StoredStage* StoredVariant::stage(const std::string& name) const {
  for (const auto& s : stages)
    if (s.stage == name) return &s;
  return nullptr;
}

std::string default_store_path() {
  const char* env = std::getenv("KSNAP_STORE");
  return env && *env ? env : kDefaultStorePath;
}

bool looks_like_sha(const std::string& s) {
  return s.size() >= 4 && s.size() <= 64 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
         });
}

std::string blob_id_for(const std::string& stage, const TextBuffer& text, std::string* warning) {
  ir::Dialect d;
  if (ir::dialect_for_stage(stage, &d)) {
    auto h = norm::normalized_hash(text, d);
    if (h) return std::string("n:") + ir::dialect_name(d) + ":" + hex64(*h);
    if (warning)
      *warning = h.status().with_file(text.name()).to_string() +
                 " (stored by raw hash: it will not share a blob with noise-only changes)";
  } else if (warning) {
    *warning = text.name() + ": no lexer for stage '" + stage + "' (stored by raw hash)";
  }
  return "r:" + hash128_hex(text.view());
}

namespace {

std::unique_ptr<Store::Impl> make_impl(Db db, const std::string& path) {
  auto impl = std::make_unique<Store::Impl>();
  impl->db = std::move(db);
  impl->path = path;
  return impl;
}

}  // namespace

Store::Store(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Store::Store(Store&&) noexcept = default;
Store& Store::operator=(Store&&) noexcept = default;
Store::~Store() = default;

const std::string& Store::path() const { return impl_->path; }

Expected<Store> Store::open(const std::string& path, bool create) {
  if (create) {
    std::filesystem::path parent = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    if (ec)
      return make_error(ErrorCode::kIoError, "cannot create folder: " + ec.message(),
                        {parent.string(), 0, 0});
  }
  KSNAP_ASSIGN_OR_RETURN(Db db, Db::open_for_writing(path, create));
  // The schema first: a store this ksnap cannot write is refused unchanged.
  KSNAP_RETURN_IF_ERROR(ensure_schema(db, create));
  KSNAP_RETURN_IF_ERROR(db.use_wal());
  return Store(make_impl(std::move(db), path));
}

Expected<Store> Store::open_read_only(const std::string& path) {
  KSNAP_ASSIGN_OR_RETURN(Db db, Db::open_read_only(path));
  KSNAP_RETURN_IF_ERROR(ensure_schema(db, /*create=*/false));
  return Store(make_impl(std::move(db), path));
}

namespace {

Expected<std::vector<std::string>> read_parents(Db& db, const std::string& sha) {
  KSNAP_ASSIGN_OR_RETURN(Stmt q, db.prepare("SELECT parent FROM parents WHERE sha=? ORDER BY idx"));
  q.bind(1, sha);
  std::vector<std::string> out;
  for (;;) {
    KSNAP_ASSIGN_OR_RETURN(bool row, q.step());
    if (!row) break;
    out.push_back(q.text(0));
  }
  return out;
}

constexpr const char* kCommitColumns =
    "SELECT c.seq, c.sha, c.tree, c.date, c.recorded_at, c.subject, coalesce(t.name, '') "
    "FROM commits c LEFT JOIN trees t ON t.id = c.tree ";

CommitInfo commit_from_row(const Stmt& q) {
  CommitInfo c;
  c.seq = q.integer(0);
  c.sha = q.text(1);
  c.tree = q.text(2);
  c.date = q.integer(3);
  c.recorded_at = q.integer(4);
  c.subject = q.text(5);
  c.build_name = q.text(6);
  return c;
}

}  // namespace

Expected<std::optional<CommitInfo>> Store::find(const std::string& sha) {
  Db& db = impl_->db;
  KSNAP_ASSIGN_OR_RETURN(Transaction t, Transaction::begin(db, false));
  KSNAP_ASSIGN_OR_RETURN(Stmt q, db.prepare(std::string(kCommitColumns) + "WHERE c.sha=?"));
  q.bind(1, sha);
  KSNAP_ASSIGN_OR_RETURN(bool row, q.step());
  if (!row) return std::optional<CommitInfo>();
  CommitInfo c = commit_from_row(q);
  KSNAP_ASSIGN_OR_RETURN(c.parents, read_parents(db, sha));
  return std::optional<CommitInfo>(std::move(c));
}

Expected<std::string> Store::resolve_prefix(const std::string& prefix) {
  if (!looks_like_sha(prefix))
    return make_error(ErrorCode::kInvalidArgument,
                      "'" + prefix + "' is not a commit id (4 or more hex digits)");
  std::string lower = prefix;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](char c) {
    return static_cast<char>(c >= 'A' && c <= 'F' ? c - 'A' + 'a' : c);
  });
  KSNAP_ASSIGN_OR_RETURN(
      Stmt q, impl_->db.prepare("SELECT sha FROM commits WHERE substr(sha, 1, ?) = ? LIMIT 2"));
  q.bind(1, static_cast<int64_t>(lower.size()));
  q.bind(2, lower);
  std::vector<std::string> hits;
  for (;;) {
    KSNAP_ASSIGN_OR_RETURN(bool row, q.step());
    if (!row) break;
    hits.push_back(q.text(0));
  }
  if (hits.empty())
    return make_error(ErrorCode::kNotFound, "commit " + prefix + " is not recorded",
                      {impl_->path, 0, 0});
  if (hits.size() > 1)
    return make_error(
        ErrorCode::kInvalidArgument,
        "commit prefix " + prefix + " is ambiguous (" + hits[0] + ", " + hits[1] + ", ...)",
        {impl_->path, 0, 0});
  return hits[0];
}

Expected<std::vector<CommitInfo>> Store::commits() {
  Db& db = impl_->db;
  KSNAP_ASSIGN_OR_RETURN(Transaction t, Transaction::begin(db, false));
  KSNAP_ASSIGN_OR_RETURN(Stmt q, db.prepare(std::string(kCommitColumns) + "ORDER BY c.seq"));
  std::vector<CommitInfo> out;
  for (;;) {
    KSNAP_ASSIGN_OR_RETURN(bool row, q.step());
    if (!row) break;
    out.push_back(commit_from_row(q));
  }
  KSNAP_ASSIGN_OR_RETURN(Stmt p, db.prepare("SELECT sha, parent FROM parents ORDER BY sha, idx"));
  std::map<std::string, std::vector<std::string>> parents;
  for (;;) {
    KSNAP_ASSIGN_OR_RETURN(bool row, p.step());
    if (!row) break;
    parents[p.text(0)].push_back(p.text(1));
  }
  for (CommitInfo& c : out) {
    auto it = parents.find(c.sha);
    if (it != parents.end()) c.parents = it->second;
  }
  return out;
}

Expected<std::vector<std::string>> Store::parents(const std::string& sha) {
  return read_parents(impl_->db, sha);
}

Expected<std::vector<StoredVariant>> Store::variants(const std::string& sha) {
  Db& db = impl_->db;
  KSNAP_ASSIGN_OR_RETURN(Transaction t, Transaction::begin(db, false));
  KSNAP_ASSIGN_OR_RETURN(Stmt q, db.prepare("SELECT v.id, v.size, v.data FROM commits c "
                                            "JOIN tree_variants tv ON tv.tree = c.tree "
                                            "LEFT JOIN variants v ON v.id = tv.variant "
                                            "WHERE c.sha = ? ORDER BY tv.idx"));
  q.bind(1, sha);
  std::vector<StoredVariant> out;
  for (;;) {
    KSNAP_ASSIGN_OR_RETURN(bool row, q.step());
    if (!row) break;
    if (q.is_null(0))
      return make_error(ErrorCode::kCorrupt, "commit " + sha + " names a missing variant record",
                        {impl_->path, 0, 0});
    std::string id = q.text(0);
    std::string what = "commit " + sha.substr(0, 12) + ": variant record " + id;
    auto json_text = decompress(q.blob(2), q.integer(1), what);
    if (!json_text) return json_text.status().with_file(impl_->path);
    if (content_id(*json_text) != id)
      return make_error(ErrorCode::kCorrupt, what + ": content hash differs from its id",
                        {impl_->path, 0, 0});
    auto v = decode_variant(*json_text, id, what);
    if (!v) return v.status().with_file(impl_->path);
    out.push_back(std::move(*v));
  }
  if (out.empty()) {
    KSNAP_ASSIGN_OR_RETURN(std::optional<CommitInfo> c, find(sha));
    if (!c)
      return make_error(ErrorCode::kNotFound, "commit " + sha + " is not recorded",
                        {impl_->path, 0, 0});
  }
  return out;
}

namespace {

/// The text of blob `id`, decompressed within `budget` (when given) and
/// checked against its content hash. Errors name the blob and the store.
Expected<std::string> read_blob(Db& db, const std::string& id, DecodeBudget* budget) {
  KSNAP_ASSIGN_OR_RETURN(Stmt q,
                         db.prepare("SELECT raw_hash, raw_size, data FROM blobs WHERE id = ?"));
  q.bind(1, id);
  KSNAP_ASSIGN_OR_RETURN(bool row, q.step());
  if (!row) return make_error(ErrorCode::kCorrupt, "blob " + id + " is missing", {db.path(), 0, 0});
  auto text = decode_blob(id, q.text(0), q.integer(1), q.blob(2), budget);
  if (!text) return text.status().with_file(db.path());
  return text;
}

}  // namespace

Expected<std::string> Store::blob_text(const std::string& blob_id) {
  return read_blob(impl_->db, blob_id, nullptr);
}

Expected<int64_t> Store::blob_stored_size(const std::string& blob_id) {
  KSNAP_ASSIGN_OR_RETURN(Stmt q, impl_->db.prepare("SELECT length(data) FROM blobs WHERE id = ?"));
  q.bind(1, blob_id);
  KSNAP_ASSIGN_OR_RETURN(bool row, q.step());
  if (!row)
    return make_error(ErrorCode::kNotFound, "blob " + blob_id + " is missing", {impl_->path, 0, 0});
  return q.integer(0);
}

Expected<build::Build> Store::load(const std::string& sha, const LoadOptions& o) {
  Db& db = impl_->db;
  // One read transaction: the tree, its records and blobs come from one snapshot
  // even while another process records.
  KSNAP_ASSIGN_OR_RETURN(Transaction t, Transaction::begin(db, false));
  KSNAP_ASSIGN_OR_RETURN(Stmt q,
                         db.prepare("SELECT t.name, t.triton_version, t.arch, t.format_version "
                                    "FROM commits c JOIN trees t ON t.id = c.tree WHERE c.sha=?"));
  q.bind(1, sha);
  KSNAP_ASSIGN_OR_RETURN(bool row, q.step());
  if (!row) {
    KSNAP_ASSIGN_OR_RETURN(std::optional<CommitInfo> c, find(sha));
    if (c)
      return make_error(ErrorCode::kCorrupt, "commit " + sha + " names a missing tree",
                        {impl_->path, 0, 0});
    return make_error(ErrorCode::kNotFound, "commit " + sha + " is not recorded",
                      {impl_->path, 0, 0});
  }
  build::Build b;
  b.kind = build::BuildKind::kMemory;
  b.name = sha.substr(0, 12);
  b.root = impl_->path + "@" + sha;
  b.triton_version = q.text(1);
  b.arch = q.text(2);
  b.format_version = static_cast<int>(q.integer(3));
  KSNAP_ASSIGN_OR_RETURN(std::vector<StoredVariant> vars, variants(sha));
  auto wanted = [](const std::vector<std::string>& list, const std::string& x) {
    return list.empty() || std::find(list.begin(), list.end(), x) != list.end();
  };
  std::map<std::string, std::shared_ptr<const std::string>> texts;  // blob id -> text
  std::map<std::string, std::optional<uint64_t>> hashes;            // blob id -> kept hash
  KSNAP_ASSIGN_OR_RETURN(bool kept_hashes, has_norm_hashes(db));
  const std::string prefix = sha.substr(0, 12) + ":";
  DecodeBudget budget(o.max_text_bytes);
  for (StoredVariant& sv : vars) {
    if (!wanted(o.kernels, sv.meta.kernel)) continue;
    build::Variant v = std::move(sv.meta);
    for (const StoredStage& s : sv.stages) {
      if (!wanted(o.stages, s.stage)) continue;
      auto& text = texts[s.blob];
      if (!text) {
        auto raw = read_blob(db, s.blob, &budget);
        if (!raw)  // located: the commit, the variant and stage, the blob, the store
          return make_error(raw.status().code(),
                            "commit " + sha.substr(0, 12) + ", " + v.kernel + " (variant " +
                                sv.record_id + ") stage " + s.stage + ": " + raw.status().message(),
                            raw.status().location());
        text = std::make_shared<const std::string>(std::move(*raw));
        // The hash is kept for the blob's dialect; used only for that stage's.
        ir::Dialect d;
        if (kept_hashes && ir::dialect_for_stage(s.stage, &d) &&
            blob_dialect(s.blob) == ir::dialect_name(d)) {
          KSNAP_ASSIGN_OR_RETURN(hashes[s.blob], kept_hash(db, s.blob));
        }
      }
      build::StageFile f{s.stage, prefix + s.path, text, {}, s.raw_hash};
      auto h = hashes.find(s.blob);
      if (h != hashes.end()) f.normalized_hash = h->second;
      v.stages.push_back(std::move(f));
    }
    b.variants.push_back(std::move(v));
  }
  KSNAP_RETURN_IF_ERROR(mark_known_unstable(db, &b));
  build::share_equal_options(&b);
  // Every raw text any record read, for the other side of a diff. Only a
  // shortcut: a store that cannot be opened again leaves it null and the
  // diff normalizes what it would have looked up.
  KSNAP_ASSIGN_OR_RETURN(bool raw_norm, has_raw_norm(db));
  if (raw_norm) {
    auto known = open_known_texts(impl_->path);
    if (known) b.known_texts = std::move(*known);
  }
  return b;
}

Status Store::forget(const std::string& sha) {
  Db& db = impl_->db;
  KSNAP_ASSIGN_OR_RETURN(Transaction t, Transaction::begin(db, true));
  KSNAP_ASSIGN_OR_RETURN(Stmt del, db.prepare("DELETE FROM commits WHERE sha=?"));
  KSNAP_RETURN_IF_ERROR(del.run_with(sha));
  KSNAP_ASSIGN_OR_RETURN(int64_t n, db.query_int("SELECT changes()"));
  if (n == 0)
    return make_error(ErrorCode::kNotFound, "commit " + sha + " is not recorded",
                      {impl_->path, 0, 0});
  KSNAP_ASSIGN_OR_RETURN(Stmt dp, db.prepare("DELETE FROM parents WHERE sha=?"));
  KSNAP_RETURN_IF_ERROR(dp.run_with(sha));
  return t.commit();
}

Expected<StoreStats> Store::stats() {
  Db& db = impl_->db;
  StoreStats s;
  {
    KSNAP_ASSIGN_OR_RETURN(Transaction t, Transaction::begin(db, false));
    KSNAP_ASSIGN_OR_RETURN(s.commits, db.query_int("SELECT count(*) FROM commits"));
    KSNAP_ASSIGN_OR_RETURN(s.trees, db.query_int("SELECT count(*) FROM trees"));
    KSNAP_ASSIGN_OR_RETURN(s.variants, db.query_int("SELECT count(*) FROM variants"));
    KSNAP_ASSIGN_OR_RETURN(s.blobs, db.query_int("SELECT count(*) FROM blobs"));
    KSNAP_ASSIGN_OR_RETURN(s.raw_bytes,
                           db.query_int("SELECT coalesce(sum(raw_size), 0) FROM blobs"));
    KSNAP_ASSIGN_OR_RETURN(s.stored_bytes,
                           db.query_int("SELECT coalesce(sum(length(data)), 0) FROM blobs"));
    KSNAP_ASSIGN_OR_RETURN(int64_t pages, db.query_int("PRAGMA page_count"));
    KSNAP_ASSIGN_OR_RETURN(int64_t free_pages, db.query_int("PRAGMA freelist_count"));
    KSNAP_ASSIGN_OR_RETURN(int64_t page_size, db.query_int("PRAGMA page_size"));
    s.db_bytes = (pages - free_pages) * page_size;
  }
  for (const char* suffix : {"", "-wal"}) {
    struct stat st;
    if (::stat((impl_->path + suffix).c_str(), &st) == 0) s.file_bytes += st.st_size;
  }
  return s;
}

}  // namespace ksnap::store

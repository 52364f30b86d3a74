// Recording a capture as one commit.
//
// Worked example: commit 2 of a suite where only matmul's TTGIR changed.
//   every stage file is read and hashed raw (XXH3-128): the 94 unchanged texts
//   hit raw_index, so they are neither normalized nor compressed again;
//   matmul.ttgir misses, is normalized -> "n:mlir:<hash>", which is new, so
//   it is compressed and becomes the one new blob; matmul's variant record and
//   the tree change (two small rows); then one transaction inserts blob,
//   record, tree, commit and parent rows. A noise-only change (other SSA
//   names, paths) normalizes to an existing id: a raw_index row, no blob.
#include <cstdlib>
#include <ctime>
#include <map>
#include <set>

#include "ksnap/ir/lexer.h"
#include "ksnap/normalize/normalize.h"
#include "ksnap/store/store.h"
#include "ksnap/support/hash.h"
#include "store/codec.h"
#include "store/store_impl.h"
#include "store/variant_codec.h"

namespace ksnap::store {

namespace {

struct NewBlob {
  std::string raw_hash;
  int64_t raw_size = 0;
  std::string data;  // zstd frame
};

struct NewVariant {
  std::string kernel;
  int64_t size = 0;
  std::string data;  // zstd frame of the record JSON
  std::vector<StoredStage> stages;
};

/// The path of a stage file inside its capture, for messages and exports.
std::string capture_path(const build::Build& b, const build::Variant& v,
                         const build::StageFile& f) {
  std::string root = b.root;
  while (!root.empty() && root.back() == '/') root.pop_back();
  if (!root.empty() && f.path.size() > root.size() + 1 &&
      f.path.compare(0, root.size(), root) == 0 && f.path[root.size()] == '/')
    return f.path.substr(root.size() + 1);
  // Stage files of a build loaded from the store are spelled "<sha12>:<path>".
  size_t colon = f.path.find(':');
  if (b.kind == build::BuildKind::kMemory && colon != std::string::npos)
    return f.path.substr(colon + 1);
  return "cache/" + v.cache_dir + "/" + v.kernel + "." + f.stage;
}

Expected<bool> exists(Db& db, const char* sql, const std::string& key) {
  KSNAP_ASSIGN_OR_RETURN(Stmt q, db.prepare(sql));
  q.bind(1, key);
  return q.step();
}

Expected<std::optional<std::string>> lookup_raw(Db& db, const std::string& raw_hash) {
  KSNAP_ASSIGN_OR_RETURN(Stmt q, db.prepare("SELECT blob FROM raw_index WHERE raw_hash=?"));
  q.bind(1, raw_hash);
  KSNAP_ASSIGN_OR_RETURN(bool row, q.step());
  if (!row) return std::optional<std::string>();
  return std::optional<std::string>(q.text(0));
}

/// What a record writes, decided against the store as it was when planned.
struct Plan {
  RecordStats st;
  std::map<std::string, NewBlob> new_blobs;          // blob id -> blob
  std::map<std::string, uint64_t> new_norm_hashes;   // blob id -> hash (kHashVersion)
  std::set<std::string> norm_checked;                // blob ids whose kept hash is settled
  std::map<std::string, std::string> new_raw_index;  // raw hash -> blob id
  /// (raw hash, dialect) -> normalized hash (kHashVersion), and the keys settled.
  std::map<std::pair<std::string, std::string>, uint64_t> new_raw_norm;
  std::set<std::pair<std::string, std::string>> raw_norm_checked;
  std::map<std::string, NewVariant> new_variants;    // record id -> record
  std::vector<std::string> variant_ids;
};

/// Settles the kept normalized hash of blob `id` (norm_hashes), which stage
/// `stage` with text `text` (XXH3-128 `raw_hash`) maps to: a blob this plan
/// creates was named by its hash under norm::kHashVersion; a stored blob
/// without a row of this version has its own text normalized once (this
/// text when it is the blob's, else the blob's text from the store).
Status plan_kept_hash(Db& db, const std::string& id, const std::string& stage,
                      const TextBuffer& text, const std::string& raw_hash, Plan* p) {
  if (!p->norm_checked.insert(id).second) return Status::ok();
  ir::Dialect d;
  if (!ir::dialect_for_stage(stage, &d) || blob_dialect(id) != ir::dialect_name(d))
    return Status::ok();  // a raw blob, or one named under another stage's dialect
  auto fresh = p->new_blobs.find(id);
  if (fresh != p->new_blobs.end()) {
    const std::string hex = id.substr(id.rfind(':') + 1);
    p->new_norm_hashes[id] = std::strtoull(hex.c_str(), nullptr, 16);
    return Status::ok();
  }
  KSNAP_ASSIGN_OR_RETURN(std::optional<uint64_t> kept, kept_hash(db, id));
  if (kept) return Status::ok();
  KSNAP_ASSIGN_OR_RETURN(Stmt q,
                         db.prepare("SELECT raw_hash, raw_size, data FROM blobs WHERE id=?"));
  q.bind(1, id);
  KSNAP_ASSIGN_OR_RETURN(bool row, q.step());
  if (!row) return Status::ok();  // gc took it meanwhile: the plan is redone under the lock
  Expected<uint64_t> h = make_error(ErrorCode::kInternal, "");
  if (q.text(0) == raw_hash) {
    h = norm::normalized_hash(text, d);
  } else {
    auto blob = decode_blob(id, q.text(0), q.integer(1), q.blob(2));
    if (!blob) return blob.status().with_file(db.path());
    h = norm::normalized_hash(TextBuffer(id, std::move(*blob)), d);
  }
  if (h) p->new_norm_hashes[id] = *h;  // else: no kept hash, the diff normalizes it
  return Status::ok();
}

/// Settles the normalized hash of raw text `text` (XXH3-128 `raw_hash`) of
/// stage `stage` (raw_norm): a text this plan named blob `id` by normalizing
/// it has its hash in the id; a text the store knew already keeps its row,
/// or is normalized once when it has none of this kHashVersion.
Status plan_raw_norm(Db& db, bool has_table, const std::string& stage, const std::string& id,
                     bool named_now, const TextBuffer& text, const std::string& raw_hash,
                     Plan* p) {
  ir::Dialect d;
  if (!ir::dialect_for_stage(stage, &d)) return Status::ok();
  std::pair<std::string, std::string> key{raw_hash, ir::dialect_name(d)};
  if (!p->raw_norm_checked.insert(key).second) return Status::ok();
  if (named_now) {
    if (blob_dialect(id) == key.second)
      p->new_raw_norm[key] = std::strtoull(id.c_str() + id.rfind(':') + 1, nullptr, 16);
    return Status::ok();  // else not normalizable: no row, the diff finds out itself
  }
  if (has_table) {
    KSNAP_ASSIGN_OR_RETURN(std::optional<uint64_t> kept, raw_norm_hash(db, raw_hash, key.second));
    if (kept) return Status::ok();
  }
  auto h = norm::normalized_hash(text, d);
  if (h) p->new_raw_norm[key] = *h;
  return Status::ok();
}

/// Reads, hashes, normalizes and compresses what the store lacks.
Expected<Plan> make_plan(Db& db, const build::Build& b, const RecordOptions& o) {
  Plan p;
  RecordStats& st = p.st;
  KSNAP_ASSIGN_OR_RETURN(bool has_raw_norm_table, has_raw_norm(db));
  for (const build::Variant& v : b.variants) {
    std::vector<StoredStage> stages;
    for (const build::StageFile& f : v.stages) {
      KSNAP_ASSIGN_OR_RETURN(TextBuffer text, build::read_stage(f));
      ++st.stages;
      st.input_bytes += text.size();
      std::string raw_hash = hash128_hex(text.view());
      std::string id;
      bool named_now = false;
      auto seen = p.new_raw_index.find(raw_hash);
      if (seen != p.new_raw_index.end()) {
        id = seen->second;
      } else {
        KSNAP_ASSIGN_OR_RETURN(std::optional<std::string> known, lookup_raw(db, raw_hash));
        if (known) {
          id = *known;
        } else {
          std::string warning;
          id = blob_id_for(f.stage, text, &warning);
          named_now = true;
          if (!warning.empty()) st.warnings.push_back(warning);
          p.new_raw_index[raw_hash] = id;
        }
      }
      if (!p.new_blobs.count(id)) {
        KSNAP_ASSIGN_OR_RETURN(bool have, exists(db, "SELECT 1 FROM blobs WHERE id=?", id));
        if (!have) {
          NewBlob nb{raw_hash, static_cast<int64_t>(text.size()), compress(text.view(), o.level)};
          st.new_raw_bytes += text.size();
          st.new_blob_bytes += nb.data.size();
          p.new_blobs.emplace(id, std::move(nb));
        }
      }
      KSNAP_RETURN_IF_ERROR(plan_kept_hash(db, id, f.stage, text, raw_hash, &p));
      KSNAP_RETURN_IF_ERROR(
          plan_raw_norm(db, has_raw_norm_table, f.stage, id, named_now, text, raw_hash, &p));
      stages.push_back(StoredStage{f.stage, id, capture_path(b, v, f), raw_hash});
    }
    std::string json_text = encode_variant(v, stages);
    std::string rid = content_id(json_text);
    p.variant_ids.push_back(rid);
    if (o.progress) o.progress(p.variant_ids.size(), b.variants.size());
    if (!p.new_variants.count(rid)) {
      KSNAP_ASSIGN_OR_RETURN(bool have, exists(db, "SELECT 1 FROM variants WHERE id=?", rid));
      if (!have)
        p.new_variants.emplace(rid, NewVariant{v.kernel, static_cast<int64_t>(json_text.size()),
                                               compress(json_text, o.level), std::move(stages)});
    }
  }
  st.variants = b.variants.size();
  st.new_blobs = p.new_blobs.size();
  st.reused_blobs = st.stages - st.new_blobs;
  st.new_variants = p.new_variants.size();
  return p;
}

/// True when everything `p` reuses is still stored: the variant records of
/// the tree that it does not write, and the blobs its new records name that
/// it does not write. (`store gc` may have deleted them since the plan, when
/// nothing referenced them.) Run inside the write transaction.
Expected<bool> plan_still_holds(Db& db, const Plan& p) {
  for (const std::string& rid : p.variant_ids) {
    if (p.new_variants.count(rid)) continue;
    KSNAP_ASSIGN_OR_RETURN(bool have, exists(db, "SELECT 1 FROM variants WHERE id=?", rid));
    if (!have) return false;
  }
  for (const auto& [rid, nv] : p.new_variants)
    for (const StoredStage& s : nv.stages) {
      if (p.new_blobs.count(s.blob)) continue;
      KSNAP_ASSIGN_OR_RETURN(bool have, exists(db, "SELECT 1 FROM blobs WHERE id=?", s.blob));
      if (!have) return false;
    }
  return true;
}

}  // namespace

Expected<RecordStats> Store::record(const build::Build& b, const RecordOptions& o) {
  if (o.sha.empty()) return make_error(ErrorCode::kInvalidArgument, "record needs a commit id");
  Db& db = impl_->db;

  // 1. Outside any write lock: read, hash, normalize and compress what is new.
  KSNAP_ASSIGN_OR_RETURN(Plan plan, make_plan(db, b, o));
  const std::string tree_id =
      content_id(tree_text(b.name, b.triton_version, b.arch, b.format_version, plan.variant_ids));
  // Nondeterminism the capture found (unstable.json): remembered for all commits.
  const std::vector<UnstableRow> unstable = unstable_rows(b);

  // 2. One write transaction: everything of this commit or nothing.
  KSNAP_ASSIGN_OR_RETURN(Transaction t, Transaction::begin(db, true));
  // `store gc` may have deleted what the plan found stored and reuses (it
  // was unreferenced then): plan again, now under the write lock, which keeps
  // gc out until this commit references it. Rare; the check is a few lookups.
  KSNAP_ASSIGN_OR_RETURN(bool holds, plan_still_holds(db, plan));
  if (!holds) {
    KSNAP_ASSIGN_OR_RETURN(plan, make_plan(db, b, o));
  }
  RecordStats& st = plan.st;
  st.unstable = unstable.size();
  KSNAP_ASSIGN_OR_RETURN(Stmt old, db.prepare("SELECT tree FROM commits WHERE sha=?"));
  old.bind(1, o.sha);
  KSNAP_ASSIGN_OR_RETURN(bool had, old.step());
  if (had) {
    const bool same_tree = old.text(0) == tree_id;
    old.reset();
    if (same_tree) {
      st.already_recorded = true;
      st.new_blobs = st.new_variants = 0;
      st.new_blob_bytes = st.new_raw_bytes = 0;
      // The same capture again: only what it says about nondeterminism may be new.
      KSNAP_ASSIGN_OR_RETURN(st.new_unstable, insert_unstable(db, unstable, o.sha));
      if (st.new_unstable) KSNAP_RETURN_IF_ERROR(t.commit());
      return st;  // otherwise the transaction rolls back: nothing to write
    }
    if (!o.replace)
      return make_error(ErrorCode::kInvalidArgument,
                        "commit " + o.sha +
                            " is already recorded with another capture (pass --replace to "
                            "overwrite it)",
                        {impl_->path, 0, 0});
    KSNAP_ASSIGN_OR_RETURN(Stmt d1, db.prepare("DELETE FROM commits WHERE sha=?"));
    KSNAP_RETURN_IF_ERROR(d1.run_with(o.sha));
    KSNAP_ASSIGN_OR_RETURN(Stmt d2, db.prepare("DELETE FROM parents WHERE sha=?"));
    KSNAP_RETURN_IF_ERROR(d2.run_with(o.sha));
    st.replaced = true;
  }
  {
    KSNAP_ASSIGN_OR_RETURN(Stmt q,
                           db.prepare("INSERT OR IGNORE INTO blobs(id, raw_hash, raw_size, data) "
                                      "VALUES(?, ?, ?, ?)"));
    for (const auto& [id, nb] : plan.new_blobs)
      KSNAP_RETURN_IF_ERROR(q.run_with(id, nb.raw_hash, nb.raw_size, Blob{nb.data}));
  }
  {
    KSNAP_ASSIGN_OR_RETURN(Stmt q, db.prepare("INSERT OR IGNORE INTO norm_hashes VALUES(?, ?, ?)"));
    for (const auto& [id, h] : plan.new_norm_hashes)
      KSNAP_RETURN_IF_ERROR(q.run_with(id, static_cast<int64_t>(norm::kHashVersion), hex64(h)));
  }
  {
    KSNAP_ASSIGN_OR_RETURN(Stmt q, db.prepare("INSERT OR IGNORE INTO raw_index VALUES(?, ?)"));
    for (const auto& [raw, id] : plan.new_raw_index) KSNAP_RETURN_IF_ERROR(q.run_with(raw, id));
  }
  {
    KSNAP_ASSIGN_OR_RETURN(Stmt q, db.prepare("INSERT OR IGNORE INTO raw_norm VALUES(?, ?, ?, ?)"));
    for (const auto& [key, h] : plan.new_raw_norm)
      KSNAP_RETURN_IF_ERROR(q.run_with(key.first, key.second,
                                       static_cast<int64_t>(norm::kHashVersion), hex64(h)));
  }
  {
    KSNAP_ASSIGN_OR_RETURN(Stmt q, db.prepare("INSERT OR IGNORE INTO variants VALUES(?, ?, ?, ?)"));
    KSNAP_ASSIGN_OR_RETURN(Stmt vb,
                           db.prepare("INSERT OR IGNORE INTO variant_blobs VALUES(?, ?, ?)"));
    for (const auto& [rid, nv] : plan.new_variants) {
      KSNAP_RETURN_IF_ERROR(q.run_with(rid, nv.kernel, nv.size, Blob{nv.data}));
      for (const StoredStage& s : nv.stages)
        KSNAP_RETURN_IF_ERROR(vb.run_with(rid, s.stage, s.blob));
    }
  }
  KSNAP_ASSIGN_OR_RETURN(bool have_tree, exists(db, "SELECT 1 FROM trees WHERE id=?", tree_id));
  if (!have_tree) {
    st.new_tree = true;
    KSNAP_ASSIGN_OR_RETURN(Stmt q, db.prepare("INSERT INTO trees VALUES(?, ?, ?, ?, ?)"));
    KSNAP_RETURN_IF_ERROR(q.run_with(tree_id, b.name, b.triton_version, b.arch,
                                     static_cast<int64_t>(b.format_version)));
    KSNAP_ASSIGN_OR_RETURN(Stmt tv, db.prepare("INSERT INTO tree_variants VALUES(?, ?, ?)"));
    for (size_t i = 0; i < plan.variant_ids.size(); ++i)
      KSNAP_RETURN_IF_ERROR(tv.run_with(tree_id, static_cast<int64_t>(i), plan.variant_ids[i]));
  }
  {
    KSNAP_ASSIGN_OR_RETURN(Stmt q,
                           db.prepare("INSERT INTO commits(sha, tree, date, recorded_at, subject) "
                                      "VALUES(?, ?, ?, ?, ?)"));
    KSNAP_RETURN_IF_ERROR(
        q.run_with(o.sha, tree_id, o.date, static_cast<int64_t>(std::time(nullptr)), o.subject));
    KSNAP_ASSIGN_OR_RETURN(Stmt p, db.prepare("INSERT INTO parents VALUES(?, ?, ?)"));
    std::set<std::string> seen;
    int64_t idx = 0;
    for (const std::string& parent : o.parents) {
      if (parent.empty() || !seen.insert(parent).second) continue;
      KSNAP_RETURN_IF_ERROR(p.run_with(o.sha, idx++, parent));
    }
  }
  KSNAP_ASSIGN_OR_RETURN(st.new_unstable, insert_unstable(db, unstable, o.sha));
  KSNAP_RETURN_IF_ERROR(t.commit());
  return st;
}

}  // namespace ksnap::store

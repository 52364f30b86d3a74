#include "ksnap/store/maintenance.h"

#include <map>
#include <set>

#include "ksnap/ir/lexer.h"
#include "ksnap/normalize/normalize.h"
#include "ksnap/support/figures.h"
#include "ksnap/support/hash.h"
#include "store/codec.h"
#include "store/store_impl.h"
#include "store/variant_codec.h"

namespace ksnap::store {

namespace {

/// Checks one blob row; appends to `problems` / `renormalized`.
/// `kept`: the kept normalized hashes of this norm::kHashVersion, by blob id;
/// `raw_rows`: raw_norm's hashes of this version, by (raw hash, dialect).
using RawRows = std::map<std::pair<std::string, std::string>, std::string>;
void check_blob(const std::string& id, const std::string& raw_hash, int64_t raw_size,
                const std::string& frame, const std::map<std::string, std::string>& kept,
                const RawRows& raw_rows, VerifyReport* r) {
  auto text = decode_blob(id, raw_hash, raw_size, frame);
  if (!text) {
    r->problems.push_back(text.status().message());
    return;
  }
  if (id.rfind("r:", 0) == 0) return;  // decode_blob checked the id
  // n:<dialect>:<hex>
  size_t colon = id.find(':', 2);
  ir::Dialect d;
  std::string dialect = colon == std::string::npos ? "" : id.substr(2, colon - 2);
  bool known = false;
  for (ir::Dialect x : {ir::Dialect::kMlir, ir::Dialect::kLlvm, ir::Dialect::kPtx,
                        ir::Dialect::kAmdgcn, ir::Dialect::kSpirv, ir::Dialect::kSass})
    if (dialect == ir::dialect_name(x)) {
      d = x;
      known = true;
    }
  if (!known) {
    r->problems.push_back("blob " + id + ": malformed id");
    return;
  }
  auto h = norm::normalized_hash(TextBuffer(id, std::move(*text)), d);
  if (!h || hex64(*h) != id.substr(colon + 1)) r->renormalized.push_back(id);
  // A kept hash stands in for normalizing the text (diff against a recorded
  // commit): a wrong one would hide a change, so it must be the text's own.
  auto k = kept.find(id);
  if (k != kept.end() && (!h || k->second != hex64(*h)))
    r->problems.push_back("blob " + id + ": its kept normalized hash " + k->second +
                          " is not its text's (" + (h ? hex64(*h) : h.status().message()) + ")");
  // So would a wrong raw_norm row for the blob's own text.
  auto w = raw_rows.find({raw_hash, dialect});
  if (w != raw_rows.end() && (!h || w->second != hex64(*h)))
    r->problems.push_back("raw text " + raw_hash + " (" + dialect + ", the text of blob " + id +
                          "): its normalized hash " + w->second + " is not its text's (" +
                          (h ? hex64(*h) : h.status().message()) + ")");
}

}  // namespace

Expected<VerifyReport> verify(Store& store) {
  Db& db = store.impl().db;
  VerifyReport r;
  KSNAP_ASSIGN_OR_RETURN(Transaction t, Transaction::begin(db, false));
  {
    KSNAP_ASSIGN_OR_RETURN(Stmt q, db.prepare("PRAGMA integrity_check"));
    for (;;) {
      KSNAP_ASSIGN_OR_RETURN(bool row, q.step());
      if (!row) break;
      if (q.text(0) != "ok") r.problems.push_back("sqlite: " + q.text(0));
    }
  }
  std::map<std::string, std::string> kept;  // blob id -> kept hash of this kHashVersion
  KSNAP_ASSIGN_OR_RETURN(bool has_kept, has_norm_hashes(db));
  if (has_kept) {
    KSNAP_ASSIGN_OR_RETURN(Stmt q,
                           db.prepare("SELECT blob, hash FROM norm_hashes WHERE version=?"));
    q.bind(1, static_cast<int64_t>(norm::kHashVersion));
    for (;;) {
      KSNAP_ASSIGN_OR_RETURN(bool row, q.step());
      if (!row) break;
      kept[q.text(0)] = q.text(1);
    }
  }
  RawRows raw_rows;
  KSNAP_ASSIGN_OR_RETURN(bool has_raw, has_raw_norm(db));
  if (has_raw) {
    KSNAP_ASSIGN_OR_RETURN(
        Stmt q, db.prepare("SELECT raw_hash, dialect, hash FROM raw_norm WHERE version=?"));
    q.bind(1, static_cast<int64_t>(norm::kHashVersion));
    for (;;) {
      KSNAP_ASSIGN_OR_RETURN(bool row, q.step());
      if (!row) break;
      std::string h = q.text(2);
      if (!is_hex16(h))
        r.problems.push_back("raw text " + q.text(0) + " (" + q.text(1) +
                             "): its normalized hash is not 16 hex digits");
      raw_rows[{q.text(0), q.text(1)}] = std::move(h);
    }
  }
  std::set<std::string> blob_ids;
  {
    KSNAP_ASSIGN_OR_RETURN(Stmt q, db.prepare("SELECT id, raw_hash, raw_size, data FROM blobs"));
    for (;;) {
      KSNAP_ASSIGN_OR_RETURN(bool row, q.step());
      if (!row) break;
      ++r.blobs;
      // raw_size is the store's word, not checked yet (check_blob does):
      // a negative one adds nothing and the total stops at INT64_MAX.
      if (q.integer(2) > 0) r.raw_bytes = saturating_add(r.raw_bytes, q.integer(2));
      blob_ids.insert(q.text(0));
      check_blob(q.text(0), q.text(1), q.integer(2), q.blob(3), kept, raw_rows, &r);
    }
  }
  std::map<std::string, std::map<std::string, std::string>> vblobs;  // record -> stage -> blob
  {
    KSNAP_ASSIGN_OR_RETURN(Stmt q, db.prepare("SELECT variant, stage, blob FROM variant_blobs"));
    for (;;) {
      KSNAP_ASSIGN_OR_RETURN(bool row, q.step());
      if (!row) break;
      vblobs[q.text(0)][q.text(1)] = q.text(2);
    }
  }
  std::set<std::string> variant_ids;
  {
    KSNAP_ASSIGN_OR_RETURN(Stmt q, db.prepare("SELECT id, size, data FROM variants"));
    for (;;) {
      KSNAP_ASSIGN_OR_RETURN(bool row, q.step());
      if (!row) break;
      ++r.variants;
      std::string id = q.text(0);
      variant_ids.insert(id);
      auto json_text = decompress(q.blob(2), q.integer(1), "variant record " + id);
      if (!json_text) {
        r.problems.push_back(json_text.status().message());
        continue;
      }
      if (content_id(*json_text) != id) {
        r.problems.push_back("variant record " + id + ": content hash differs from its id");
        continue;
      }
      auto v = decode_variant(*json_text, id, "variant record " + id);
      if (!v) {
        r.problems.push_back(v.status().message());
        continue;
      }
      std::map<std::string, std::string> stages;
      for (const StoredStage& s : v->stages) {
        stages[s.stage] = s.blob;
        if (!blob_ids.count(s.blob))
          r.problems.push_back("variant record " + id + " (" + v->meta.kernel + "): stage " +
                               s.stage + " names missing blob " + s.blob);
      }
      if (stages != vblobs[id])
        r.problems.push_back("variant record " + id + ": variant_blobs rows disagree with it");
    }
  }
  std::set<std::string> tree_ids;
  {
    KSNAP_ASSIGN_OR_RETURN(Stmt q,
                           db.prepare("SELECT id, name, triton_version, arch, format_version "
                                      "FROM trees"));
    KSNAP_ASSIGN_OR_RETURN(
        Stmt tv, db.prepare("SELECT variant FROM tree_variants WHERE tree=? ORDER BY idx"));
    for (;;) {
      KSNAP_ASSIGN_OR_RETURN(bool row, q.step());
      if (!row) break;
      ++r.trees;
      std::string id = q.text(0);
      tree_ids.insert(id);
      tv.reset();
      tv.bind(1, id);
      std::vector<std::string> vids;
      for (;;) {
        KSNAP_ASSIGN_OR_RETURN(bool vrow, tv.step());
        if (!vrow) break;
        vids.push_back(tv.text(0));
        if (!variant_ids.count(vids.back()))
          r.problems.push_back("tree " + id + " names missing variant record " + vids.back());
      }
      std::string text =
          tree_text(q.text(1), q.text(2), q.text(3), static_cast<int>(q.integer(4)), vids);
      if (content_id(text) != id)
        r.problems.push_back("tree " + id + ": content hash differs from its id");
    }
  }
  {
    KSNAP_ASSIGN_OR_RETURN(Stmt q, db.prepare("SELECT sha, tree FROM commits"));
    for (;;) {
      KSNAP_ASSIGN_OR_RETURN(bool row, q.step());
      if (!row) break;
      ++r.commits;
      if (!tree_ids.count(q.text(1)))
        r.problems.push_back("commit " + q.text(0) + " names missing tree " + q.text(1));
    }
  }
  // Every remembered unstable variant-stage is a one-stage unstable report.
  if (auto facts = read_unstable_facts(db); !facts) r.problems.push_back(facts.status().message());
  return r;
}

Expected<GcReport> gc(Store& store, bool vacuum) {
  Db& db = store.impl().db;
  GcReport g;
  KSNAP_ASSIGN_OR_RETURN(StoreStats before, store.stats());
  g.file_bytes_before = before.file_bytes;
  {
    KSNAP_ASSIGN_OR_RETURN(Transaction t, Transaction::begin(db, true));
    KSNAP_RETURN_IF_ERROR(
        db.exec("DELETE FROM tree_variants WHERE tree NOT IN (SELECT tree FROM commits);"
                "DELETE FROM trees WHERE id NOT IN (SELECT tree FROM commits);"));
    KSNAP_ASSIGN_OR_RETURN(g.trees, db.query_int("SELECT changes()"));
    KSNAP_RETURN_IF_ERROR(db.exec(
        "DELETE FROM variant_blobs WHERE variant NOT IN (SELECT variant FROM tree_variants);"
        "DELETE FROM variants WHERE id NOT IN (SELECT variant FROM tree_variants);"));
    KSNAP_ASSIGN_OR_RETURN(g.variants, db.query_int("SELECT changes()"));
    KSNAP_ASSIGN_OR_RETURN(g.blob_bytes,
                           db.query_int("SELECT coalesce(sum(length(data)), 0) FROM blobs "
                                        "WHERE id NOT IN (SELECT blob FROM variant_blobs)"));
    KSNAP_RETURN_IF_ERROR(
        db.exec("DELETE FROM blobs WHERE id NOT IN (SELECT blob FROM variant_blobs)"));
    KSNAP_ASSIGN_OR_RETURN(g.blobs, db.query_int("SELECT changes()"));
    KSNAP_RETURN_IF_ERROR(
        db.exec("DELETE FROM raw_index WHERE blob NOT IN (SELECT id FROM blobs)"));
    KSNAP_RETURN_IF_ERROR(
        db.exec("DELETE FROM norm_hashes WHERE blob NOT IN (SELECT id FROM blobs)"));
    KSNAP_ASSIGN_OR_RETURN(bool raw_norm, has_raw_norm(db));
    if (raw_norm)  // a text no raw_index row knows any more is forgotten with it
      KSNAP_RETURN_IF_ERROR(db.exec(
          "DELETE FROM raw_norm WHERE raw_hash NOT IN (SELECT raw_hash FROM raw_index)"));
    KSNAP_RETURN_IF_ERROR(t.commit());
  }
  if (vacuum) KSNAP_RETURN_IF_ERROR(db.exec("VACUUM"));
  KSNAP_RETURN_IF_ERROR(db.exec("PRAGMA wal_checkpoint(TRUNCATE)"));
  KSNAP_ASSIGN_OR_RETURN(StoreStats after, store.stats());
  g.file_bytes_after = after.file_bytes;
  return g;
}

}  // namespace ksnap::store

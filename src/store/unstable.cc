// The store's memory of compiler nondeterminism: the `unstable` table.
//
// Worked example. `ksnap record --commit c1 ci/cap` where ci/cap/unstable.json
// (from `ksnap capture --repeat 2`) names matmul_kernel_persistent_ws{...}
// stages llir and ptx: two rows, each holding a one-stage unstable report and
// first_commit c1. Later `ksnap diff c7 c8` loads both commits with those
// stages in Variant::unstable_stages (matched by kernel, source, id and
// signature), so a difference there is reported as unstable, not as a change.
#include <ctime>

#include "ksnap/store/store.h"
#include "ksnap/support/hash.h"
#include "store/store_impl.h"

namespace ksnap::store {

namespace {

std::string fact_id(const build::Variant& v, const std::string& stage) {
  return hash128_hex(v.kernel + "\x1f" + v.qualname + "\x1f" + v.source_file + "\x1f" + v.id() +
                     "\x1f" + v.signature + "\x1f" + stage);
}

}  // namespace

std::vector<UnstableRow> unstable_rows(const build::Build& b) {
  std::vector<UnstableRow> rows;
  for (const build::Variant& v : b.variants) {
    for (const std::string& stage : v.unstable_stages) {
      build::UnstableReport one;
      build::UnstableVariant u;
      u.variant = v;
      u.variant.stages.clear();
      u.variant.binaries.clear();
      u.variant.unstable_stages.clear();
      u.stages.push_back({stage, 0, 0});
      one.variants.push_back(std::move(u));
      rows.push_back({fact_id(v, stage), v.kernel, stage, build::unstable_json(one, true)});
    }
  }
  return rows;
}

Expected<size_t> insert_unstable(Db& db, const std::vector<UnstableRow>& rows,
                                 const std::string& sha) {
  KSNAP_ASSIGN_OR_RETURN(Stmt q, db.prepare("INSERT OR IGNORE INTO unstable VALUES(?, ?, ?, ?, ?, ?)"));
  size_t added = 0;
  const int64_t now = static_cast<int64_t>(std::time(nullptr));
  for (const UnstableRow& r : rows) {
    KSNAP_RETURN_IF_ERROR(q.run_with(r.id, r.kernel, r.stage, r.report, sha, now));
    KSNAP_ASSIGN_OR_RETURN(int64_t n, db.query_int("SELECT changes()"));
    added += static_cast<size_t>(n);
  }
  return added;
}

Expected<std::vector<UnstableFact>> read_unstable_facts(Db& db) {
  // A version-1 store opened read-only has no unstable table: nothing known.
  KSNAP_ASSIGN_OR_RETURN(int64_t has_table,
                         db.query_int("SELECT count(*) FROM sqlite_master WHERE type='table' "
                                      "AND name='unstable'"));
  if (has_table == 0) return std::vector<UnstableFact>();
  KSNAP_ASSIGN_OR_RETURN(
      Stmt q, db.prepare("SELECT id, report, first_commit, recorded_at FROM unstable "
                         "ORDER BY recorded_at, rowid"));
  std::vector<UnstableFact> out;
  for (;;) {
    KSNAP_ASSIGN_OR_RETURN(bool row, q.step());
    if (!row) break;
    const std::string what = "unstable row " + q.text(0);
    auto r = build::parse_unstable(q.text(1), db.path() + " (" + what + ")");
    if (!r || r->variants.size() != 1 || r->variants[0].stages.size() != 1)
      return make_error(ErrorCode::kCorrupt,
                        what + " is not a one-stage unstable report" +
                            (r ? "" : ": " + r.status().message()),
                        {db.path(), 0, 0});
    out.push_back({std::move(r->variants[0]), q.text(2), q.integer(3)});
  }
  return out;
}

Status mark_known_unstable(Db& db, build::Build* b) {
  KSNAP_ASSIGN_OR_RETURN(std::vector<UnstableFact> facts, read_unstable_facts(db));
  build::UnstableReport all;
  for (UnstableFact& f : facts) all.variants.push_back(std::move(f.variant));
  build::mark_unstable(all, build::UnstableMatch::kIdentity, b);
  return Status::ok();
}

Expected<std::vector<UnstableFact>> Store::unstable() {
  KSNAP_ASSIGN_OR_RETURN(Transaction t, Transaction::begin(impl_->db, false));
  return read_unstable_facts(impl_->db);
}

}  // namespace ksnap::store

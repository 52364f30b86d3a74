#include "ksnap/history/log.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_set>

#include "ksnap/diff/engine.h"
#include "ksnap/diff/pairing.h"
#include "ksnap/store/date.h"
#include "ksnap/store/git.h"
#include "ksnap/support/text.h"

namespace ksnap::history {

using namespace ::ksnap::store;

namespace {

/// The previous recorded commit along the first-parent chain of `c`, or "".
Expected<std::string> previous_recorded(Store& store, const CommitInfo& c, const std::string& repo,
                                        const std::unordered_set<std::string>& recorded) {
  if (c.parents.empty()) return std::string();
  const std::string& first = c.parents[0];
  if (recorded.count(first)) return first;
  if (repo.empty() || !git::is_repository(repo)) return std::string();
  auto chain = git::history(repo, first, 100000, /*first_parent=*/true);
  if (!chain) return std::string();  // git does not know it: the chain ends here
  for (const git::Commit& g : *chain)
    if (recorded.count(g.sha)) return g.sha;
  return std::string();
}

/// " (did you mean 'x'?)" when one of `known` is close to `word`, else
/// " (WHAT: a, b, c, ...)" listing the first few.
std::string closest_of(const std::string& word, const std::set<std::string>& known,
                       const std::string& what) {
  std::vector<std::string> all(known.begin(), known.end());
  std::string guess = did_you_mean(word, all);
  if (!guess.empty()) return " (did you mean '" + escape_control(guess) + "'?)";
  std::string list;
  for (size_t i = 0; i < all.size() && i < 8; ++i) list += (i ? ", " : "") + escape_control(all[i]);
  if (all.size() > 8) list += ", ...";
  return " (" + what + ": " + list + ")";
}

bool stage_wanted(const LogQuery& q, const std::string& stage) {
  return q.stage.empty() ? stage != "source" : stage == q.stage;
}

/// The variant records of one commit that the query keeps, as a Build of
/// their metadata (for pairing) beside the records themselves.
struct Kept {
  build::Build build;
  std::vector<const StoredVariant*> records;
};

Kept kept(const std::vector<StoredVariant>& vs, const LogQuery& q) {
  Kept k;
  for (const StoredVariant& v : vs)
    if (q.kernel.empty() || v.meta.kernel == q.kernel) {
      k.build.variants.push_back(v.meta);
      k.records.push_back(&v);
    }
  return k;
}

/// Compares two commits by blob ids; fills one KernelChange per changed
/// kernel. Variants pair as in `ksnap diff` (kernel and where it is defined,
/// signature, constexprs, options: diff::pair_variants), never by id alone.
/// True when the store knows `stage` of variant `v` to be unstable.
bool known_unstable(const std::vector<UnstableFact>& facts, const build::Variant& v,
                    const std::string& stage) {
  for (const UnstableFact& f : facts)
    for (const build::UnstableStage& s : f.variant.stages)
      if (s.stage == stage && build::same_variant_identity(f.variant.variant, v)) return true;
  return false;
}

std::vector<KernelChange> compare(const std::vector<StoredVariant>& parent,
                                  const std::vector<StoredVariant>& child, const LogQuery& q,
                                  const std::vector<UnstableFact>& facts) {
  Kept pk = kept(parent, q), ck = kept(child, q);
  std::map<std::string, KernelChange> out;
  // kernel -> stage -> (variants changed, variants known unstable)
  std::map<std::string, std::map<std::string, std::pair<size_t, size_t>>> stage_counts;
  for (const diff::VariantPair& pair : diff::pair_variants(pk.build, ck.build)) {
    const StoredVariant* p = pair.base >= 0 ? pk.records[pair.base] : nullptr;
    const StoredVariant* c = pair.head >= 0 ? ck.records[pair.head] : nullptr;
    const std::string& kernel = (c ? c : p)->meta.kernel;
    std::set<std::string> changed_stages, unstable_stages;
    for (const StoredVariant* side : {p, c}) {
      if (!side) continue;
      for (const StoredStage& s : side->stages) {
        if (!stage_wanted(q, s.stage)) continue;
        const StoredVariant* other = side == p ? c : p;
        const StoredStage* o = other ? other->stage(s.stage) : nullptr;
        if (o && o->blob != s.blob && known_unstable(facts, c->meta, s.stage))
          unstable_stages.insert(s.stage);  // both sides have it: nondeterminism
        else if (!o || o->blob != s.blob)
          changed_stages.insert(s.stage);
      }
    }
    if (changed_stages.empty() && unstable_stages.empty()) continue;
    KernelChange& k = out[kernel];
    k.kernel = kernel;
    const build::Variant& meta = (c ? c : p)->meta;
    (changed_stages.empty() ? k.unstable : k.changed).push_back(meta.id());
    if (!changed_stages.empty()) k.changed_labels.push_back(meta.label());
    k.added += p ? 0 : 1;
    k.removed += c ? 0 : 1;
    for (const std::string& s : changed_stages) ++stage_counts[kernel][s].first;
    for (const std::string& s : unstable_stages) ++stage_counts[kernel][s].second;
  }
  std::vector<KernelChange> result;
  for (auto& [kernel, k] : out) {
    for (const StoredVariant* v : ck.records) k.variants_total += v->meta.kernel == kernel;
    for (const auto& [stage, n] : stage_counts[kernel])
      k.stages.push_back({stage, n.first, 0, 0, n.second});
    std::stable_sort(k.stages.begin(), k.stages.end(),
                     [](const StageChange& a, const StageChange& b) {
                       return build::stage_rank(a.stage) < build::stage_rank(b.stage);
                     });
    result.push_back(std::move(k));
  }
  return result;
}

/// Fills lines added/removed by running the diff engine on the changed kernels.
Status summarize(Store& store, const std::string& parent, const std::string& child,
                 const LogQuery& q, std::vector<KernelChange>* kernels) {
  LoadOptions lo;
  std::set<std::string> stages;
  for (const KernelChange& k : *kernels) {
    lo.kernels.push_back(k.kernel);
    for (const StageChange& s : k.stages) stages.insert(s.stage);
  }
  lo.stages.assign(stages.begin(), stages.end());
  KSNAP_ASSIGN_OR_RETURN(build::Build pb, store.load(parent, lo));
  KSNAP_ASSIGN_OR_RETURN(build::Build cb, store.load(child, lo));
  diff::DiffOptions opts;
  opts.stages = lo.stages;
  opts.kernels = lo.kernels;
  opts.jobs = 1;
  KSNAP_ASSIGN_OR_RETURN(diff::DiffResult r, diff::diff_builds(pb, cb, opts));
  for (KernelChange& k : *kernels)
    for (StageChange& s : k.stages)
      for (const diff::VariantDiff& v : r.variants) {
        if (v.key.kernel != k.kernel) continue;
        const diff::StageDiff* sd = v.stage(s.stage);
        if (!sd || sd->status == diff::ChangeStatus::kUnchanged || sd->unstable) continue;
        s.lines_added += sd->lines_added;
        s.lines_removed += sd->lines_removed;
      }
  return Status::ok();
}

}  // namespace

Expected<std::vector<LogEntry>> kernel_log(Store& store, const LogQuery& q) {
  KSNAP_ASSIGN_OR_RETURN(std::vector<CommitInfo> all, store.commits());
  if (all.empty())
    return make_error(ErrorCode::kNotFound, "the history store is empty", {store.path(), 0, 0});
  std::map<std::string, CommitInfo> info;
  std::unordered_set<std::string> recorded;
  for (const CommitInfo& c : all) {
    recorded.insert(c.sha);
    info[c.sha] = c;
  }
  std::string cur = all.back().sha;
  if (!q.from.empty()) {
    auto sha = store.resolve_prefix(q.from);
    if (!sha && !q.repo.empty() && git::is_repository(q.repo)) {
      auto g = git::rev_parse(q.repo, q.from);
      if (g && recorded.count(*g)) sha = *g;
    }
    if (!sha) return sha.status();
    cur = *sha;
  }
  KSNAP_ASSIGN_OR_RETURN(std::vector<UnstableFact> facts, store.unstable());
  std::vector<LogEntry> out;
  std::unordered_set<std::string> visited;
  KSNAP_ASSIGN_OR_RETURN(std::vector<StoredVariant> child_vars, store.variants(cur));
  // What the walk saw, to tell an empty log from a mistyped kernel or stage.
  std::set<std::string> kernels_seen, stages_seen;
  auto note_seen = [&](const std::vector<StoredVariant>& vs) {
    for (const StoredVariant& v : vs) {
      kernels_seen.insert(v.meta.kernel);
      for (const StoredStage& st : v.stages) stages_seen.insert(st.stage);
    }
  };
  note_seen(child_vars);
  while (visited.insert(cur).second) {
    if (q.progress) q.progress(visited.size(), all.size());
    KSNAP_ASSIGN_OR_RETURN(std::string prev, previous_recorded(store, info[cur], q.repo, recorded));
    if (prev.empty()) break;
    KSNAP_ASSIGN_OR_RETURN(std::vector<StoredVariant> parent_vars, store.variants(prev));
    note_seen(parent_vars);
    // Equal trees: nothing changed (the common case, decided without IR).
    if (info[prev].tree != info[cur].tree) {
      std::vector<KernelChange> changes = compare(parent_vars, child_vars, q, facts);
      if (!changes.empty()) {
        if (q.summaries) KSNAP_RETURN_IF_ERROR(summarize(store, prev, cur, q, &changes));
        out.push_back(LogEntry{info[cur], prev, std::move(changes)});
        if (q.max_count && out.size() >= q.max_count) break;
      }
    }
    cur = prev;
    child_vars = std::move(parent_vars);
  }
  if (out.empty()) {
    if (!q.kernel.empty() && !kernels_seen.count(q.kernel))
      return make_error(ErrorCode::kNotFound,
                        "no recorded commit has a kernel named '" + q.kernel + "'" +
                            closest_of(q.kernel, kernels_seen, "kernels"),
                        {store.path(), 0, 0});
    if (!q.stage.empty() && !stages_seen.count(q.stage))
      return make_error(ErrorCode::kInvalidArgument,
                        "no recorded variant has a stage named '" + q.stage + "'" +
                            closest_of(q.stage, stages_seen, "stages"),
                        {store.path(), 0, 0});
  }
  return out;
}

std::string format_log_line(const LogEntry& e, const KernelChange& k) {
  // Everything from the store came from a capture or a commit: controls and
  // bidi characters are shown escaped (escape_control), never sent raw.
  std::string out = escape_control(e.commit.sha.substr(0, 12)) + " " + format_date(e.commit.date) +
                    " " + escape_control(k.kernel);
  if (k.changed.empty()) {
    out.append(" ").append(std::to_string(k.unstable.size())).append(" of ");
    out.append(std::to_string(k.variants_total)).append(" variants, unstable only");
  } else if (k.changed.size() == 1) {
    // The variant as `ksnap diff` shows it: {BLOCK=64} [num_warps=4].
    std::string label = k.changed_labels.empty() ? k.changed[0] : k.changed_labels[0];
    if (!label.empty()) out.append(" ").append(escape_control(label));
    if (k.added) out += " (added)";
    if (k.removed) out += " (removed)";
  } else {
    out.append(" ").append(std::to_string(k.changed.size())).append(" of ");
    out.append(std::to_string(k.variants_total)).append(" variants");
    if (k.added) out.append(", ").append(std::to_string(k.added)).append(" added");
    if (k.removed) out.append(", ").append(std::to_string(k.removed)).append(" removed");
  }
  out += ":";
  for (size_t i = 0; i < k.stages.size(); ++i) {
    const StageChange& s = k.stages[i];
    out += (i ? ", " : " ") + escape_control(s.stage);
    if (s.variants)
      out += " +" + std::to_string(s.lines_added) + " -" + std::to_string(s.lines_removed);
    if (s.unstable)
      out += s.variants ? " (+" + std::to_string(s.unstable) + " unstable)"
                        : " unstable x" + std::to_string(s.unstable);
  }
  if (!e.commit.subject.empty()) out += "  " + escape_control(e.commit.subject);
  return out;
}

}  // namespace ksnap::history

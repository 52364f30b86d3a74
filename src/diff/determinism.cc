// check_determinism: the diff engine between two compiles of one build; every
// change it finds is nondeterminism. See determinism.h.
#include "ksnap/diff/determinism.h"

#include <algorithm>

namespace ksnap::diff {

Expected<build::UnstableReport> check_determinism(const build::Build& a, const build::Build& b,
                                                  const DiffOptions& o) {
  DiffOptions opts = o;
  if (opts.stages.empty())
    for (const char* s : build::kKnownStages) opts.stages.push_back(s);
  // What the builds already know about themselves must not hide anything here.
  build::Build x = a, y = b;
  for (auto* side : {&x, &y})
    for (build::Variant& v : side->variants) v.unstable_stages.clear();
  KSNAP_ASSIGN_OR_RETURN(DiffResult r, diff_builds(x, y, opts));

  build::UnstableReport out;
  out.runs = {a.root.empty() ? a.name : a.root, b.root.empty() ? b.name : b.root};
  for (const VariantDiff& v : r.variants) {
    const bool both = v.base_index >= 0 && v.head_index >= 0;
    const build::Variant& any = v.base_index >= 0 ? x.variants[v.base_index]
                                                  : y.variants[v.head_index];
    if (!both) {
      out.unpaired.push_back({v.base_index < 0 ? 1u : 0u, any});
      out.unpaired.back().variant.stages.clear();
      out.unpaired.back().variant.binaries.clear();
      continue;
    }
    ++out.variants_compared;
    build::UnstableVariant u;
    for (const StageDiff& s : v.stages) {
      if (s.status == ChangeStatus::kAdded || s.status == ChangeStatus::kRemoved) continue;
      ++out.stages_compared;
      if (s.status == ChangeStatus::kChanged)
        u.stages.push_back({s.stage, s.lines_added, s.lines_removed});
    }
    if (u.stages.empty()) continue;
    u.variant = any;
    u.variant.stages.clear();
    u.variant.binaries.clear();
    out.variants.push_back(std::move(u));
  }
  return out;
}

void merge_unstable(build::UnstableReport* into, const build::UnstableReport& more) {
  const size_t shift = into->runs.empty() ? 0 : into->runs.size() - 1;
  for (size_t i = into->runs.empty() ? 0 : 1; i < more.runs.size(); ++i)
    into->runs.push_back(more.runs[i]);
  into->variants_compared = std::max(into->variants_compared, more.variants_compared);
  into->stages_compared = std::max(into->stages_compared, more.stages_compared);
  for (const build::UnstableVariant& m : more.variants) {
    auto same = [&](const build::UnstableVariant& u) {
      return u.variant.kernel == m.variant.kernel && u.variant.cache_dir == m.variant.cache_dir &&
             u.variant.source() == m.variant.source() && u.variant.id() == m.variant.id() &&
             u.variant.signature == m.variant.signature;
    };
    auto it = std::find_if(into->variants.begin(), into->variants.end(), same);
    if (it == into->variants.end()) {
      into->variants.push_back(m);
      continue;
    }
    for (const build::UnstableStage& s : m.stages) {
      auto at = std::find_if(it->stages.begin(), it->stages.end(),
                             [&](const build::UnstableStage& t) { return t.stage == s.stage; });
      if (at == it->stages.end()) it->stages.push_back(s);
    }
    std::stable_sort(it->stages.begin(), it->stages.end(), [](const auto& l, const auto& r) {
      return build::stage_rank(l.stage) < build::stage_rank(r.stage);
    });
  }
  for (build::UnpairedVariant u : more.unpaired) {
    if (u.run > 0) u.run += shift;
    into->unpaired.push_back(std::move(u));
  }
}

}  // namespace ksnap::diff

// Change groups of the report and their reading order.
//
// Worked example (base..no_licm of the shared corpus, order kPipeline): the
// engine ranks groups by size, so softmax_kernel's LLVM IR change (+40 lines)
// came before its TTGIR change (+6) that caused it, and kernels interleaved.
// Here kernels come by impact (changed kernel-stages, then lines), and within
// a kernel the stages come in pipeline order:
//   layer_norm_fwd: ttgir, llir, ptx   (6 kernel-stages, 255 lines)
//   softmax_kernel: ttgir, llir, ptx
//   matmul_kernel:  ttgir, llir, ptx
//   attn_fwd:       ttgir
// so each kernel's first group is its earliest change, the root cause.
#include "report/groups.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include "ksnap/diff/hunks.h"

namespace ksnap::report {

namespace {

size_t stage_index(const std::vector<std::string>& stages, const std::string& s) {
  return static_cast<size_t>(std::find(stages.begin(), stages.end(), s) - stages.begin());
}

/// Op deltas by |delta| (largest first), then name.
std::vector<std::pair<std::string, int64_t>> ranked_ops(const std::map<std::string, int64_t>& d) {
  std::vector<std::pair<std::string, int64_t>> v(d.begin(), d.end());
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    return std::llabs(a.second) > std::llabs(b.second);
  });
  return v;
}

/// Fills the parts of a group that come from its representative and members.
void describe(const diff::DiffResult& r, GroupView* g) {
  const diff::VariantDiff& rep = r.variants[g->variants.front()];
  const diff::StageDiff* s = rep.stage(g->stage);
  g->weight = 0;
  size_t fell_back = 0;
  std::string first_reason;
  for (size_t vi : g->variants) {
    const diff::StageDiff* m = r.variants[vi].stage(g->stage);
    if (!m) continue;
    g->weight += m->lines_added + m->lines_removed;
    if (!m->fallback.empty()) {
      if (!fell_back++) first_reason = m->fallback;
    }
  }
  if (fell_back == 1 && g->variants.size() == 1) g->fallback = first_reason;
  else if (fell_back)
    g->fallback = std::to_string(fell_back) + " of " + std::to_string(g->variants.size()) +
                  " variants: " + first_reason;
  if (!s) return;
  g->lines_added = s->lines_added;
  g->lines_removed = s->lines_removed;
  g->ops = ranked_ops(s->op_deltas);
  for (const auto& [k, p] : s->resources)
    if (p.first != p.second) g->figures.push_back({g->variants.front(), g->stage, k, p.first, p.second});
  g->binary = s->binary;
  g->bytes = s->bytes;
  std::set<int32_t> pb, ph;
  for (const auto& h : s->hunks) {
    pb.insert(h.py_lines_base.begin(), h.py_lines_base.end());
    ph.insert(h.py_lines_head.begin(), h.py_lines_head.end());
    g->lines_total += h.lines.size();
  }
  const auto& py = ph.empty() ? pb : ph;
  g->py_lines.assign(py.begin(), py.end());
}

}  // namespace

void build_groups(const diff::DiffResult& r, Report* rep) {
  // Split each engine group by kernel label (two kernels may share a name)
  // and by the unstable flag (nondeterminism is shown apart).
  std::map<std::tuple<size_t, std::string, bool>, size_t> index;
  std::vector<GroupView> groups;
  for (size_t gi = 0; gi < r.groups.size(); ++gi) {
    const diff::ChangeGroup& eg = r.groups[gi];
    for (size_t vi : eg.variants) {
      const diff::StageDiff* s = r.variants[vi].stage(eg.stage);
      bool unstable = s && s->unstable;
      auto key = std::make_tuple(gi, rep->variant_kernels[vi], unstable);
      auto [it, fresh] = index.emplace(key, groups.size());
      if (fresh) {
        GroupView g;
        g.engine_group = gi;
        g.kernel = rep->variant_kernels[vi];
        g.name = r.variants[vi].key.kernel;
        g.source = r.variants[vi].source;
        g.stage = eg.stage;
        g.signature = eg.signature;
        g.unstable = unstable;
        groups.push_back(std::move(g));
      }
      groups[it->second].variants.push_back(vi);
    }
  }
  for (GroupView& g : groups) {
    describe(r, &g);
    g.variants_listed = std::min(g.variants.size(), rep->options.max_variants_listed);
  }

  // Kernel sections of the real changes, with variants on one side only.
  std::map<std::string, size_t> by_kernel;
  auto section = [&](size_t vi) -> KernelSection& {
    const std::string& label = rep->variant_kernels[vi];
    auto [it, fresh] = by_kernel.emplace(label, rep->kernels.size());
    if (fresh) {
      KernelSection k;
      k.kernel = label;
      k.name = r.variants[vi].key.kernel;
      k.source = r.variants[vi].source;
      rep->kernels.push_back(std::move(k));
    }
    return rep->kernels[it->second];
  };
  for (size_t vi = 0; vi < r.variants.size(); ++vi) {
    const diff::VariantDiff& v = r.variants[vi];
    bool real = v.pairing == diff::Pairing::kAdded || v.pairing == diff::Pairing::kRemoved;
    for (const auto& s : v.stages) real |= s.status != diff::ChangeStatus::kUnchanged && !s.unstable;
    if (!real) continue;
    KernelSection& k = section(vi);
    ++k.changed_variants;
    if (v.pairing == diff::Pairing::kAdded) k.added.push_back(vi);
    if (v.pairing == diff::Pairing::kRemoved) k.removed.push_back(vi);
  }
  for (size_t vi = 0; vi < r.variants.size(); ++vi) {
    auto it = by_kernel.find(rep->variant_kernels[vi]);
    if (it != by_kernel.end()) ++rep->kernels[it->second].variants;
  }
  for (const GroupView& g : groups) {
    if (g.unstable) continue;
    KernelSection& k = rep->kernels[by_kernel.at(g.kernel)];
    k.changed_stages += g.variants.size();
    k.lines += g.weight;
  }
  const Order order = rep->options.order;
  std::stable_sort(rep->kernels.begin(), rep->kernels.end(),
                   [order](const KernelSection& a, const KernelSection& b) {
                     if (order != Order::kKernel) {
                       if (a.changed_stages != b.changed_stages)
                         return a.changed_stages > b.changed_stages;
                       if (a.lines != b.lines) return a.lines > b.lines;
                       size_t na = a.added.size() + a.removed.size();
                       size_t nb = b.added.size() + b.removed.size();
                       if (na != nb) return na > nb;
                     }
                     return a.kernel < b.kernel;
                   });
  std::map<std::string, size_t> kernel_rank;
  for (size_t k = 0; k < rep->kernels.size(); ++k) kernel_rank[rep->kernels[k].kernel] = k;

  // Reading order.
  const auto& stages = rep->stages;
  std::vector<size_t> ord(groups.size());
  for (size_t i = 0; i < ord.size(); ++i) ord[i] = i;
  auto by_size = [&](size_t a, size_t b) {
    if (groups[a].weight != groups[b].weight) return groups[a].weight > groups[b].weight;
    return groups[a].engine_group < groups[b].engine_group;
  };
  std::stable_sort(ord.begin(), ord.end(), [&](size_t a, size_t b) {
    const GroupView& x = groups[a];
    const GroupView& y = groups[b];
    if (x.unstable != y.unstable) return !x.unstable;
    if (order != Order::kSize) {
      auto rx = kernel_rank.count(x.kernel) ? kernel_rank[x.kernel] : kernel_rank.size();
      auto ry = kernel_rank.count(y.kernel) ? kernel_rank[y.kernel] : kernel_rank.size();
      if (rx != ry) return rx < ry;
      if (x.kernel != y.kernel) return x.kernel < y.kernel;  // unstable-only kernels
      size_t sx = stage_index(stages, x.stage), sy = stage_index(stages, y.stage);
      if (sx != sy) return sx < sy;
    }
    return by_size(a, b);
  });
  std::vector<int32_t> new_index(groups.size());
  rep->groups.clear();
  rep->groups.reserve(groups.size());
  for (size_t k = 0; k < ord.size(); ++k) {
    new_index[ord[k]] = static_cast<int32_t>(k);
    rep->groups.push_back(std::move(groups[ord[k]]));
  }
  // Root cause: per kernel, the real groups of its earliest changed stage.
  std::map<std::string, size_t> earliest;
  for (const GroupView& g : rep->groups) {
    if (g.unstable) continue;
    size_t s = stage_index(stages, g.stage);
    auto [it, fresh] = earliest.emplace(g.kernel, s);
    if (!fresh) it->second = std::min(it->second, s);
  }
  for (size_t k = 0; k < rep->groups.size(); ++k) {
    GroupView& g = rep->groups[k];
    if (g.unstable) continue;
    g.root_cause = stage_index(stages, g.stage) == earliest[g.kernel];
    rep->kernels[kernel_rank.at(g.kernel)].groups.push_back(k);
  }

  // Per (variant, stage): its report group.
  rep->stage_groups.assign(r.variants.size(), {});
  for (size_t vi = 0; vi < r.variants.size(); ++vi)
    rep->stage_groups[vi].assign(r.variants[vi].stages.size(), -1);
  for (size_t k = 0; k < rep->groups.size(); ++k)
    for (size_t vi : rep->groups[k].variants) {
      const auto& st = r.variants[vi].stages;
      for (size_t j = 0; j < st.size(); ++j)
        if (st[j].stage == rep->groups[k].stage) rep->stage_groups[vi][j] = static_cast<int32_t>(k);
    }
}

void select_hunks(const diff::DiffResult& r, Report* rep) {
  const ReportOptions& o = rep->options;
  rep->groups_shown = 0;
  for (GroupView& g : rep->groups) {
    if (rep->groups_shown >= o.max_groups) continue;
    ++rep->groups_shown;
    g.shown = true;
    if (!o.show_diffs) continue;
    const diff::StageDiff* s = r.variants[g.variants.front()].stage(g.stage);
    if (!s) continue;
    HunkCut cut = cut_hunks(*s, o.context, o.max_lines_per_group);
    g.hunks = std::move(cut.hunks);
    g.lines_total = cut.lines_total;
    g.lines_cut = cut.lines_cut;
    g.recut = std::move(cut.recut);
  }
}

HunkCut cut_hunks(const diff::StageDiff& s, size_t context, size_t max_lines) {
  HunkCut out;
  std::vector<const diff::Hunk*> hunks;
  if (context != kUnlimited) {
    // A hunk that already has no more context than asked is shown as the
    // diff kept it (no copy); others are re-cut into `recut`. Pointers are
    // taken once `recut` stops growing: kept ones as they are, re-cut ones
    // by index (SIZE_MAX marks "the next re-cut hunk").
    const uint32_t c = static_cast<uint32_t>(std::min<size_t>(context, UINT32_MAX));
    std::vector<diff::Hunk> recut;
    std::vector<diff::LineKind> kinds;
    for (const diff::Hunk& h : s.hunks) {
      kinds.clear();
      for (const diff::DiffLine& l : h.lines) kinds.push_back(l.kind);
      std::vector<diff::HunkRange> ranges = diff::hunk_ranges(kinds, c);
      if (ranges.size() == 1 && ranges[0].begin == 0 && ranges[0].end == h.lines.size()) {
        hunks.push_back(&h);
        continue;
      }
      for (diff::Hunk& part : diff::recut_hunk(h, c)) {
        recut.push_back(std::move(part));
        hunks.push_back(nullptr);
      }
    }
    if (!recut.empty()) {
      out.recut = std::make_shared<std::vector<diff::Hunk>>(std::move(recut));
      size_t next = 0;
      for (const diff::Hunk*& h : hunks)
        if (!h) h = &(*out.recut)[next++];
    }
  } else {
    for (const diff::Hunk& h : s.hunks) hunks.push_back(&h);
  }
  size_t budget = max_lines;
  for (const diff::Hunk* h : hunks) {
    out.lines_total += h->lines.size();
    size_t take = std::min(budget, h->lines.size());
    if (take) out.hunks.push_back({h, take});
    budget -= take;
  }
  size_t shown = 0;
  for (const HunkView& hv : out.hunks) shown += hv.lines;
  out.lines_cut = out.lines_total - shown;
  return out;
}

}  // namespace ksnap::report

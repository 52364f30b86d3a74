// build_report: the report model of one diff result; see
// include/ksnap/report/report.h for the worked example.
#include "ksnap/report/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "ksnap/build/build.h"
#include "ksnap/capture/variant_key.h"
#include "report/deltas.h"
#include "report/groups.h"
#include "report/statistics.h"

namespace ksnap::report {

const char* order_name(Order o) {
  switch (o) {
    case Order::kPipeline:
      return "pipeline";
    case Order::kSize:
      return "size";
    case Order::kKernel:
      return "kernel";
  }
  return "?";
}

bool parse_order(std::string_view s, Order* out) {
  for (Order o : {Order::kPipeline, Order::kSize, Order::kKernel})
    if (s == order_name(o)) {
      *out = o;
      return true;
    }
  return false;
}

const char* note_kind_name(NoteKind k) {
  switch (k) {
    case NoteKind::kWarning:
      return "warning";
    case NoteKind::kFallback:
      return "fallback";
    case NoteKind::kUnstable:
      return "unstable";
    case NoteKind::kNames:
      return "names";
    case NoteKind::kSource:
      return "source";
  }
  return "?";
}

std::string signed_text(int64_t v) {
  std::string s = std::to_string(v);
  if (v > 0) s.insert(s.begin(), '+');  // not "+" + s: GCC 12 warns falsely (-Wrestrict)
  return s;
}

std::string percent_text(const Statistic& s) {
  std::optional<double> p = s.percent();
  if (!p) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.2f%%", *p);
  return buf;
}

std::string variant_label(const diff::VariantDiff& v) {
  return v.key.label();
}

std::string variant_title(const Report& r, size_t variant) {
  const std::string& label = r.variant_labels[variant];
  return label.empty() ? r.variant_kernels[variant] : r.variant_kernels[variant] + " " + label;
}

const std::string& shown_text(const diff::DiffLine& l, bool head_names) {
  return head_names && !l.head_text.empty() ? l.head_text : l.text;
}

const std::vector<diff::Span>& shown_highlights(const diff::DiffLine& l, bool head_names) {
  return head_names && !l.head_text.empty() ? l.head_highlights : l.highlights;
}

bool Report::any_change() const {
  return totals.changed_stages > 0 || totals.added > 0 || totals.removed > 0;
}

namespace {

/// Stage names in pipeline order: the summary's, then any other a variant has.
std::vector<std::string> stage_order(const diff::DiffResult& r) {
  std::vector<std::string> out;
  for (const auto& s : r.summary) out.push_back(s.stage);
  for (const auto& v : r.variants)
    for (const auto& s : v.stages)
      if (std::find(out.begin(), out.end(), s.stage) == out.end()) out.push_back(s.stage);
  return out;
}

/// Kernel labels: VariantDiff::name() (the identity layer adds a source tail
/// where two kernels of the result share a name). Adds a note per shared name.
void kernel_labels(const diff::DiffResult& r, Report* rep) {
  std::map<std::string, std::set<std::string>> labels;
  rep->variant_kernels.clear();
  for (const auto& v : r.variants) {
    rep->variant_kernels.push_back(v.name());
    labels[v.key.kernel].insert(v.name());
  }
  for (const auto& [name, shown] : labels) {
    if (shown.size() < 2) continue;
    std::string text = std::to_string(shown.size()) + " kernels are named " + name +
                       ", defined in different places; shown as ";
    size_t k = 0;
    for (const auto& l : shown) text += (k++ ? ", " : "") + l;
    rep->notes.push_back({NoteKind::kSource, text});
  }
}

void count_totals(const diff::DiffResult& r, Report* rep) {
  Totals& t = rep->totals;
  std::set<std::string> kernels, changed;
  for (size_t vi = 0; vi < r.variants.size(); ++vi) {
    const auto& v = r.variants[vi];
    ++t.variants;
    kernels.insert(rep->variant_kernels[vi]);
    bool real = false;
    if (v.pairing == diff::Pairing::kAdded) ++t.added, real = true;
    if (v.pairing == diff::Pairing::kRemoved) ++t.removed, real = true;
    if (v.pairing == diff::Pairing::kNotRebuilt) ++t.not_rebuilt;
    for (const auto& s : v.stages) {
      ++t.stages;
      if (s.status == diff::ChangeStatus::kUnchanged) continue;
      if (s.unstable) {
        ++t.unstable_stages;
      } else {
        ++t.changed_stages;
        real = true;
      }
    }
    if (real) {
      ++t.changed_variants;
      changed.insert(rep->variant_kernels[vi]);
    }
  }
  t.kernels = kernels.size();
  t.kernels_changed = changed.size();
  for (const auto& g : rep->groups) (g.unstable ? t.unstable_groups : t.groups) += 1;
}

std::string plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string headline_text(const Totals& t) {
  std::string s;
  if (t.changed_stages == 0 && t.added == 0 && t.removed == 0) {
    s = "No IR changed: " + std::to_string(t.stages) + " kernel-stages of " +
        plural(t.variants, "variant", "variants") + " are identical after normalization.";
  } else {
    s = std::to_string(t.changed_stages) + " of " + std::to_string(t.stages) +
        " kernel-stages changed, in " + std::to_string(t.changed_variants) + " of " +
        std::to_string(t.variants) + " variants of " +
        plural(t.kernels_changed, "kernel", "kernels");
    if (t.added || t.removed)
      s += " (" + plural(t.added, "variant", "variants") + " added, " + std::to_string(t.removed) +
           " removed)";
    s += "; " + plural(t.groups, "distinct change", "distinct changes") + ".";
  }
  if (t.not_rebuilt)
    s += " " + plural(t.not_rebuilt, "variant was", "variants were") +
         " not rebuilt by HEAD's recompile, so not compared (see notes).";
  if (t.unstable_stages)
    s += " " + plural(t.unstable_stages, "kernel-stage is", "kernel-stages are") +
         " known unstable (compiler nondeterminism), not changes of this build.";
  return s;
}

void collapse_option_changes(const diff::DiffResult& r, Report* rep) {
  std::map<std::tuple<std::string, std::string, std::string>, size_t> index;
  for (size_t vi = 0; vi < r.variants.size(); ++vi)
    for (const auto& c : r.variants[vi].option_changes) {
      auto [it, fresh] =
          index.emplace(std::make_tuple(c.name, c.base, c.head), rep->option_changes.size());
      if (fresh) rep->option_changes.push_back({c.name, c.base, c.head, {}, {}});
      OptionChangeLine& line = rep->option_changes[it->second];
      line.variants.push_back(vi);
      const std::string& k = rep->variant_kernels[vi];
      if (std::find(line.kernels.begin(), line.kernels.end(), k) == line.kernels.end())
        line.kernels.push_back(k);
    }
  for (auto& l : rep->option_changes) std::sort(l.kernels.begin(), l.kernels.end());
  std::stable_sort(rep->option_changes.begin(), rep->option_changes.end(),
                   [](const OptionChangeLine& a, const OptionChangeLine& b) {
                     if (a.variants.size() != b.variants.size())
                       return a.variants.size() > b.variants.size();
                     return a.name < b.name;
                   });
}

/// Figures of every variant that differ (binary figures and IR figures per
/// stage), ranked by relative change, then by size.
void rank_figures(const diff::DiffResult& r, Report* rep) {
  std::vector<FigureChange> rows;
  auto collect = [&rows](size_t vi, const std::string& from,
                         const std::map<std::string, diff::FigurePair>& figs) {
    for (const auto& [k, p] : figs)
      if (p.first >= 0 && p.second >= 0 && p.first != p.second)
        rows.push_back({vi, from, k, p.first, p.second});
  };
  for (size_t vi = 0; vi < r.variants.size(); ++vi) {
    collect(vi, "binary", r.variants[vi].resources);
    for (const auto& s : r.variants[vi].stages)
      if (!s.unstable) collect(vi, s.stage, s.resources);
  }
  std::stable_sort(rows.begin(), rows.end(), larger_change_first);
  rep->figure_changes_total = rows.size();
  if (rows.size() > rep->options.max_figure_rows) rows.resize(rep->options.max_figure_rows);
  rep->figure_changes = std::move(rows);
}

}  // namespace

bool larger_change_first(const FigureChange& a, const FigureChange& b) {
  auto rel = [](const FigureChange& f) {
    return static_cast<double>(std::llabs(f.head - f.base)) /
           static_cast<double>(std::max<int64_t>(std::llabs(f.base), 1));
  };
  double ra = rel(a), rb = rel(b);
  if (ra != rb) return ra > rb;
  return std::llabs(a.head - a.base) > std::llabs(b.head - b.base);
}

namespace {

void stage_notes(const diff::DiffResult& r, Report* rep) {
  // A variant HEAD's recompile could not rebuild: its reason, never "removed".
  size_t not_rebuilt = 0;
  for (size_t vi = 0; vi < r.variants.size(); ++vi) {
    const auto& v = r.variants[vi];
    if (v.pairing != diff::Pairing::kNotRebuilt) continue;
    if (not_rebuilt++ < rep->options.max_notes)
      rep->notes.push_back(
          {NoteKind::kWarning,
           "not rebuilt by HEAD's recompile, not compared: " + rep->variant_kernels[vi] + " " +
               rep->variant_labels[vi] + ": " + v.not_rebuilt});
  }
  if (not_rebuilt > rep->options.max_notes)
    rep->notes.push_back(
        {NoteKind::kWarning, "… and " + std::to_string(not_rebuilt - rep->options.max_notes) +
                                 " more variants not rebuilt (recompile.json lists them all)"});
  size_t fallbacks = 0;
  for (size_t vi = 0; vi < r.variants.size(); ++vi)
    for (const auto& s : r.variants[vi].stages) {
      if (s.fallback.empty()) continue;
      if (fallbacks++ < rep->options.max_notes)
        rep->notes.push_back({NoteKind::kFallback, rep->variant_kernels[vi] + " " +
                                                       rep->variant_labels[vi] + " " + s.stage +
                                                       ": " + s.fallback});
    }
  if (fallbacks > rep->options.max_notes)
    rep->notes.push_back(
        {NoteKind::kFallback, "… and " + std::to_string(fallbacks - rep->options.max_notes) +
                                  " more kernel-stages without a structural diff"});
  if (rep->totals.unstable_stages)
    rep->notes.push_back(
        {NoteKind::kUnstable,
         plural(rep->totals.unstable_stages, "kernel-stage is", "kernel-stages are") +
             " unstable (the same build compiled twice gave different text): listed after the "
             "real changes and not counted as changes"});
  // Spelling HEAD lines by BASE's names is the default and is explained in
  // `ksnap diff --help` (--head-names); a note only where a reader could
  // misread a line: an h_ mark shown, or HEAD's own names asked for.
  bool renamed = false, marked = false;
  auto count_marks = [](const std::string& s) {
    size_t n = 0;
    for (size_t at = s.find("h_"); at != std::string::npos; at = s.find("h_", at + 2)) ++n;
    return n;
  };
  for (const GroupView& g : rep->groups)
    for (const HunkView& hv : g.hunks)
      for (size_t i = 0; i < hv.lines && !marked; ++i) {
        const diff::DiffLine& l = hv.hunk->lines[i];
        if (l.head_text.empty()) continue;
        renamed = true;
        marked = count_marks(l.text) > count_marks(l.head_text);
      }
  if (rep->options.head_names && renamed) {
    rep->notes.push_back(
        {NoteKind::kNames,
         "HEAD lines show HEAD's own names (--head-names); context lines are HEAD's text"});
  } else if (marked) {
    rep->notes.push_back({NoteKind::kNames,
                          "an h_ prefix marks a HEAD-only name that BASE uses for another "
                          "symbol (HEAD lines spell values and blocks by their BASE names; "
                          "--head-names shows HEAD's own)"});
  }
}

/// Most serious first: real regressions, then unexplained slowdowns, noise, ...
int severity(perf::VerdictKind k) {
  switch (k) {
    case perf::VerdictKind::kLikelyReal:
      return 0;
    case perf::VerdictKind::kSlowerIrUnknown:
      return 1;
    case perf::VerdictKind::kLikelyNoise:
      return 2;
    case perf::VerdictKind::kFaster:
      return 3;
    case perf::VerdictKind::kIrChangedNoPerfChange:
      return 4;
    case perf::VerdictKind::kInsufficientData:
      return 5;
    case perf::VerdictKind::kNoChange:
      return 6;
  }
  return 7;
}

}  // namespace

Report build_report(const diff::DiffResult& r, const perf::VerdictReport* verdicts,
                    const ReportOptions& o) {
  Report rep;
  rep.result = &r;
  rep.options = o;
  rep.stages = stage_order(r);
  for (const auto& w : r.warnings) rep.notes.push_back({NoteKind::kWarning, w});
  kernel_labels(r, &rep);
  for (const auto& v : r.variants) rep.variant_labels.push_back(variant_label(v));
  build_groups(r, &rep);
  select_hunks(r, &rep);
  count_totals(r, &rep);
  rep.headline = headline_text(rep.totals);
  rep.statistics = compute_statistics(r, rep.stages);
  collapse_option_changes(r, &rep);
  rank_figures(r, &rep);
  for (size_t vi = 0; vi < r.variants.size(); ++vi) {
    auto p = r.variants[vi].pairing;
    auto* list = p == diff::Pairing::kAdded     ? &rep.added
                 : p == diff::Pairing::kRemoved ? &rep.removed
                                                : nullptr;
    if (list && list->size() < o.max_list_rows) list->push_back(vi);
  }
  stage_notes(r, &rep);
  add_resource_deltas(r, &rep);
  add_first_changed(r, &rep);
  if (verdicts) {
    rep.verdicts = *verdicts;
    for (size_t i = 0; i < verdicts->points.size(); ++i) rep.verdict_order.push_back(i);
    std::stable_sort(rep.verdict_order.begin(), rep.verdict_order.end(), [&](size_t a, size_t b) {
      return severity(verdicts->points[a].kind) < severity(verdicts->points[b].kind);
    });
  }
  return rep;
}

}  // namespace ksnap::report

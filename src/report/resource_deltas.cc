// Resource deltas: for each figure a reviewer weighs, the paired variants
// whose value moved, counted the fossil-db way (affected N of M, hurt and
// helped, sums before and after).
//
// Worked example: HEAD recompiled under a new LLVM; 3 of 19 variants start
// spilling, one spills more, two use fewer registers:
//   resource_headline  "4 variants spill more (3 now spill); 2 use fewer registers"
//   resource_deltas    [spills: hurt 4 (started 3), helped 0, 4 of 19, 5 → 92]
//                      [registers: hurt 0, helped 2, 2 of 19, 510 → 480]
#include <algorithm>

#include "ksnap/support/figures.h"
#include "report/deltas.h"

namespace ksnap::report {
namespace {

struct FigureSpec {
  const char* figure;
  const char* title;
  bool higher_is_better;
  /// Verb phrases after "N variant(s)": {plural, singular}.
  const char* hurt[2];
  const char* helped[2];
  const char* started[2];  ///< Hurt from 0 (nullptr: not said apart).
  const char* stopped[2];  ///< Helped to 0.
};

// Reading order: what costs most first.
constexpr FigureSpec kSpecs[] = {
    {"n_spills", "spills", false, {"spill more", "spills more"}, {"spill less", "spills less"},
     {"now spill", "now spills"}, {"no longer spill", "no longer spills"}},
    {"vgpr_spills", "VGPR spills", false, {"spill more VGPRs", "spills more VGPRs"},
     {"spill fewer VGPRs", "spills fewer VGPRs"}, {"now spill VGPRs", "now spills VGPRs"},
     {"no longer spill VGPRs", "no longer spills VGPRs"}},
    {"sgpr_spills", "SGPR spills", false, {"spill more SGPRs", "spills more SGPRs"},
     {"spill fewer SGPRs", "spills fewer SGPRs"}, {"now spill SGPRs", "now spills SGPRs"},
     {"no longer spill SGPRs", "no longer spills SGPRs"}},
    {"scratch_bytes", "scratch", false, {"use more scratch", "uses more scratch"},
     {"use less scratch", "uses less scratch"}, {"now use scratch", "now uses scratch"},
     {"no longer use scratch", "no longer uses scratch"}},
    {"occupancy", "occupancy", true, {"lose occupancy", "loses occupancy"},
     {"gain occupancy", "gains occupancy"}, {nullptr, nullptr}, {nullptr, nullptr}},
    {"n_regs", "registers", false, {"use more registers", "uses more registers"},
     {"use fewer registers", "uses fewer registers"}, {nullptr, nullptr}, {nullptr, nullptr}},
    {"sgprs", "SGPRs", false, {"use more SGPRs", "uses more SGPRs"},
     {"use fewer SGPRs", "uses fewer SGPRs"}, {nullptr, nullptr}, {nullptr, nullptr}},
    {"agprs", "AGPRs", false, {"use more AGPRs", "uses more AGPRs"},
     {"use fewer AGPRs", "uses fewer AGPRs"}, {nullptr, nullptr}, {nullptr, nullptr}},
    {"shared", "shared memory", false, {"use more shared memory", "uses more shared memory"},
     {"use less shared memory", "uses less shared memory"}, {nullptr, nullptr},
     {nullptr, nullptr}},
    {"lds_bytes", "LDS", false, {"use more LDS", "uses more LDS"},
     {"use less LDS", "uses less LDS"}, {nullptr, nullptr}, {nullptr, nullptr}},
};

bool paired(const diff::VariantDiff& v) { return v.base_index >= 0 && v.head_index >= 0; }

std::string count_phrase(size_t n, const char* const verb[2]) {
  return std::to_string(n) + (n == 1 ? " variant " : " variants ") + verb[n == 1 ? 1 : 0];
}

/// "-0.52%" / "+725.00%" / "" (no base).
std::string percent(int64_t base, int64_t head) {
  if (base == 0) return "";
  Statistic s;
  s.base = base;
  s.head = head;
  return percent_text(s);
}

/// Hurt, then helped: "3 variants now spill, 1 spills more" (bare counts
/// after the first phrase keep it short: "2 spill less").
std::string phrases(const ResourceDelta& d, const FigureSpec& spec) {
  std::vector<std::string> parts;
  if (spec.started[0] && d.started) parts.push_back(count_phrase(d.started, spec.started));
  if (size_t more = d.hurt - (spec.started[0] ? d.started : 0))
    parts.push_back(count_phrase(more, spec.hurt));
  if (spec.stopped[0] && d.stopped) parts.push_back(count_phrase(d.stopped, spec.stopped));
  if (size_t less = d.helped - (spec.stopped[0] ? d.stopped : 0))
    parts.push_back(count_phrase(less, spec.helped));
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out;
}

}  // namespace

void add_resource_deltas(const diff::DiffResult& r, Report* rep) {
  std::vector<std::string> lead;
  for (const FigureSpec& spec : kSpecs) {
    ResourceDelta d;
    d.figure = spec.figure;
    d.title = spec.title;
    d.higher_is_better = spec.higher_is_better;
    std::vector<FigureChange> hurt, helped;
    for (size_t vi = 0; vi < r.variants.size(); ++vi) {
      const diff::VariantDiff& v = r.variants[vi];
      if (!paired(v)) continue;
      auto it = v.resources.find(spec.figure);
      if (it == v.resources.end()) continue;
      auto [b, h] = it->second;
      if (b < 0 || h < 0) continue;
      ++d.total;
      if (b == h) continue;
      if (d.unit.empty() && d.figure == "occupancy") d.unit = v.occupancy_unit;
      d.base = saturating_add(d.base, b);
      d.head = saturating_add(d.head, h);
      bool worse = spec.higher_is_better ? h < b : h > b;
      (worse ? hurt : helped).push_back({vi, "binary", spec.figure, b, h});
      if (worse) {
        ++d.hurt;
        d.started += b == 0;
      } else {
        ++d.helped;
        d.stopped += h == 0;
      }
    }
    if (!d.hurt && !d.helped) continue;
    std::stable_sort(hurt.begin(), hurt.end(), larger_change_first);
    std::stable_sort(helped.begin(), helped.end(), larger_change_first);
    d.rows = std::move(hurt);
    d.rows.insert(d.rows.end(), helped.begin(), helped.end());
    d.rows_total = d.rows.size();
    if (d.rows.size() > rep->options.max_figure_rows) d.rows.resize(rep->options.max_figure_rows);
    const std::string said = phrases(d, spec);
    std::string pct = percent(d.base, d.head);
    d.text = said + " (" + std::to_string(d.hurt + d.helped) + " of " + std::to_string(d.total) +
             " variants; " + d.title + (d.unit.empty() ? "" : " in " + d.unit) + " " +
             std::to_string(d.base) + " → " + std::to_string(d.head) + " in total" +
             (pct.empty() ? "" : ", " + pct) + ")";
    // The lead names what got worse; a figure that only improved is named
    // when nothing got worse.
    if (d.hurt) {
      ResourceDelta only_hurt = d;
      only_hurt.helped = only_hurt.stopped = 0;
      lead.push_back(phrases(only_hurt, spec));
    }
    rep->resource_deltas.push_back(std::move(d));
  }
  if (lead.empty())
    for (const ResourceDelta& d : rep->resource_deltas)
      for (const FigureSpec& spec : kSpecs)
        if (d.figure == spec.figure) lead.push_back(phrases(d, spec));
  for (size_t i = 0; i < lead.size(); ++i) rep->resource_headline += (i ? "; " : "") + lead[i];

  size_t errors = 0;
  for (size_t vi = 0; vi < r.variants.size(); ++vi) {
    const diff::VariantDiff& v = r.variants[vi];
    if (v.resource_error.empty()) continue;
    if (errors++ < rep->options.max_notes)
      rep->notes.push_back({NoteKind::kFallback, "resource figures of " +
                                                     variant_title(*rep, vi) +
                                                     " not read from its binary: " +
                                                     v.resource_error});
  }
  if (errors > rep->options.max_notes)
    rep->notes.push_back({NoteKind::kFallback,
                          std::to_string(errors - rep->options.max_notes) +
                              " more variants whose binary figures could not be read"});
}

}  // namespace ksnap::report

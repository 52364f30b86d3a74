// Terminal writer: headline, statistics, collapsed option changes, the
// per-stage table, ranked figure changes, verdicts, variants on one side only,
// then each kernel's change groups with their hunks, and what was cut.
//
// Every piece of data (kernel names, labels, IR text, notes) passes through
// escape_control: a control character in a capture is shown as `\x1b`, never
// sent to the terminal; the only escape sequences written are ksnap's colors.
//
// Worked example (base..fusion_off, no color), the first lines:
//   ksnap diff base → fusion_off
//   11 of 76 kernel-stages changed, in 11 of 19 variants of 4 kernels; 11 distinct changes.
//
//   Statistics: sums over the affected variants (helped = went down)
//     stage   statistic     affected  helped  hurt   BASE   HEAD   change
//     binary  n_regs        11 of 19       3     0   2303   2291   -0.52%
//   ...
//   Option changes
//     enable_fp_fusion: true → false — 19 variants of 5 kernels (add_kernel, …)
#include <algorithm>
#include <cstdio>

#include "ksnap/render/render.h"
#include "ksnap/support/text.h"
#include "render/palette.h"
#include "render/text_blocks.h"

namespace ksnap::render {

namespace {

std::string esc(const std::string& s) { return escape_control(s); }

/// A fixed-width table: columns after the first two are right-aligned.
std::string table_text(const std::vector<std::vector<std::string>>& rows, size_t left_cols) {
  std::vector<size_t> w;
  for (const auto& r : rows)
    for (size_t c = 0; c < r.size(); ++c) {
      if (w.size() <= c) w.push_back(0);
      w[c] = std::max(w[c], display_width(r[c]));
    }
  std::string out;
  for (const auto& r : rows) {
    std::string line = "  ";
    for (size_t c = 0; c < r.size(); ++c) {
      std::string pad(w[c] - display_width(r[c]), ' ');
      line += c < left_cols ? r[c] + pad : pad + r[c];
      if (c + 1 < r.size()) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

void section(std::string* out, const Palette& p, const std::string& title) {
  *out += "\n";
  *out += p.bold;
  *out += title;
  *out += p.reset;
  *out += "\n";
}

void write_group(std::string* out, const report::Report& r, const report::GroupView& g,
                 const Palette& p) {
  *out += "\n";
  *out += p.bold;
  *out += "── " + esc(group_title(g)) + " ──";
  *out += p.reset;
  *out += "\n";
  for (size_t k = 0; k < g.variants_listed; ++k)
    if (!r.variant_labels[g.variants[k]].empty())
      *out += "    " + esc(r.variant_labels[g.variants[k]]) + "\n";
  if (g.variants.size() > g.variants_listed)
    *out += "    … and " + std::to_string(g.variants.size() - g.variants_listed) + " more\n";
  if (!g.fallback.empty())
    *out += std::string(p.yellow) + "  fallback: " + esc(g.fallback) + p.reset + "\n";
  if (!g.ops.empty()) *out += "  ops: " + esc(ops_text(g.ops)) + "\n";
  if (!g.figures.empty()) {
    *out += "  ir figures: ";
    for (size_t i = 0; i < g.figures.size(); ++i)
      *out += (i ? ", " : "") + esc(figure_text(r, g.figures[i], false));
    *out += "\n";
  }
  if (!g.py_lines.empty()) *out += "  python lines: " + py_lines_text(g.py_lines) + "\n";
  for (const report::HunkView& hv : g.hunks) {
    *out += p.cyan;
    *out += esc(hunk_header(*hv.hunk));
    *out += p.reset;
    *out += "\n";
    for (size_t i = 0; i < hv.lines; ++i) append_diff_line(out, hv.hunk->lines[i], r.options.head_names, p);
  }
  if (g.lines_cut)
    *out += std::string(p.dim) + "  … " + std::to_string(g.lines_cut) + " more lines" + p.reset + "\n";
}

}  // namespace

std::string render_terminal(const report::Report& r, const WriteOptions& w) {
  const Palette p = palette(w.color);
  const diff::DiffResult& res = *r.result;
  std::string out;
  out += p.bold;
  out += "ksnap diff " + esc(res.base_name) + " → " + esc(res.head_name);
  out += p.reset;
  out += "\n" + r.headline + "\n";
  if (!r.resource_headline.empty()) {
    out += std::string(p.bold) + "Resources: " + p.reset + r.resource_headline + "\n";
    for (const auto& l : resource_lines(r, 5)) out += "  " + esc(l) + "\n";
  }
  if (!r.layers_text.empty()) out += "Where: " + r.layers_text + "\n";
  for (const auto& n : r.notes)
    out += std::string(p.yellow) + "note: " + esc(n.text) + p.reset + "\n";

  std::vector<StatCells> stats = statistics_rows(r);
  if (!stats.empty()) {
    section(&out, p, "Statistics: sums over the affected variants (helped = went down)");
    std::vector<std::vector<std::string>> rows{{std::begin(kStatColumns), std::end(kStatColumns)}};
    for (auto& c : stats) {
      rows.emplace_back();
      for (const auto& cell : c) rows.back().push_back(esc(cell));  // figure names come from captures
    }
    out += table_text(rows, 2);
  }
  if (!r.option_changes.empty()) {
    section(&out, p, "Option changes");
    for (const auto& l : r.option_changes) out += "  " + esc(option_line_text(l)) + "\n";
  }
  section(&out, p, "Stages");
  std::vector<std::vector<std::string>> stage_rows{{"stage", "unchanged", "changed", "added", "removed"}};
  if (r.totals.unstable_stages) stage_rows[0].push_back("unstable");
  for (const auto& s : res.summary) {
    stage_rows.push_back({esc(s.stage), std::to_string(s.unchanged), std::to_string(s.changed),
                          std::to_string(s.added), std::to_string(s.removed)});
    if (r.totals.unstable_stages) stage_rows.back().push_back(std::to_string(s.unstable));
  }
  out += table_text(stage_rows, 1);
  if (!r.figure_changes.empty()) {
    section(&out, p, "Figure changes (largest relative change first)");
    for (const auto& f : r.figure_changes) out += "  " + esc(figure_text(r, f, true)) + "\n";
    if (r.figure_changes_total > r.figure_changes.size())
      out += "  … " + std::to_string(r.figure_changes_total - r.figure_changes.size()) + " more\n";
  }
  if (r.verdicts) {
    section(&out, p, "Benchmark verdicts (" + verdict_counts_text(*r.verdicts) + ")");
    size_t n = std::min<size_t>(r.verdict_order.size(), 40);
    for (size_t i = 0; i < n; ++i) out += "  " + esc(verdict_line(r, i)) + "\n";
    if (r.verdict_order.size() > n)
      out += "  … " + std::to_string(r.verdict_order.size() - n) + " more points\n";
  }
  for (const auto* list : {&r.removed, &r.added}) {
    if (list->empty()) continue;
    bool removed = list == &r.removed;
    size_t total = removed ? r.totals.removed : r.totals.added;
    section(&out, p, removed ? "Removed variants" : "Added variants");
    for (size_t vi : *list)
      out += std::string(removed ? "  - " : "  + ") + esc(report::variant_title(r, vi)) + "\n";
    if (total > list->size()) out += "  … and " + std::to_string(total - list->size()) + " more\n";
  }

  std::string kernel;
  for (size_t gi = 0; gi < r.groups.size() && gi < r.groups_shown; ++gi) {
    const report::GroupView& g = r.groups[gi];
    if (g.unstable && (gi == 0 || !r.groups[gi - 1].unstable))
      section(&out, p, "Unstable: compiler nondeterminism, not counted as changes");
    if (r.options.order != report::Order::kSize && g.kernel != kernel) {
      kernel = g.kernel;
      out += "\n";
      out += p.bold;
      out += "━━ " + esc(g.kernel);
      for (const auto& k : r.kernels)
        if (k.kernel == g.kernel && !g.unstable)
          out += ": " + std::to_string(k.changed_variants) + " of " + std::to_string(k.variants) +
                 " variants changed";
      out += " ━━";
      out += p.reset;
      out += "\n";
    }
    write_group(&out, r, g, p);
  }
  if (r.groups_shown < r.groups.size()) {
    std::vector<std::string> names = group_names(r, r.groups_shown);
    out += "\n" + std::string(p.bold) + std::to_string(names.size()) + " more groups not shown" +
           p.reset + " (--max-groups):\n";
    for (const auto& n : names) out += "  " + esc(n) + "\n";
  }
  return out;
}

}  // namespace ksnap::render

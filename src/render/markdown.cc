// Markdown writer for GitHub PR comments and job summaries.
//
// The whole comment stays under WriteOptions::max_bytes (GitHub rejects
// comments over 65,536 characters): sections are added in reading order
// while they fit, the lists of variants stop with "… and N more", groups
// that no longer fit are named in a closing note that links the full HTML
// report (--html-url) or says how to make it. Untrusted text goes through
// markdown_text.h: fenced blocks longer than any backtick run, code spans,
// HTML-escaped <summary> titles, no mention or link.
//
// Worked example (base..fusion_off):
//   ## ksnap: IR changes `base` → `fusion_off`
//   **11 of 76 kernel-stages changed, in 11 of 19 variants of 4 kernels; 11 distinct changes.**
//   **Statistics** (sums over the affected variants; helped = went down)
//   | stage | statistic | affected | helped | hurt | BASE | HEAD | change |
//   | binary | n_regs | 11 of 19 | 3 | 0 | 2303 | 2291 | -0.52% |
//   **Option changes**
//   - `enable_fp_fusion: true → false — 19 variants of 5 kernels (add_kernel, …)`
//   <details><summary><b>attn_fwd</b> · ptx · 1 variant · +277 −213 lines</summary> ...
#include <algorithm>

#include "ksnap/render/render.h"
#include "ksnap/support/text.h"
#include "render/markdown_text.h"
#include "render/text_blocks.h"

namespace ksnap::render {

namespace {

using md::code_span;
using md::html_text;

/// Appends sections while they fit the budget, keeping `reserve` bytes free
/// for the closing note.
class Budget {
 public:
  Budget(std::string* out, size_t max_bytes, size_t reserve)
      : out_(out), max_(max_bytes), reserve_(std::min(reserve, max_bytes / 4)) {}
  bool fits(size_t n) const { return out_->size() + n + reserve_ <= max_; }
  bool add(const std::string& s) {
    if (!fits(s.size())) return false;
    *out_ += s;
    return true;
  }
  size_t left() const { return max_ > out_->size() ? max_ - out_->size() : 0; }

 private:
  std::string* out_;
  size_t max_, reserve_;
};

std::string stats_table(const report::Report& r) {
  std::vector<StatCells> rows = statistics_rows(r);
  if (rows.empty()) return "";
  std::string out = "\n**Statistics** (sums over the affected variants; helped = went down)\n\n|";
  for (const char* c : kStatColumns) out += std::string(" ") + c + " |";
  out += "\n|---|---|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& row : rows) {
    out += "|";
    for (size_t c = 0; c < row.size(); ++c) {
      out += ' ';
      out += (c < 2 && !row[c].empty() ? code_span(row[c], true) : html_text(row[c])) + " |";
    }
    out += "\n";
  }
  return out;
}

std::string stage_table(const report::Report& r) {
  const bool unstable = r.totals.unstable_stages > 0;
  std::string out = "\n<details><summary>Per stage</summary>\n\n| stage | unchanged | changed | added | removed |";
  out += unstable ? " unstable |\n|---|---:|---:|---:|---:|---:|\n" : "\n|---|---:|---:|---:|---:|\n";
  for (const auto& s : r.result->summary) {
    out += "| " + code_span(s.stage, true) + " | " + std::to_string(s.unchanged) + " | " +
           std::to_string(s.changed) + " | " + std::to_string(s.added) + " | " +
           std::to_string(s.removed) + " |";
    if (unstable) out.append(" ").append(std::to_string(s.unstable)).append(" |");
    out += "\n";
  }
  return out + "\n</details>\n";
}

/// A fenced block of `lines` (each already one line).
std::string fenced(const std::string& info, const std::vector<std::string>& lines) {
  std::string body;
  for (const auto& l : lines) body += l + "\n";
  std::string fence = md::fence_for(body);
  return fence + info + "\n" + body + fence + "\n";
}

std::string group_block(const report::Report& r, const report::GroupView& g) {
  std::string title = "<b>" + html_text(g.kernel) + "</b> · " + html_text(group_subtitle(g));
  std::string out = "\n<details><summary>" + title + "</summary>\n\n";
  std::vector<std::string> names;
  for (size_t k = 0; k < g.variants_listed; ++k)
    if (!r.variant_labels[g.variants[k]].empty())
      names.push_back(md::block_line(r.variant_labels[g.variants[k]]));
  if (g.variants.size() > g.variants_listed)
    names.push_back("… and " + std::to_string(g.variants.size() - g.variants_listed) + " more");
  if (!names.empty()) out += "Variants:\n\n" + fenced("", names) + "\n";
  if (!g.fallback.empty()) out += "Fallback: " + code_span(g.fallback) + "\n\n";
  if (!g.ops.empty()) out += "Ops: " + code_span(ops_text(g.ops)) + "\n\n";
  if (!g.figures.empty()) {
    std::string f;
    for (size_t i = 0; i < g.figures.size(); ++i) f += (i ? ", " : "") + figure_text(r, g.figures[i], false);
    out += "IR figures: " + code_span(f) + "\n\n";
  }
  if (!g.py_lines.empty()) out += "Python lines: " + py_lines_text(g.py_lines) + "\n\n";
  if (!g.hunks.empty()) {
    std::vector<std::string> lines;
    for (const report::HunkView& hv : g.hunks) {
      lines.push_back(md::block_line(hunk_header(*hv.hunk)));
      for (size_t i = 0; i < hv.lines; ++i) {
        const diff::DiffLine& l = hv.hunk->lines[i];
        const char* sign = l.kind == diff::LineKind::kAdded     ? "+ "
                           : l.kind == diff::LineKind::kRemoved ? "- "
                                                                : "  ";
        lines.push_back(sign + md::block_line(report::shown_text(l, r.options.head_names)));
      }
    }
    if (g.lines_cut) lines.push_back("… " + std::to_string(g.lines_cut) + " more lines");
    out += fenced("diff", lines);
  }
  return out + "</details>\n";
}

std::string full_report_hint(const WriteOptions& w) {
  if (!w.html_url.empty()) {
    // A GitHub Actions run's artifacts are zip downloads: say so plainly.
    const bool zip = w.html_url.size() >= 10 && w.html_url.compare(w.html_url.size() - 10, 10, "#artifacts") == 0;
    return "[the full HTML report](" + w.html_url + ")" +
           (zip ? " (report.html in this run's report artifact: a zip download)" : "");
  }
  return "the full report (`ksnap diff --format html`)";
}

}  // namespace

std::string render_markdown(const report::Report& r, const WriteOptions& w) {
  const diff::DiffResult& res = *r.result;
  std::string out;
  // What the closing note may need: a sentence, the link, some group names.
  Budget budget(&out, w.max_bytes, 1400 + w.html_url.size());
  // The heading says the verdict: "IR changes" only when some IR changed.
  const bool changed = r.totals.changed_stages || r.totals.added || r.totals.removed;
  out += std::string("## ksnap: ") + (changed ? "IR changes " : "no IR changes ") +
         code_span(md::truncate(res.base_name, 120)) + " → " +
         code_span(md::truncate(res.head_name, 120)) + "\n\n";
  out += "**" + r.headline + "**\n";
  if (!r.resource_headline.empty()) {
    std::string s = "\n**Resources:** " + html_text(r.resource_headline) + "\n\n";
    for (const auto& l : resource_lines(r, 5)) {
      bool row = l.rfind("  ", 0) == 0;
      s += (row ? "  - " : "- ") + code_span(row ? l.substr(2) : l) + "\n";
    }
    budget.add(s);
  }
  if (!r.layers_text.empty()) budget.add("\n**Where:** " + html_text(r.layers_text) + "\n");
  if (!w.html_url.empty()) out += "\n" + full_report_hint(w) + "\n";
  for (const auto& n : r.notes)
    if (!budget.add("\n> **" + std::string(report::note_kind_name(n.kind)) + ":** " + code_span(n.text) + "\n"))
      break;
  budget.add(stats_table(r));
  if (!r.option_changes.empty()) {
    std::string s = "\n**Option changes**\n\n";
    for (const auto& l : r.option_changes) s += "- " + code_span(option_line_text(l)) + "\n";
    budget.add(s);
  }
  budget.add(stage_table(r));
  if (!r.figure_changes.empty()) {
    std::string s = "\n**Figure changes** (largest relative change first)\n\n";
    for (const auto& f : r.figure_changes) s += "- " + code_span(figure_text(r, f, true)) + "\n";
    if (r.figure_changes_total > r.figure_changes.size())
      s += "- … " + std::to_string(r.figure_changes_total - r.figure_changes.size()) + " more\n";
    budget.add(s);
  }
  if (r.verdicts) {
    std::vector<std::string> lines;
    size_t n = std::min<size_t>(r.verdict_order.size(), 30);
    for (size_t i = 0; i < n; ++i) lines.push_back(md::block_line(verdict_line(r, i)));
    if (r.verdict_order.size() > n) lines.push_back("… " + std::to_string(r.verdict_order.size() - n) + " more points");
    budget.add("\n**Benchmark verdicts:** " + html_text(verdict_counts_text(*r.verdicts)) + "\n\n" +
               fenced("", lines));
  }
  for (const auto* list : {&r.removed, &r.added}) {
    if (list->empty()) continue;
    bool removed = list == &r.removed;
    size_t total = removed ? r.totals.removed : r.totals.added;
    if (!budget.add(removed ? "\n**Removed variants**\n\n" : "\n**Added variants**\n\n")) break;
    size_t shown = 0;
    for (size_t vi : *list) {
      if (!budget.add("- " + code_span(report::variant_title(r, vi)) + "\n")) break;
      ++shown;
    }
    if (total > shown) out += "- … and " + std::to_string(total - shown) + " more\n";
  }

  size_t shown = 0;
  for (; shown < r.groups_shown; ++shown) {
    const report::GroupView& g = r.groups[shown];
    std::string block;
    if (g.unstable && (shown == 0 || !r.groups[shown - 1].unstable))
      block += "\n**Unstable** (compiler nondeterminism, not counted as changes)\n";
    block += group_block(r, g);
    if (!budget.add(block)) break;
  }
  if (shown < r.groups.size()) {
    std::vector<std::string> names = group_names(r, shown);
    std::string note = "\n> " + std::to_string(names.size()) + " of " + std::to_string(r.groups.size()) +
                       " change groups not shown here";
    note += r.groups_shown < r.groups.size() && shown == r.groups_shown ? " (--max-groups)"
                                                                       : " to stay under " + std::to_string(w.max_bytes) + " bytes";
    note += "; see " + full_report_hint(w) + ". Not shown:\n";
    size_t room = budget.left() > note.size() + 64 ? budget.left() - note.size() - 64 : 0;
    std::string list;
    size_t listed = 0;
    for (const auto& n : names) {
      std::string item = (listed ? ", " : "> ") + code_span(n);
      if (list.size() + item.size() > room) break;
      list += item;
      ++listed;
    }
    if (listed < names.size()) list += (listed ? ", " : "> ") + std::string("… and ") + std::to_string(names.size() - listed) + " more";
    if (out.size() + note.size() + list.size() + 1 <= w.max_bytes) out += note + list + "\n";
  }
  return out;
}

}  // namespace ksnap::render

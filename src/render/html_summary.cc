// The HTML report's static parts; see html_summary.h.
//
// Worked example, a kernel card for matmul_kernel (8 variants, stages
// ttir/ttgir/llir/ptx, ttgir changed in 8 of them with +24 −16 lines):
//   <div class="kcard" data-kernel="matmul_kernel"><button ...>matmul_kernel</button>
//   <svg ...><text>ttgir</text><rect class="s-c" width="150"><title>ttgir changed: 8 of
//   8 variants</title></rect><text>+24 −16</text>...</svg></div>
// and the legend above the cards names the four colors.
#include "render/html_summary.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>

#include "render/html_text.h"
#include "render/text_blocks.h"

namespace ksnap::render::html {

namespace {

constexpr const char* kStatusNames[] = {"unchanged", "changed", "added", "removed", "unstable"};
constexpr char kStatusChars[] = {'u', 'c', 'a', 'r', 'n'};

std::string num(int64_t v) { return std::to_string(v); }
std::string esc(const std::string& s) { return escape_html(s); }

std::string td(const std::string& text, const std::string& attrs = "") {
  return "<td" + (attrs.empty() ? "" : " " + attrs) + ">" + text + "</td>";
}

std::string delta_cell(int64_t delta) {
  const char* cls = delta > 0 ? "up" : delta < 0 ? "down" : "";
  return td(esc(report::signed_text(delta)), std::string("class=\"num ") + cls + "\"");
}

std::string caption_row(const std::vector<std::string>& heads) {
  std::string out = "<thead><tr>";
  for (const auto& h : heads) out += "<th>" + h + "</th>";
  return out + "</tr></thead>";
}

/// "<p>… N more what</p>" when `total` rows exceed `shown`, else "".
std::string more_note(size_t total, size_t shown, const std::string& what) {
  if (total <= shown) return "";
  return "<p class=\"dim\">… " + std::to_string(total - shown) + " more " + what + "</p>";
}

struct KernelStats {
  std::string name;
  size_t variants = 0, changed_variants = 0, changed_stages = 0;
  std::vector<std::array<size_t, 4>> counts;  // per stage: u, c, a, r
  std::vector<std::pair<uint64_t, uint64_t>> lines;
};

int status_slot(diff::ChangeStatus s) { return static_cast<int>(s); }

/// Per kernel label: counts by stage and status; the report's kernels first,
/// then unchanged kernels by name.
std::vector<KernelStats> kernel_stats(const report::Report& r) {
  const auto& stages = r.stages;
  std::map<std::string, KernelStats> by;
  const diff::DiffResult& res = *r.result;
  for (size_t vi = 0; vi < res.variants.size(); ++vi) {
    const auto& v = res.variants[vi];
    KernelStats& k = by[r.variant_kernels[vi]];
    if (k.counts.empty()) {
      k.name = r.variant_kernels[vi];
      k.counts.assign(stages.size(), {0, 0, 0, 0});
      k.lines.assign(stages.size(), {0, 0});
    }
    ++k.variants;
    bool changed = false;
    for (const auto& s : v.stages) {
      size_t i = std::find(stages.begin(), stages.end(), s.stage) - stages.begin();
      if (i >= stages.size()) continue;
      ++k.counts[i][status_slot(s.status)];
      if (s.status == diff::ChangeStatus::kUnchanged) continue;
      changed = true;
      ++k.changed_stages;
      k.lines[i].first += s.lines_added;
      k.lines[i].second += s.lines_removed;
    }
    k.changed_variants += changed;
  }
  std::vector<KernelStats> out;
  for (const auto& k : r.kernels) {
    auto it = by.find(k.kernel);
    if (it == by.end()) continue;
    out.push_back(std::move(it->second));
    by.erase(it);
  }
  for (auto& [name, k] : by) out.push_back(std::move(k));
  return out;
}

std::string kernel_svg(const KernelStats& k, const std::vector<std::string>& stages) {
  constexpr int kRow = 16, kLabel = 46, kBar = 150, kWidth = 290;
  int height = kRow * static_cast<int>(stages.size()) + 2;
  std::string out = "<svg class=\"kchart\" width=\"" + num(kWidth) + "\" height=\"" + num(height) +
                    "\" viewBox=\"0 0 " + num(kWidth) + " " + num(height) +
                    "\" role=\"img\" aria-label=\"" + esc(k.name) + ": variant status per stage\">";
  for (size_t i = 0; i < stages.size(); ++i) {
    int y = static_cast<int>(i) * kRow + 1;
    out += "<text class=\"lbl\" x=\"0\" y=\"" + num(y + 11) + "\">" + esc(stages[i]) + "</text>";
    out += "<rect class=\"s-none\" x=\"" + num(kLabel) + "\" y=\"" + num(y + 2) + "\" width=\"" +
           num(kBar) + "\" height=\"" + num(kRow - 5) + "\" rx=\"2\"/>";
    double x = kLabel;
    for (int c = 0; c < 4; ++c) {
      size_t n = k.counts[i][c];
      if (n == 0) continue;
      double w = static_cast<double>(kBar) * static_cast<double>(n) / static_cast<double>(k.variants);
      char buf[64];
      std::snprintf(buf, sizeof buf, "x=\"%.1f\" width=\"%.1f\"", x, w);
      out += std::string("<rect class=\"s-") + kStatusChars[c] + "\" " + buf + " y=\"" + num(y + 2) +
             "\" height=\"" + num(kRow - 5) + "\"><title>" + esc(stages[i]) + " " + kStatusNames[c] +
             ": " + num(static_cast<int64_t>(n)) + " of " + num(static_cast<int64_t>(k.variants)) +
             " variants</title></rect>";
      x += w;
    }
    const auto& [a, d] = k.lines[i];
    if (a || d)
      out += "<text class=\"lines\" x=\"" + num(kLabel + kBar + 6) + "\" y=\"" + num(y + 11) +
             "\"><tspan class=\"plus\">+" + num(static_cast<int64_t>(a)) +
             "</tspan> <tspan class=\"minus\">−" + num(static_cast<int64_t>(d)) + "</tspan></text>";
  }
  return out + "</svg>";
}

}  // namespace

std::string stage_table_html(const report::Report& r) {
  std::string out = "<table class=\"stages\" id=\"stage-summary\">";
  const bool unstable = r.totals.unstable_stages > 0;  // a fifth column only then
  std::vector<std::string> heads{"stage", "unchanged", "changed", "added", "removed"};
  if (unstable) heads.push_back("unstable");
  out += caption_row(heads) + "<tbody>";
  uint64_t tot[5] = {0, 0, 0, 0, 0};
  const int columns = unstable ? 5 : 4;
  for (const auto& s : r.result->summary) {
    uint32_t v[5] = {s.unchanged, s.changed, s.added, s.removed, s.unstable};
    std::string stage = esc(s.stage);
    out += "<tr data-stage=\"" + stage + "\"><th><button class=\"link\" data-filter-stage=\"" +
           stage + "\">" + stage + "</button></th>";
    for (int c = 0; c < columns; ++c) {
      tot[c] += v[c];
      std::string cls = std::string("num") + (c > 0 && v[c] ? std::string(" st-") + kStatusChars[c] : "");
      out += td(num(v[c]), "class=\"" + cls + "\" data-stage=\"" + stage + "\" data-status=\"" +
                               kStatusNames[c] + "\"");
    }
    out += "</tr>";
  }
  out += "</tbody><tfoot><tr><th>all</th>";
  for (int c = 0; c < columns; ++c)
    out += td(num(static_cast<int64_t>(tot[c])),
              std::string("class=\"num\" data-stage=\"all\" data-status=\"") + kStatusNames[c] + "\"");
  return out + "</tr></tfoot></table>";
}

std::string kernel_charts_html(const report::Report& r, const SummaryLimits& limits) {
  std::vector<KernelStats> ks = kernel_stats(r);
  std::string out =
      "<p class=\"legend\" id=\"kernel-legend\">Bars: the share of the kernel's variants per "
      "stage that are <span class=\"sw s-u\"></span>unchanged, <span class=\"sw s-c\"></span>"
      "changed, <span class=\"sw s-a\"></span>added, <span class=\"sw s-r\"></span>removed; "
      "<span class=\"plus\">+added</span> <span class=\"minus\">−removed</span> lines summed "
      "over its variants.</p><div class=\"kernels\" id=\"kernel-charts\">";
  size_t shown = 0;
  for (const KernelStats& k : ks) {
    if (shown == limits.max_kernel_charts) break;
    ++shown;
    std::string name = esc(k.name);
    out += "<div class=\"kcard" + std::string(k.changed_stages ? " changed" : "") +
           "\" data-kernel=\"" + name + "\"><div class=\"khead\"><button class=\"link\" " +
           "data-filter-kernel=\"" + name + "\" title=\"Show only this kernel\">" + name +
           "</button><span class=\"dim\">" + num(static_cast<int64_t>(k.changed_variants)) + " of " +
           num(static_cast<int64_t>(k.variants)) + " variants changed</span></div>" +
           kernel_svg(k, r.stages) + "</div>";
  }
  return out + "</div>" +
         more_note(ks.size(), shown, "kernels (fewest changes) not charted; pick one in the kernel filter.");
}

std::string resource_rank_html(const report::Report& r, const SummaryLimits& limits) {
  if (r.figure_changes.empty()) return "";
  std::string out = "<table class=\"rank res\" id=\"resource-rank\">";
  out += caption_row({"kernel", "variant", "from", "figure", "base", "head", "Δ"}) + "<tbody>";
  size_t n = std::min(limits.max_rank_rows, r.figure_changes.size());
  for (size_t i = 0; i < n; ++i) {
    const report::FigureChange& f = r.figure_changes[i];
    out += "<tr data-variant=\"" + num(static_cast<int64_t>(f.variant)) + "\" data-figure=\"" +
           esc(f.name) + "\">" + td(esc(r.variant_kernels[f.variant])) +
           td(esc(r.variant_labels[f.variant]), "class=\"code\"") + td(esc(f.from)) + td(esc(f.name)) +
           td(num(f.base), "class=\"num\"") + td(num(f.head), "class=\"num\"") +
           delta_cell(f.head - f.base) + "</tr>";
  }
  return out + "</tbody></table>" +
         more_note(r.figure_changes_total, n, "figure changes (see the variant table).");
}

std::string op_rank_html(const report::Report& r, const SummaryLimits& limits) {
  struct Row {
    size_t group;
    std::string op;
    int64_t delta;
  };
  std::vector<Row> rows;
  for (size_t gi = 0; gi < r.groups.size(); ++gi)
    if (!r.groups[gi].unstable)
      for (const auto& [op, d] : r.groups[gi].ops) rows.push_back({gi, op, d});
  if (rows.empty()) return "";
  std::stable_sort(rows.begin(), rows.end(), [&r](const Row& a, const Row& b) {
    if (std::llabs(a.delta) != std::llabs(b.delta)) return std::llabs(a.delta) > std::llabs(b.delta);
    return r.groups[a.group].variants.size() > r.groups[b.group].variants.size();
  });
  std::string out = "<table class=\"rank ops\" id=\"op-rank\">";
  out += caption_row({"kernel", "stage", "op", "Δ count", "variants"}) + "<tbody>";
  for (size_t i = 0; i < rows.size() && i < limits.max_rank_rows; ++i) {
    const Row& row = rows[i];
    const auto& g = r.groups[row.group];
    std::string gid = num(static_cast<int64_t>(row.group));
    out += "<tr data-group=\"" + gid + "\">" + td(esc(g.kernel)) + td(esc(g.stage)) +
           td("<button class=\"link code\" data-open-group=\"" + gid + "\">" + esc(row.op) + "</button>") +
           delta_cell(row.delta) + td(num(static_cast<int64_t>(g.variants.size())), "class=\"num\"") +
           "</tr>";
  }
  return out + "</tbody></table>" +
         more_note(rows.size(), limits.max_rank_rows, "op-count changes (open the change groups).");
}

std::string statistics_html(const report::Report& r, const SummaryLimits& limits) {
  std::vector<StatCells> rows = statistics_rows(r);
  if (rows.empty()) return "";
  auto row_html = [](const StatCells& c) {
    std::string tr = "<tr>";
    for (size_t k = 0; k < c.size(); ++k) tr += td(esc(c[k]), k >= 2 ? "class=\"num\"" : "");
    return tr + "</tr>";
  };
  std::vector<std::string> heads(std::begin(kStatColumns), std::end(kStatColumns));
  std::string out = "<table class=\"stats\" id=\"statistics\">" + caption_row(heads) + "<tbody>";
  size_t n = std::min(rows.size(), limits.max_stat_rows);
  for (size_t i = 0; i < n; ++i) out += row_html(rows[i]);
  out += "</tbody></table>";
  if (rows.size() > n) {
    out += "<details class=\"more-stats\"><summary>" + std::to_string(rows.size() - n) +
           " more statistics</summary><table class=\"stats\">" + caption_row(heads) + "<tbody>";
    for (size_t i = n; i < rows.size(); ++i) out += row_html(rows[i]);
    out += "</tbody></table></details>";
  }
  return out;
}

std::string summary_html(const report::Report& r, const SummaryLimits& limits) {
  const report::Totals& t = r.totals;
  std::string out = "<section id=\"summary\"><p class=\"headline\" id=\"headline\">" + esc(r.headline) + "</p>";
  if (!r.resource_headline.empty()) {
    out += "<div id=\"resources\"><p class=\"resources\"><b>Resources:</b> " +
           esc(r.resource_headline) + "</p><ul class=\"resource-deltas\">";
    bool in_rows = false, in_item = false;
    for (const auto& l : resource_lines(r, 10)) {
      if (l.rfind("  ", 0) == 0) {  // a variant's row under its figure
        if (!in_rows) out += "<ul>";
        in_rows = true;
        out += "<li class=\"code\">" + esc(l.substr(2)) + "</li>";
        continue;
      }
      if (in_rows) out += "</ul>";
      if (in_item) out += "</li>";
      in_rows = false;
      in_item = true;
      out += "<li>" + esc(l);
    }
    if (in_rows) out += "</ul>";
    if (in_item) out += "</li>";
    out += "</ul></div>";
  }
  if (!r.layers_text.empty())
    out += "<p class=\"layers\" id=\"layers\"><b>Where:</b> " + esc(r.layers_text) + "</p>";
  out += "<ul class=\"totals\" id=\"totals\">";
  auto item = [&out](const char* key, size_t v, const char* label) {
    out += std::string("<li><b data-total=\"") + key + "\">" + std::to_string(v) + "</b> " + label + "</li>";
  };
  item("variants", t.variants, "variants");
  item("changed_variants", t.changed_variants, "changed");
  item("added", t.added, "added");
  item("removed", t.removed, "removed");
  item("changed_stages", t.changed_stages, "changed kernel-stages");
  item("groups", t.groups, "distinct changes");
  if (t.unstable_stages) item("unstable_stages", t.unstable_stages, "unstable kernel-stages");
  out += "</ul>";
  for (const auto& n : r.notes)
    out += std::string("<p class=\"note\" data-note=\"") + report::note_kind_name(n.kind) + "\">" +
           report::note_kind_name(n.kind) + ": " + esc(n.text) + "</p>";
  std::string stats = statistics_html(r, limits);
  std::string opts;
  for (const auto& l : r.option_changes)
    opts += "<li class=\"code\">" + esc(option_line_text(l)) + "</li>";
  if (!stats.empty() || !opts.empty()) {
    out += "<div class=\"sumgrid\">";
    if (!stats.empty())
      out += "<div class=\"scroll\"><h2>Statistics <span class=\"dim\">sums over the affected variants; "
             "helped = went down</span></h2>" + stats + "</div>";
    if (!opts.empty()) out += "<div><h2>Option changes</h2><ul class=\"opts\" id=\"option-changes\">" + opts + "</ul></div>";
    out += "</div>";
  }
  return out + "</section>";
}

std::string overview_html(const report::Report& r, const SummaryLimits& limits) {
  std::string out = "<section id=\"overview\"><h2>Per stage</h2><div class=\"scroll\">" +
                    stage_table_html(r) + "</div><h2>Per kernel</h2>" + kernel_charts_html(r, limits);
  std::string res = resource_rank_html(r, limits), ops = op_rank_html(r, limits);
  if (!res.empty() || !ops.empty()) {
    out += "<div class=\"sumgrid\">";
    if (!res.empty()) out += "<div class=\"scroll\"><h2>Biggest figure changes</h2>" + res + "</div>";
    if (!ops.empty()) out += "<div class=\"scroll\"><h2>Biggest op-count changes</h2>" + ops + "</div>";
    out += "</div>";
  }
  return out + "</section>";
}

}  // namespace ksnap::render::html

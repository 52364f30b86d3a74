// The HTML report's eager summary; see html_summary.h.
//
// Worked example, a kernel card for matmul_kernel (8 variants, stages
// ttir/ttgir/llir/ptx, ttgir changed in 8 of them with +24 −16 lines):
//   <div class="kcard" data-kernel="matmul_kernel"><button ...>matmul_kernel</button>
//   <svg ...><text>ttgir</text><rect class="s-c" width="152"><title>changed: 8</title></rect>
//   <text>+24 −16</text>...</svg></div>
#include "render/html_summary.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>

#include "render/common.h"
#include "render/html_data.h"
#include "render/html_text.h"
#include "render/text_blocks.h"

namespace ksnap::render::html {

namespace {

constexpr const char* kStatusNames[] = {"unchanged", "changed", "added", "removed"};
constexpr char kStatusChars[] = {'u', 'c', 'a', 'r'};

std::string num(int64_t v) { return std::to_string(v); }

std::string td(const std::string& text, const std::string& attrs = "") {
  return "<td" + (attrs.empty() ? "" : " " + attrs) + ">" + text + "</td>";
}

std::string delta_cell(int64_t delta) {
  const char* cls = delta > 0 ? "up" : delta < 0 ? "down" : "";
  return td(escape_html(signed_text(delta)), std::string("class=\"num ") + cls + "\"");
}

struct KernelStats {
  std::string name;
  size_t variants = 0;
  size_t changed_variants = 0;
  size_t changed_stages = 0;
  uint64_t lines = 0;
  // Per stage: counts by status (u, c, a, r) and lines added / removed.
  std::vector<std::array<size_t, 4>> counts;
  std::vector<std::pair<uint64_t, uint64_t>> stage_lines;
};

std::vector<KernelStats> kernel_stats(const diff::DiffResult& r,
                                      const std::vector<std::string>& stages) {
  std::map<std::string, KernelStats> by_name;
  for (const auto& v : r.variants) {
    KernelStats& k = by_name[v.kernel];
    if (k.counts.empty()) {
      k.name = v.kernel;
      k.counts.assign(stages.size(), {0, 0, 0, 0});
      k.stage_lines.assign(stages.size(), {0, 0});
    }
    ++k.variants;
    k.changed_variants += v.changed();
    std::string st = status_chars(v, stages);
    for (size_t i = 0; i < stages.size(); ++i) {
      for (int c = 0; c < 4; ++c)
        if (st[i] == kStatusChars[c]) ++k.counts[i][c];
      if (st[i] == '.' || st[i] == 'u') continue;
      const diff::StageDiff* s = v.stage(stages[i]);
      ++k.changed_stages;
      k.stage_lines[i].first += s->lines_added;
      k.stage_lines[i].second += s->lines_removed;
      k.lines += s->lines_added + s->lines_removed;
    }
  }
  std::vector<KernelStats> out;
  for (auto& [name, k] : by_name) out.push_back(std::move(k));
  std::stable_sort(out.begin(), out.end(), [](const KernelStats& a, const KernelStats& b) {
    if (a.changed_stages != b.changed_stages) return a.changed_stages > b.changed_stages;
    return a.lines > b.lines;
  });
  return out;
}

std::string kernel_svg(const KernelStats& k, const std::vector<std::string>& stages) {
  constexpr int kRow = 16, kLabel = 46, kBar = 150, kWidth = 290;
  std::string out = "<svg class=\"kchart\" width=\"" + num(kWidth) + "\" height=\"" +
                    num(kRow * static_cast<int>(stages.size()) + 2) + "\" viewBox=\"0 0 " +
                    num(kWidth) + " " + num(kRow * static_cast<int>(stages.size()) + 2) +
                    "\" role=\"img\" aria-label=\"" + escape_html(k.name) +
                    ": variant status per stage\">";
  for (size_t i = 0; i < stages.size(); ++i) {
    int y = static_cast<int>(i) * kRow + 1;
    out += "<text class=\"lbl\" x=\"0\" y=\"" + num(y + 11) + "\">" + escape_html(stages[i]) +
           "</text>";
    double x = kLabel;
    out += "<rect class=\"s-none\" x=\"" + num(kLabel) + "\" y=\"" + num(y + 2) + "\" width=\"" +
           num(kBar) + "\" height=\"" + num(kRow - 5) + "\" rx=\"2\"/>";
    for (int c = 0; c < 4; ++c) {
      size_t n = k.counts[i][c];
      if (n == 0) continue;
      double w =
          static_cast<double>(kBar) * static_cast<double>(n) / static_cast<double>(k.variants);
      char buf[64];
      std::snprintf(buf, sizeof buf, "x=\"%.1f\" width=\"%.1f\"", x, w);
      out += std::string("<rect class=\"s-") + kStatusChars[c] + "\" " + buf + " y=\"" +
             num(y + 2) + "\" height=\"" + num(kRow - 5) + "\"><title>" + escape_html(stages[i]) +
             " " + kStatusNames[c] + ": " + num(static_cast<int64_t>(n)) + " of " +
             num(static_cast<int64_t>(k.variants)) + " variants</title></rect>";
      x += w;
    }
    const auto& [a, d] = k.stage_lines[i];
    if (a || d)
      out += "<text class=\"lines\" x=\"" + num(kLabel + kBar + 6) + "\" y=\"" + num(y + 11) +
             "\"><tspan class=\"plus\">+" + num(static_cast<int64_t>(a)) +
             "</tspan> <tspan class=\"minus\">−" + num(static_cast<int64_t>(d)) + "</tspan></text>";
  }
  return out + "</svg>";
}

/// "<p>… N more what</p>" when `total` rows exceed `shown`, else "".
std::string more_note(size_t total, size_t shown, const std::string& what) {
  if (total <= shown) return "";
  return "<p class=\"dim\">… " + std::to_string(total - shown) + " more " + what + "</p>";
}

std::string caption_row(const std::vector<std::string>& heads) {
  std::string out = "<thead><tr>";
  for (const auto& h : heads) out += "<th>" + h + "</th>";
  return out + "</tr></thead>";
}

}  // namespace

std::string stage_table_html(const diff::DiffResult& r) {
  std::string out = "<table class=\"stages\" id=\"stage-summary\">";
  out += caption_row({"stage", "unchanged", "changed", "added", "removed"});
  out += "<tbody>";
  uint64_t tot[4] = {0, 0, 0, 0};
  for (const auto& s : r.summary) {
    uint32_t v[4] = {s.unchanged, s.changed, s.added, s.removed};
    std::string stage = escape_html(s.stage);
    out += "<tr data-stage=\"" + stage + "\"><th><button class=\"link\" data-filter-stage=\"" +
           stage + "\">" + stage + "</button></th>";
    for (int c = 0; c < 4; ++c) {
      tot[c] += v[c];
      std::string cls =
          std::string("num") + (c > 0 && v[c] ? std::string(" st-") + kStatusChars[c] : "");
      out += td(num(v[c]), "class=\"" + cls + "\" data-stage=\"" + stage + "\" data-status=\"" +
                               kStatusNames[c] + "\"");
    }
    out += "</tr>";
  }
  out += "</tbody><tfoot><tr><th>all</th>";
  for (int c = 0; c < 4; ++c)
    out +=
        td(num(static_cast<int64_t>(tot[c])),
           std::string("class=\"num\" data-stage=\"all\" data-status=\"") + kStatusNames[c] + "\"");
  return out + "</tr></tfoot></table>";
}

std::string kernel_charts_html(const diff::DiffResult& r, const SummaryLimits& limits) {
  std::vector<std::string> stages = stage_order(r);
  std::vector<KernelStats> ks = kernel_stats(r, stages);
  std::string out = "<div class=\"kernels\" id=\"kernel-charts\">";
  size_t shown = 0;
  for (const KernelStats& k : ks) {
    if (shown == limits.max_kernel_charts) break;
    ++shown;
    std::string name = escape_html(k.name);
    out += "<div class=\"kcard" + std::string(k.changed_stages ? " changed" : "") +
           "\" data-kernel=\"" + name + "\"><div class=\"khead\"><button class=\"link\" " +
           "data-filter-kernel=\"" + name + "\" title=\"Show only this kernel\">" + name +
           "</button><span class=\"dim\">" + num(static_cast<int64_t>(k.changed_variants)) +
           " of " + num(static_cast<int64_t>(k.variants)) + " variants changed</span></div>" +
           kernel_svg(k, stages) + "</div>";
  }
  return out + "</div>" +
         more_note(ks.size(), shown,
                   "kernels (fewest changes) not charted; pick one in the kernel filter.");
}

std::string resource_rank_html(const diff::DiffResult& r, const SummaryLimits& limits) {
  struct Row {
    double rel;
    int64_t mag;
    size_t variant;
    std::string where, figure;
    int64_t base, head;
  };
  std::vector<Row> rows;
  auto collect = [&rows](size_t vi, const std::string& where,
                         const std::map<std::string, diff::FigurePair>& figs) {
    for (const auto& [k, p] : figs) {
      if (p.first < 0 || p.second < 0 || p.first == p.second) continue;
      int64_t d = p.second - p.first;
      rows.push_back({static_cast<double>(std::llabs(d)) /
                          static_cast<double>(std::max<int64_t>(std::llabs(p.first), 1)),
                      std::llabs(d), vi, where, k, p.first, p.second});
    }
  };
  for (size_t vi = 0; vi < r.variants.size(); ++vi) {
    const auto& v = r.variants[vi];
    collect(vi, "binary", v.resources);
    for (const auto& s : v.stages) collect(vi, s.stage, s.resources);
  }
  if (rows.empty()) return "";
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    if (a.rel != b.rel) return a.rel > b.rel;
    return a.mag > b.mag;
  });
  std::string out = "<table class=\"rank res\" id=\"resource-rank\">";
  out += caption_row({"kernel", "variant", "from", "figure", "base", "head", "Δ"});
  out += "<tbody>";
  for (size_t i = 0; i < rows.size() && i < limits.max_rank_rows; ++i) {
    const Row& row = rows[i];
    const auto& v = r.variants[row.variant];
    out += "<tr data-variant=\"" + num(static_cast<int64_t>(row.variant)) + "\" data-figure=\"" +
           escape_html(row.figure) + "\">" + td(escape_html(v.kernel)) +
           td(escape_html(variant_label(v)), "class=\"code\"") + td(escape_html(row.where)) +
           td(escape_html(row.figure)) + td(num(row.base), "class=\"num\"") +
           td(num(row.head), "class=\"num\"") + delta_cell(row.head - row.base) + "</tr>";
  }
  return out + "</tbody></table>" +
         more_note(rows.size(), limits.max_rank_rows, "figure changes (see the variant table).");
}

std::string op_rank_html(const diff::DiffResult& r, const SummaryLimits& limits) {
  struct Row {
    size_t group;
    std::string op;
    int64_t delta;
  };
  std::vector<Row> rows;
  for (size_t gi = 0; gi < r.groups.size(); ++gi) {
    const auto& g = r.groups[gi];
    if (g.variants.empty()) continue;
    const diff::StageDiff* s = r.variants[g.variants[0]].stage(g.stage);
    if (!s) continue;
    for (const auto& [op, d] : s->op_deltas) rows.push_back({gi, op, d});
  }
  if (rows.empty()) return "";
  std::stable_sort(rows.begin(), rows.end(), [&r](const Row& a, const Row& b) {
    if (std::llabs(a.delta) != std::llabs(b.delta))
      return std::llabs(a.delta) > std::llabs(b.delta);
    return r.groups[a.group].variants.size() > r.groups[b.group].variants.size();
  });
  std::string out = "<table class=\"rank ops\" id=\"op-rank\">";
  out += caption_row({"kernel", "stage", "op", "Δ count", "variants"});
  out += "<tbody>";
  for (size_t i = 0; i < rows.size() && i < limits.max_rank_rows; ++i) {
    const Row& row = rows[i];
    const auto& g = r.groups[row.group];
    std::string gid = num(static_cast<int64_t>(row.group));
    out += "<tr data-group=\"" + gid + "\">" + td(escape_html(g.kernel)) +
           td(escape_html(g.stage)) +
           td("<button class=\"link code\" data-open-group=\"" + gid + "\">" + escape_html(row.op) +
              "</button>") +
           delta_cell(row.delta) +
           td(num(static_cast<int64_t>(g.variants.size())), "class=\"num\"") + "</tr>";
  }
  return out + "</tbody></table>" +
         more_note(rows.size(), limits.max_rank_rows, "op-count changes (open the change groups).");
}

std::string summary_html(const diff::DiffResult& r, const SummaryLimits& limits) {
  Totals t = totals(r);
  std::string out = "<section id=\"summary\"><p class=\"headline\" id=\"headline\">" +
                    escape_html(headline(r)) + "</p>";
  out += "<ul class=\"totals\" id=\"totals\">";
  auto item = [&out](const char* key, size_t v, const char* label) {
    out += std::string("<li><b data-total=\"") + key + "\">" + std::to_string(v) + "</b> " + label +
           "</li>";
  };
  item("variants", t.variants, "variants");
  item("changed_variants", t.changed_variants, "changed");
  item("added", t.added, "added");
  item("removed", t.removed, "removed");
  item("changed_stages", t.changed_stages, "changed kernel-stages");
  item("groups", r.groups.size(), "distinct changes");
  out += "</ul>";
  for (const auto& w : r.warnings) out += "<p class=\"warn\">note: " + escape_html(w) + "</p>";
  out += "<div class=\"sumgrid\"><div><h2>Per stage</h2>" + stage_table_html(r) + "</div>";
  std::string opts;
  size_t n_opts = 0;
  for (const auto& v : r.variants) {
    if (v.option_changes.empty()) continue;
    if (n_opts++ == limits.max_rank_rows) continue;
    opts += "<li><b>" + escape_html(v.kernel) + "</b> <span class=\"code\">" +
            escape_html(variant_label(v)) + "</span>: ";
    for (size_t k = 0; k < v.option_changes.size(); ++k) {
      const auto& c = v.option_changes[k];
      opts += (k ? ", " : "") + std::string("<span class=\"code\">") + escape_html(c.name) + " " +
              escape_html(c.base.empty() ? "–" : c.base) + " → " +
              escape_html(c.head.empty() ? "–" : c.head) + "</span>";
    }
    opts += "</li>";
  }
  if (n_opts > limits.max_rank_rows)
    opts += "<li class=\"dim\">… " + std::to_string(n_opts - limits.max_rank_rows) + " more</li>";
  if (!opts.empty())
    out += "<div><h2>Option changes</h2><ul class=\"opts\">" + opts + "</ul></div>";
  out += "</div>";
  out += "<h2>Per kernel</h2>" + kernel_charts_html(r, limits);
  std::string res = resource_rank_html(r, limits), ops = op_rank_html(r, limits);
  if (!res.empty() || !ops.empty()) {
    out += "<div class=\"sumgrid\">";
    if (!res.empty()) out += "<div><h2>Biggest resource deltas</h2>" + res + "</div>";
    if (!ops.empty()) out += "<div><h2>Biggest op-count deltas</h2>" + ops + "</div>";
    out += "</div>";
  }
  return out + "</section>";
}

}  // namespace ksnap::render::html

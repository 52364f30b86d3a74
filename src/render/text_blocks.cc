// Words shared by the text formats; see text_blocks.h.
#include "render/text_blocks.h"

#include <algorithm>
#include <set>

namespace ksnap::render {

using report::signed_text;

std::vector<StatCells> statistics_rows(const report::Report& r) {
  std::vector<StatCells> out;
  for (const auto& s : r.statistics) {
    bool first = true;
    std::string affected = std::to_string(s.affected) + " of " + std::to_string(s.total);
    for (const auto& row : s.rows) {
      out.push_back({first ? s.stage : "", row.name, first ? affected : "",
                     std::to_string(row.helped), std::to_string(row.hurt),
                     std::to_string(row.base), std::to_string(row.head),
                     report::percent_text(row)});
      first = false;
    }
  }
  return out;
}

std::string option_line_text(const report::OptionChangeLine& l, size_t max_kernels) {
  auto side = [](const std::string& v) { return v.empty() ? std::string("–") : v; };
  std::string out = l.name + ": " + side(l.base) + " → " + side(l.head) + " — " +
                    std::to_string(l.variants.size()) +
                    (l.variants.size() == 1 ? " variant" : " variants") + " of " +
                    std::to_string(l.kernels.size()) + (l.kernels.size() == 1 ? " kernel" : " kernels");
  out += " (";
  for (size_t i = 0; i < l.kernels.size() && i < max_kernels; ++i) out += (i ? ", " : "") + l.kernels[i];
  if (l.kernels.size() > max_kernels) out += ", …";
  return out + ")";
}

std::string figure_text(const report::Report& r, const report::FigureChange& f, bool with_variant) {
  std::string out;
  if (with_variant) out = report::variant_title(r, f.variant) + ": ";
  out += f.name;
  if (f.from != "binary") out += " (" + f.from + ")";
  auto fmt = [](int64_t x) { return x < 0 ? std::string("–") : std::to_string(x); };
  out.append(" ").append(fmt(f.base)).append(" → ").append(fmt(f.head));
  if (f.base >= 0 && f.head >= 0) out += " (" + signed_text(f.head - f.base) + ")";
  return out;
}

std::vector<std::string> resource_lines(const report::Report& r, size_t rows) {
  std::vector<std::string> out;
  for (const report::ResourceDelta& d : r.resource_deltas) {
    out.push_back(d.title + ": " + d.text);
    size_t n = std::min(rows, d.rows.size());
    for (size_t i = 0; i < n; ++i) out.push_back("  " + figure_text(r, d.rows[i], true));
    if (d.rows_total > n) out.push_back("  … " + std::to_string(d.rows_total - n) + " more");
  }
  return out;
}

std::string group_title(const report::GroupView& g) { return g.kernel + " · " + group_subtitle(g); }

std::string group_subtitle(const report::GroupView& g) {
  std::string out = g.stage + " · " + std::to_string(g.variants.size()) +
                    (g.variants.size() == 1 ? " variant" : " variants");
  if (g.binary) out += " · " + bytes_text(g.bytes);
  else out += " · +" + std::to_string(g.lines_added) + " −" + std::to_string(g.lines_removed) + " lines";
  if (g.unstable) out += " · unstable";
  return out;
}

std::string ops_text(const std::vector<std::pair<std::string, int64_t>>& ops, size_t max) {
  std::string out;
  for (size_t i = 0; i < ops.size() && i < max; ++i)
    out += (i ? ", " : "") + signed_text(ops[i].second) + " " + ops[i].first;
  if (ops.size() > max) out += ", … " + std::to_string(ops.size() - max) + " more";
  return out;
}

std::string py_lines_text(const std::vector<int32_t>& a) {
  std::set<int32_t> s(a.begin(), a.end());
  std::string out;
  size_t n = 0;
  for (int32_t x : s) {
    if (n == 12) {
      out += ", …";
      break;
    }
    out += (n++ ? ", " : "") + std::to_string(x);
  }
  return out;
}

std::string bytes_text(const diff::FigurePair& b) {
  auto fmt = [](int64_t x) { return x < 0 ? std::string("–") : std::to_string(x); };
  std::string out = "binary " + fmt(b.first) + " → " + fmt(b.second) + " bytes";
  if (b.first >= 0 && b.second >= 0) out += " (" + signed_text(b.second - b.first) + ")";
  return out;
}

std::string hunk_header(const diff::Hunk& h) {
  std::string out = "@@ -" + std::to_string(h.base_start) + "," + std::to_string(h.base_count) +
                    " +" + std::to_string(h.head_start) + "," + std::to_string(h.head_count) + " @@";
  if (!h.unit.empty()) out += " " + h.unit;
  std::string py = py_lines_text(h.py_lines_head.empty() ? h.py_lines_base : h.py_lines_head);
  if (!py.empty()) out += "  (python line " + py + ")";
  return out;
}

std::vector<std::string> group_names(const report::Report& r, size_t from) {
  std::vector<std::string> out;
  for (size_t i = from; i < r.groups.size(); ++i) {
    const auto& g = r.groups[i];
    out.push_back(g.kernel + " · " + g.stage + " (" + std::to_string(g.variants.size()) + ")");
  }
  return out;
}

std::string verdict_counts_text(const perf::VerdictReport& v) {
  std::string out;
  for (size_t k = 0; k < perf::kVerdictKindCount; ++k) {
    if (!v.counts[k]) continue;
    if (!out.empty()) out += ", ";
    out += std::to_string(v.counts[k]) + " " + perf::verdict_name(static_cast<perf::VerdictKind>(k));
  }
  return out;
}

std::string verdict_line(const report::Report& r, size_t i) {
  const perf::PointVerdict& p = r.verdicts->points[r.verdict_order[i]];
  std::string name = perf::verdict_name(p.kind);
  name.resize(std::max<size_t>(name.size(), 26), ' ');
  return name + " " + p.perf.label + ": " + perf::describe(p, r.verdicts->options);
}

}  // namespace ksnap::render

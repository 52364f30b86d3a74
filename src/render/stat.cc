// --stat and --name-only: one line per changed variant, kernels in the
// report's order.
//
// --stat is laid out like `git diff --stat` for a terminal of
// WriteOptions::width columns: " name | count +++---". The bars of a change
// of N lines take N columns when the largest change fits, else they are
// scaled as git scales them (each side that is non-zero gets at least one
// column: +4/-4 of a 900-line maximum is "+-", never "-"); a name too long for
// the width loses its middle ("softmax_kernel{BLOCK…} (ttgir llir ptx)").
#include <algorithm>
#include <set>

#include "ksnap/render/render.h"
#include "ksnap/support/text.h"
#include "render/palette.h"

namespace ksnap::render {

namespace {

struct Row {
  size_t variant;
  std::string name;
  size_t added = 0, removed = 0;
};

/// Changed variants (real changes), kernel by kernel in the report's order.
std::vector<Row> changed_rows(const report::Report& r) {
  const diff::DiffResult& res = *r.result;
  std::vector<Row> rows;
  std::set<size_t> seen;
  auto add_variant = [&](size_t vi) {
    if (!seen.insert(vi).second) return;
    const diff::VariantDiff& v = res.variants[vi];
    Row row{vi, escape_control(r.variant_kernels[vi] + r.variant_labels[vi]), 0, 0};
    std::string stages;
    bool real = v.pairing == diff::Pairing::kAdded || v.pairing == diff::Pairing::kRemoved;
    for (const auto& s : v.stages) {
      if (s.status == diff::ChangeStatus::kUnchanged || s.unstable) continue;
      real = true;
      row.added += s.lines_added;
      row.removed += s.lines_removed;
      if (!stages.empty()) stages += ' ';
      stages += escape_control(s.stage);
      if (s.status != diff::ChangeStatus::kChanged) stages += std::string("(") + diff::status_name(s.status) + ")";
    }
    if (!real) return;
    if (!stages.empty()) row.name += " (" + stages + ")";
    rows.push_back(std::move(row));
  };
  std::vector<std::string> order;
  for (const auto& k : r.kernels) order.push_back(k.kernel);
  for (const auto& k : order)
    for (size_t vi = 0; vi < res.variants.size(); ++vi)
      if (r.variant_kernels[vi] == k) add_variant(vi);
  return rows;
}

/// `s` cut to `width` columns by dropping its middle.
std::string fit(const std::string& s, size_t width) {
  size_t w = display_width(s);
  if (w <= width) return s + std::string(width - w, ' ');
  if (width < 2) return std::string(width, '.');
  // Code point boundaries.
  std::vector<size_t> starts;
  for (size_t i = 0; i < s.size(); ++i)
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) starts.push_back(i);
  size_t head = (width - 1) / 2, tail = width - 1 - head;
  return s.substr(0, starts[head]) + "…" + s.substr(starts[starts.size() - tail]);
}

/// git's scale_linear: 0 stays 0, anything else at least 1.
size_t scale(size_t it, size_t width, size_t max_change) {
  if (!it) return 0;
  if (max_change <= width) return it;
  return 1 + it * (width - 1) / max_change;
}

}  // namespace

std::string render_stat(const report::Report& r, const WriteOptions& w) {
  const Palette p = palette(w.color);
  std::vector<Row> rows = changed_rows(r);
  size_t max_change = 1, name_max = 0, ins = 0, del = 0;
  for (const Row& row : rows) {
    max_change = std::max(max_change, row.added + row.removed);
    name_max = std::max(name_max, display_width(row.name));
    ins += row.added;
    del += row.removed;
  }
  const size_t width = std::max<size_t>(w.width, 40);
  const size_t number_width = std::to_string(max_change).size();
  // " name | count bars": 4 columns of separators, 1 after the count.
  size_t graph = std::min<size_t>(max_change, 40);
  if (name_max + number_width + 5 + graph > width) {
    graph = std::min(graph, std::max<size_t>(6, width * 3 / 8 > number_width + 6 ? width * 3 / 8 - number_width - 6 : 6));
  }
  size_t name_width = std::min(name_max, width - number_width - 5 - graph);
  std::string out;
  for (const Row& row : rows) {
    size_t plus = scale(row.added, graph, max_change);
    size_t minus = scale(row.removed, graph, max_change);
    std::string count = std::to_string(row.added + row.removed);
    // Appended piece by piece: `" " + std::string` trips a false GCC 12 -Wrestrict.
    out += ' ';
    out += fit(row.name, name_width);
    out += " | ";
    out.append(number_width - count.size(), ' ');
    out += count;
    if (plus + minus) out += ' ';
    out.append(p.green).append(plus, '+').append(p.reset);
    out.append(p.red).append(minus, '-').append(p.reset);
    out += '\n';
  }
  out += ' ';
  out += std::to_string(rows.size()) + " variant" + (rows.size() == 1 ? "" : "s") + " changed, " +
         std::to_string(ins) + " insertions(+), " + std::to_string(del) + " deletions(-)\n";
  return out;
}

std::string render_name_only(const report::Report& r, const WriteOptions&) {
  std::string out;
  for (const Row& row : changed_rows(r))
    out += escape_control(report::variant_title(r, row.variant)) + "\n";
  return out;
}

}  // namespace ksnap::render

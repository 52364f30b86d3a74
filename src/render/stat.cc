// --stat and --name-only: one line per changed variant, kernels in the
// report's order.
//
// --stat is laid out like `git diff --stat` for a terminal of
// WriteOptions::width columns: " name | count +++---". The bars of a change
// of N lines take N columns when the largest change fits, else they are
// scaled as git scales them (each side that is non-zero gets at least one
// column: +4/-4 of a 900-line maximum is "+-", never "-"); a name too long for
// the width first loses the constexprs and options that every changed variant
// of its kernel shares, which tell no two rows apart:
//   matmul_kernel{BLOCK_SIZE_K=32, BLOCK_SIZE_M=64, BLOCK_SIZE_N=32, GROUP_SIZE_M=8} [num_stages=5, num_warps=2]
//   matmul_kernel{BLOCK_SIZE_K=32, BLOCK_SIZE_M=32, BLOCK_SIZE_N=64, GROUP_SIZE_M=8} [num_stages=5, num_warps=2]
// become "matmul_kernel{…, BLOCK_SIZE_M=64, BLOCK_SIZE_N=32, …} […]" and
// "matmul_kernel{…, BLOCK_SIZE_M=32, BLOCK_SIZE_N=64, …} […]"; a name still too
// long then loses its middle ("softmax_kernel{BLOCK…} (ttgir llir ptx)").
#include <algorithm>
#include <map>
#include <set>

#include "ksnap/render/render.h"
#include "ksnap/support/text.h"
#include "render/palette.h"

namespace ksnap::render {

namespace {

struct Row {
  size_t variant;
  std::string name;  ///< kernel + label + " (stages)", escaped
  size_t added = 0, removed = 0;
  std::string kernel, label, stages;  ///< the pieces of `name`, escaped
  /// Bytes of `name` that tell this row from its kernel's other rows; fit()
  /// keeps them when it can (0: no preference).
  size_t keep = 0;
};

/// A variant label in order as items ("BLOCK_SIZE=256") and the delimiters
/// between them ("{", "} [", ", ", "]"), each with whether it is an item.
std::vector<std::pair<std::string, bool>> label_pieces(const std::string& label) {
  std::vector<std::pair<std::string, bool>> out;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty()) out.emplace_back(cur, true);
    cur.clear();
  };
  for (size_t i = 0; i < label.size(); ++i) {
    char c = label[i];
    if (c == '{' || c == '}' || c == '[' || c == ']' || c == ' ' ||
        (c == ',' && i + 1 < label.size() && label[i + 1] == ' ')) {
      flush();
      std::string d(1, c);
      if (c == ',') d += label[++i];
      if (!out.empty() && !out.back().second) out.back().first += d;
      else out.emplace_back(d, false);
    } else {
      cur += c;
    }
  }
  flush();
  return out;
}

/// `label` with the items in `shared` shown as one "…" per run;
/// `*last_kept_end` gets the byte offset just past the last item kept.
std::string without_shared(const std::string& label, const std::set<std::string>& shared,
                           size_t* last_kept_end) {
  std::vector<std::pair<std::string, bool>> out;  // pieces, as label_pieces
  bool eliding = false;  // the last item pushed was a "…" (its run goes on)
  for (auto& piece : label_pieces(label)) {
    if (!piece.second) {
      if (piece.first.find_first_of("{}[]") != std::string::npos) eliding = false;
      out.push_back(std::move(piece));
      continue;
    }
    if (!shared.count(piece.first)) {
      eliding = false;
      out.push_back(std::move(piece));
    } else if (eliding) {
      if (!out.empty() && out.back().first == ", ") out.pop_back();  // "…, …" is one "…"
    } else {
      eliding = true;
      out.emplace_back("…", true);
    }
  }
  std::string text;
  *last_kept_end = 0;
  for (const auto& [piece, is_item] : out) {
    text += piece;
    if (is_item && piece != "…") *last_kept_end = text.size();
  }
  return text;
}

/// Rows whose name is wider than `width` get the items their kernel's rows
/// all share dropped (a kernel with one changed row keeps its label).
void drop_shared_items(std::vector<Row>& rows, size_t width) {
  std::map<std::string, std::vector<Row*>> by_kernel;
  for (Row& row : rows) by_kernel[row.kernel].push_back(&row);
  for (auto& [kernel, group] : by_kernel) {
    if (group.size() < 2) continue;
    bool too_wide = false;
    for (Row* row : group) too_wide |= display_width(row->name) > width;
    if (!too_wide) continue;
    std::map<std::string, size_t> count;
    for (Row* row : group) {
      std::set<std::string> items;
      for (const auto& [text, is_item] : label_pieces(row->label))
        if (is_item) items.insert(text);
      for (const std::string& it : items) ++count[it];
    }
    std::set<std::string> shared;
    for (const auto& [item, n] : count)
      if (n == group.size()) shared.insert(item);
    for (Row* row : group) {
      size_t kept_end = 0;
      row->name = row->kernel + without_shared(row->label, shared, &kept_end);
      if (kept_end) row->keep = row->kernel.size() + kept_end;
      if (!row->stages.empty()) row->name += " (" + row->stages + ")";
    }
  }
}

/// Changed variants (real changes), kernel by kernel in the report's order.
std::vector<Row> changed_rows(const report::Report& r) {
  const diff::DiffResult& res = *r.result;
  std::vector<Row> rows;
  std::set<size_t> seen;
  auto add_variant = [&](size_t vi) {
    if (!seen.insert(vi).second) return;
    const diff::VariantDiff& v = res.variants[vi];
    Row row{vi, escape_control(r.variant_kernels[vi] + r.variant_labels[vi]), 0, 0,
            escape_control(r.variant_kernels[vi]), escape_control(r.variant_labels[vi]), "", 0};
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
    row.stages = stages;
    rows.push_back(std::move(row));
  };
  std::vector<std::string> order;
  for (const auto& k : r.kernels) order.push_back(k.kernel);
  for (const auto& k : order)
    for (size_t vi = 0; vi < res.variants.size(); ++vi)
      if (r.variant_kernels[vi] == k) add_variant(vi);
  return rows;
}

/// `s` cut to `width` columns by dropping its middle; the first `keep` bytes
/// stay when they fit (the items that tell a row from its kernel's others).
std::string fit(const std::string& s, size_t width, size_t keep = 0) {
  size_t w = display_width(s);
  if (w <= width) return s + std::string(width - w, ' ');
  if (width < 2) return std::string(width, '.');
  // Code point boundaries.
  std::vector<size_t> starts;
  for (size_t i = 0; i < s.size(); ++i)
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) starts.push_back(i);
  size_t head = (width - 1) / 2;
  if (keep) {
    size_t keep_points = std::lower_bound(starts.begin(), starts.end(), keep) - starts.begin();
    head = std::max(head, std::min(keep_points, width - 1));
  }
  size_t tail = width - 1 - head;
  return s.substr(0, starts[head]) + "…" + (tail ? s.substr(starts[starts.size() - tail]) : "");
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
  size_t max_change = 1, ins = 0, del = 0;
  for (const Row& row : rows) {
    max_change = std::max(max_change, row.added + row.removed);
    ins += row.added;
    del += row.removed;
  }
  const size_t width = std::max<size_t>(w.width, 40);
  const size_t number_width = std::to_string(max_change).size();
  size_t graph = 0, name_width = 0;
  // " name | count bars": 4 columns of separators, 1 after the count.
  auto lay_out = [&] {
    size_t name_max = 0;
    for (const Row& row : rows) name_max = std::max(name_max, display_width(row.name));
    graph = std::min<size_t>(max_change, 40);
    if (name_max + number_width + 5 + graph > width) {
      graph = std::min(graph, std::max<size_t>(6, width * 3 / 8 > number_width + 6 ? width * 3 / 8 - number_width - 6 : 6));
    }
    name_width = std::min(name_max, width - number_width - 5 - graph);
    return name_max;
  };
  if (lay_out() > name_width) {
    drop_shared_items(rows, name_width);
    lay_out();
  }
  std::string out;
  for (const Row& row : rows) {
    size_t plus = scale(row.added, graph, max_change);
    size_t minus = scale(row.removed, graph, max_change);
    std::string count = std::to_string(row.added + row.removed);
    // Appended piece by piece: `" " + std::string` trips a false GCC 12 -Wrestrict.
    out += ' ';
    out += fit(row.name, name_width, row.keep);
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

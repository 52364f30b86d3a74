// Hunk cutting; the worked example is in include/ksnap/diff/hunks.h.
#include "ksnap/diff/hunks.h"

#include <algorithm>

namespace ksnap::diff {

std::vector<HunkRange> hunk_ranges(std::span<const LineKind> kinds, uint32_t context) {
  std::vector<HunkRange> out;
  const size_t n = kinds.size();
  const size_t ctx = context;
  size_t k = 0, emitted_to = 0;
  while (k < n) {
    if (kinds[k] == LineKind::kContext) {
      ++k;
      continue;
    }
    size_t start = std::max(k >= ctx ? k - ctx : 0, emitted_to);
    size_t last_change = k;
    for (size_t end = k; end < n; ++end) {
      if (kinds[end] != LineKind::kContext) last_change = end;
      else if (end - last_change > 2 * ctx) break;
    }
    size_t end = std::min(n, last_change + 1 + ctx);
    out.push_back({start, end});
    emitted_to = end;
    k = end;
  }
  return out;
}

std::vector<Hunk> recut_hunk(const Hunk& h, uint32_t context) {
  std::vector<LineKind> kinds;
  kinds.reserve(h.lines.size());
  for (const DiffLine& l : h.lines) kinds.push_back(l.kind);
  std::vector<HunkRange> ranges = hunk_ranges(kinds, context);
  if (ranges.size() == 1 && ranges[0].begin == 0 && ranges[0].end == h.lines.size()) return {h};
  std::vector<Hunk> out;
  for (const HunkRange& r : ranges) {
    Hunk sub;
    sub.unit = h.unit;
    // Start lines: the first BASE / HEAD line number in the range; for a side
    // with no line in it, where the other side's lines would go.
    for (size_t i = r.begin; i < r.end; ++i) {
      const DiffLine& l = h.lines[i];
      if (!sub.base_start && l.base_line) sub.base_start = l.base_line;
      if (!sub.head_start && l.head_line) sub.head_start = l.head_line;
      if (l.kind != LineKind::kAdded) ++sub.base_count;
      if (l.kind != LineKind::kRemoved) ++sub.head_count;
      if (l.kind == LineKind::kRemoved && l.py_line >= 0) sub.py_lines_base.push_back(l.py_line);
      if (l.kind == LineKind::kAdded && l.py_line >= 0) sub.py_lines_head.push_back(l.py_line);
      sub.lines.push_back(l);
    }
    for (auto* v : {&sub.py_lines_base, &sub.py_lines_head}) {
      std::sort(v->begin(), v->end());
      v->erase(std::unique(v->begin(), v->end()), v->end());
    }
    out.push_back(std::move(sub));
  }
  return out;
}

}  // namespace ksnap::diff

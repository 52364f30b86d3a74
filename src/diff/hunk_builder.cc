// One unit's alignment into hunks; the contract is in hunk_builder.h.
#include "diff/hunk_builder.h"

#include <algorithm>
#include <unordered_map>

#include "diff/words.h"
#include "ksnap/diff/hunks.h"

namespace ksnap::diff {

using norm::Line;

namespace {

/// Replaces digit runs by one '9' so that changes differing only in constants
/// (tile sizes, offsets) share a signature.
void hash_masked(Hasher* h, std::string_view s) {
  std::string buf;
  buf.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] >= '0' && s[i] <= '9') {
      buf.push_back('9');
      while (i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '9') ++i;
    } else {
      buf.push_back(s[i]);
    }
  }
  h->update(buf);
}

}  // namespace

void HunkBuilder::emit(const std::string& unit, const LineSeq& B, const LineSeq& H,
                       const std::vector<Match>& m,
                       const std::vector<std::pair<uint32_t, uint32_t>>& hidden,
                       const std::vector<std::pair<uint32_t, uint32_t>>& edit_pairs) {
  std::vector<bool> hide_b(B.size(), false), hide_h(H.size(), false);
  for (const auto& [i, j] : hidden) hide_b[i] = hide_h[j] = true;
  std::vector<Edit> script;
  script.reserve(B.size() + H.size());
  uint32_t pb = 0, ph = 0;
  for (size_t k = 0; k <= m.size(); ++k) {
    uint32_t eb = k < m.size() ? m[k].first : static_cast<uint32_t>(B.size());
    uint32_t eh = k < m.size() ? m[k].second : static_cast<uint32_t>(H.size());
    for (uint32_t i = pb; i < eb; ++i)
      if (!hide_b[i]) script.push_back({Op::kDel, i, 0});
    for (uint32_t j = ph; j < eh; ++j)
      if (!hide_h[j]) script.push_back({Op::kIns, 0, j});
    if (k < m.size()) script.push_back({Op::kEqual, eb, eh});
    pb = eb + 1;
    ph = eh + 1;
  }
  std::unordered_map<uint32_t, uint32_t> pair_of_base, pair_of_head;
  for (const auto& [i, j] : edit_pairs) {
    if (i >= B.size() || j >= H.size()) continue;
    pair_of_base[i] = j;
    pair_of_head[j] = i;
  }
  // Hunks: runs of changes with `context` lines around, merged when close.
  std::vector<LineKind> kinds;
  kinds.reserve(script.size());
  for (const Edit& e : script)
    kinds.push_back(e.op == Op::kEqual ? LineKind::kContext
                    : e.op == Op::kDel ? LineKind::kRemoved
                                       : LineKind::kAdded);
  for (const HunkRange& r : hunk_ranges(kinds, context_))
    make_hunk(unit, B, H, script, r.begin, r.end, pair_of_base, pair_of_head);
}

void HunkBuilder::make_hunk(const std::string& unit, const LineSeq& B, const LineSeq& H,
                            const std::vector<Edit>& script, size_t start, size_t end,
                            const std::unordered_map<uint32_t, uint32_t>& pb,
                            const std::unordered_map<uint32_t, uint32_t>& ph) {
  Hunk hunk;
  hunk.unit = unit;
  bool first = true;
  for (size_t k = start; k < end; ++k) {
    const Edit& e = script[k];
    DiffLine dl;
    if (e.op == Op::kEqual) {
      const Line& bl = *B[e.b];
      dl.kind = LineKind::kContext;
      dl.text = bl.display;
      dl.base_line = bl.line_no;
      dl.head_line = H[e.h]->line_no;
      if (H[e.h]->display != bl.display) dl.head_text = H[e.h]->display;
      dl.py_line = bl.py_line;
    } else if (e.op == Op::kDel) {
      const Line& bl = *B[e.b];
      dl.kind = LineKind::kRemoved;
      dl.text = bl.display;
      dl.base_line = bl.line_no;
      dl.py_line = bl.py_line;
      auto it = pb.find(e.b);
      if (it != pb.end()) {
        std::vector<Span> ignore;
        word_highlights(bl.display, speller_.renamed(*H[it->second]).text, &dl.highlights, &ignore);
      }
      ++out_->lines_removed;
      note_change('-', bl.shape);
      if (bl.py_line >= 0) hunk.py_lines_base.push_back(bl.py_line);
    } else {
      const Line& hl = *H[e.h];
      dl.kind = LineKind::kAdded;
      Respelled rs = speller_.renamed(hl);
      dl.text = std::move(rs.text);
      dl.head_line = hl.line_no;
      dl.py_line = hl.py_line;
      auto it = ph.find(e.h);
      if (it != ph.end()) {
        std::vector<Span> ignore;
        word_highlights(B[it->second]->display, dl.text, &ignore, &dl.highlights);
      }
      if (!rs.subs.empty()) {
        dl.head_text = hl.display;
        dl.head_highlights = map_spans(dl.highlights, rs.subs);
      }
      ++out_->lines_added;
      note_change('+', hl.shape);
      if (hl.py_line >= 0) hunk.py_lines_head.push_back(hl.py_line);
    }
    if (first) {
      first = false;
      hunk.base_start = dl.base_line ? dl.base_line : 0;
      hunk.head_start = dl.head_line ? dl.head_line : 0;
    }
    if (!hunk.base_start && dl.base_line) hunk.base_start = dl.base_line;
    if (!hunk.head_start && dl.head_line) hunk.head_start = dl.head_line;
    if (dl.kind != LineKind::kAdded) ++hunk.base_count;
    if (dl.kind != LineKind::kRemoved) ++hunk.head_count;
    hunk.lines.push_back(std::move(dl));
  }
  for (auto* v : {&hunk.py_lines_base, &hunk.py_lines_head}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  out_->hunks.push_back(std::move(hunk));
}

void HunkBuilder::note_change(char kind, std::string_view shape) {
  ++changes_;
  char k[1] = {kind};
  signature_.update(std::string_view(k, 1));
  hash_masked(&signature_, shape);
  signature_.update("\n");
}

}  // namespace ksnap::diff

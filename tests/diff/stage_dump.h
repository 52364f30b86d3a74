// What structural_diff writes into a StageDiff, as one text: two runs gave
// the same output exactly when their dumps are equal (tests compare the
// equal-unit shortcut with the full alignment this way).
#pragma once

#include <string>

#include "ksnap/diff/result.h"

namespace ksnap::testing {

inline std::string dump_structural(const diff::StageDiff& sd) {
  std::string out;
  auto num = [&](int64_t v) { out += std::to_string(v); };
  auto spans = [&](const std::vector<diff::Span>& v) {
    for (const diff::Span& s : v) {
      out += ' ';
      num(s.begin);
      out += ':';
      num(s.end);
    }
  };
  out += '+';
  num(sd.lines_added);
  out += " -";
  num(sd.lines_removed);
  out += " sig ";
  out += std::to_string(sd.change_signature);
  out += " fallback [";
  out += sd.fallback;
  out += "]\n";
  for (const diff::Hunk& h : sd.hunks) {
    out += "@@ ";
    out += h.unit;
    for (uint32_t v : {h.base_start, h.base_count, h.head_start, h.head_count}) {
      out += ' ';
      num(v);
    }
    out += " py";
    for (int32_t p : h.py_lines_base) {
      out += ' ';
      num(p);
    }
    out += " /";
    for (int32_t p : h.py_lines_head) {
      out += ' ';
      num(p);
    }
    out += '\n';
    for (const diff::DiffLine& l : h.lines) {
      out += l.kind == diff::LineKind::kAdded ? '+' : l.kind == diff::LineKind::kRemoved ? '-' : ' ';
      out += l.text;
      out += " | ";
      out += l.head_text;
      for (int64_t v : {int64_t{l.base_line}, int64_t{l.head_line}, int64_t{l.py_line}}) {
        out += ' ';
        num(v);
      }
      out += " |";
      spans(l.highlights);
      out += " |";
      spans(l.head_highlights);
      out += '\n';
    }
  }
  return out;
}

}  // namespace ksnap::testing

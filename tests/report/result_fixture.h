// Test helper: small DiffResults built by hand (no engine, no corpus), with
// real IR lines of each dialect, for the report model and writer tests.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "ksnap/diff/result.h"

namespace ksnap::testing {

inline diff::DiffLine line(diff::LineKind kind, std::string text, uint32_t base_line,
                           uint32_t head_line, int32_t py = -1,
                           std::vector<diff::Span> highlights = {}) {
  diff::DiffLine l;
  l.kind = kind;
  l.text = std::move(text);
  l.base_line = base_line;
  l.head_line = head_line;
  l.py_line = py;
  l.highlights = std::move(highlights);
  return l;
}

/// A one-hunk changed stage: `context` lines before, then `removed`, `added`.
inline diff::StageDiff changed_stage(const std::string& stage, std::vector<std::string> context,
                                     std::vector<std::string> removed,
                                     std::vector<std::string> added, int32_t py = 10) {
  diff::StageDiff s;
  s.stage = stage;
  s.status = diff::ChangeStatus::kChanged;
  diff::Hunk h;
  h.unit = "@kernel";
  h.base_start = h.head_start = 1;
  uint32_t b = 1, hd = 1;
  for (auto& t : context) h.lines.push_back(line(diff::LineKind::kContext, t, b++, hd++, py));
  for (auto& t : removed) {
    h.lines.push_back(line(diff::LineKind::kRemoved, t, b++, 0, py + 1));
    h.py_lines_base.push_back(py + 1);
  }
  for (auto& t : added) {
    h.lines.push_back(line(diff::LineKind::kAdded, t, 0, hd++, py + 2));
    h.py_lines_head.push_back(py + 2);
  }
  h.base_count = b - 1;
  h.head_count = hd - 1;
  s.lines_removed = static_cast<uint32_t>(removed.size());
  s.lines_added = static_cast<uint32_t>(added.size());
  s.hunks.push_back(std::move(h));
  s.change_signature = 0x1234;
  return s;
}

inline diff::StageDiff unchanged_stage(const std::string& stage) {
  diff::StageDiff s;
  s.stage = stage;
  return s;
}

inline diff::VariantDiff variant(const std::string& kernel, const std::string& block,
                                 std::vector<diff::StageDiff> stages) {
  diff::VariantDiff v;
  v.key.kernel = kernel;
  v.key.constexprs["BLOCK"] = block;
  v.head_id = v.key.id();
  v.stages = std::move(stages);
  return v;
}

/// Recomputes summary and groups (kernel, stage, change signature) the way
/// the engine does, ranked by weight, so fixtures stay consistent.
inline void finish(diff::DiffResult* r) {
  r->summary.clear();
  r->groups.clear();
  for (const char* st : {"ttir", "ttgir", "llir", "ptx"}) {
    diff::StageSummary sum;
    sum.stage = st;
    for (const auto& v : r->variants)
      if (const diff::StageDiff* s = v.stage(st)) {
        uint32_t* slot[] = {&sum.unchanged, &sum.changed, &sum.added, &sum.removed};
        ++*slot[static_cast<int>(s->status)];
      }
    r->summary.push_back(sum);
  }
  for (size_t vi = 0; vi < r->variants.size(); ++vi)
    for (auto& s : r->variants[vi].stages) {
      if (s.status != diff::ChangeStatus::kChanged) continue;
      int32_t gi = -1;
      for (size_t k = 0; k < r->groups.size(); ++k)
        if (r->groups[k].kernel == r->variants[vi].key.kernel && r->groups[k].stage == s.stage &&
            r->groups[k].signature == s.change_signature)
          gi = static_cast<int32_t>(k);
      if (gi < 0) {
        diff::ChangeGroup g;
        g.kernel = r->variants[vi].key.kernel;
        g.stage = s.stage;
        g.signature = s.change_signature;
        g.lines_added = s.lines_added;
        g.lines_removed = s.lines_removed;
        gi = static_cast<int32_t>(r->groups.size());
        r->groups.push_back(g);
      }
      r->groups[gi].variants.push_back(vi);
      r->groups[gi].weight += s.lines_added + s.lines_removed;
    }
  std::stable_sort(r->groups.begin(), r->groups.end(),
                   [](const auto& a, const auto& b) { return a.weight > b.weight; });
  for (size_t gi = 0; gi < r->groups.size(); ++gi)
    for (size_t vi : r->groups[gi].variants)
      for (auto& s : r->variants[vi].stages)
        if (s.stage == r->groups[gi].stage && s.status == diff::ChangeStatus::kChanged &&
            s.change_signature == r->groups[gi].signature)
          s.group = static_cast<int32_t>(gi);
}

}  // namespace ksnap::testing

// report::cut_hunks: the one place that decides how much of a diff's kept
// hunks is shown (context, then a line cap). Table-driven: each case is an
// edit script spelled one character per line ('=' unchanged, '-' removed,
// '+' added, '|' a break between two hunks the diff kept apart), the context
// and line cap asked, and the hunks that must come back, spelled the same way.
#include <gtest/gtest.h>

#include <string>

#include "ksnap/diff/result.h"
#include "ksnap/report/report.h"

namespace ksnap::report {
namespace {

// Hunks from a script: BASE and HEAD line numbers counted from 1 (hunk
// breaks skip 10 lines on both sides, as a gap the diff did not keep).
diff::StageDiff stage_of(const std::string& script) {
  diff::StageDiff s;
  s.stage = "ttgir";
  s.status = diff::ChangeStatus::kChanged;
  uint32_t b = 1, h = 1;
  s.hunks.emplace_back();
  for (char c : script) {
    if (c == '|') {
      s.hunks.emplace_back();
      b += 10;
      h += 10;
      continue;
    }
    diff::Hunk& hk = s.hunks.back();
    diff::DiffLine l;
    l.kind = c == '=' ? diff::LineKind::kContext
             : c == '-' ? diff::LineKind::kRemoved
                        : diff::LineKind::kAdded;
    l.base_line = c == '+' ? 0 : b;
    l.head_line = c == '-' ? 0 : h;
    l.text = std::string(1, c) + std::to_string(c == '+' ? h : b);
    if (hk.lines.empty()) {
      hk.base_start = b;
      hk.head_start = h;
    }
    if (c != '+') ++b, ++hk.base_count;
    if (c != '-') ++h, ++hk.head_count;
    hk.lines.push_back(l);
  }
  return s;
}

// What was shown: hunks spelled as scripts, joined by '|'.
std::string shown(const HunkCut& cut) {
  std::string out;
  for (const HunkView& hv : cut.hunks) {
    if (!out.empty()) out += '|';
    for (size_t i = 0; i < hv.lines; ++i) {
      diff::LineKind k = hv.hunk->lines[i].kind;
      out += k == diff::LineKind::kContext ? '=' : k == diff::LineKind::kRemoved ? '-' : '+';
    }
  }
  return out;
}

struct Case {
  const char* name;
  const char* script;
  size_t context;
  size_t max_lines;
  const char* want;
  size_t lines_total;
  size_t lines_cut;
  bool copies;  ///< Whether any hunk had to be re-cut (HunkCut::recut set).
};

TEST(CutHunks, ContextThenLineCap) {
  const Case cases[] = {
      {"as kept", "===-+====-=", kUnlimited, kUnlimited, "===-+====-=", 11, 0, false},
      // The worked example of report.h.
      {"context 1 splits", "===-+====-=", 1, kUnlimited, "=-+=|=-=", 7, 0, true},
      {"context 1 then 5 lines", "===-+====-=", 1, 5, "=-+=|=", 7, 2, true},
      {"context 2 keeps one hunk", "===-+====-=", 2, kUnlimited, "==-+====-=", 10, 0, true},
      {"context 0", "===-+====-=", 0, kUnlimited, "-+|-", 3, 0, true},
      {"more context than kept: as kept", "=-=", 5, kUnlimited, "=-=", 3, 0, false},
      {"hunks kept apart stay apart", "=-=|=+=", 1, kUnlimited, "=-=|=+=", 6, 0, false},
      {"cap inside the first hunk", "=-=|=+=", kUnlimited, 2, "=-", 6, 4, false},
      {"cap of zero shows nothing", "=-=", kUnlimited, 0, "", 3, 3, false},
      {"only one of two hunks re-cut", "=-=|===+===", 1, kUnlimited, "=-=|=+=", 6, 0, true},
  };
  for (const Case& c : cases) {
    diff::StageDiff s = stage_of(c.script);
    HunkCut cut = cut_hunks(s, c.context, c.max_lines);
    EXPECT_EQ(shown(cut), c.want) << c.name;
    EXPECT_EQ(cut.lines_total, c.lines_total) << c.name;
    EXPECT_EQ(cut.lines_cut, c.lines_cut) << c.name;
    EXPECT_EQ(cut.recut != nullptr, c.copies) << c.name;
    // A hunk shown as kept is the diff's own, not a copy.
    for (const HunkView& hv : cut.hunks) {
      bool in_stage = hv.hunk >= s.hunks.data() && hv.hunk < s.hunks.data() + s.hunks.size();
      bool in_recut = cut.recut && hv.hunk >= cut.recut->data() &&
                      hv.hunk < cut.recut->data() + cut.recut->size();
      EXPECT_TRUE(in_stage != in_recut) << c.name;
    }
  }
}

TEST(CutHunks, ReCutHunksCarryTheirOwnStartLines) {
  // "===-+====-=": BASE lines 1..10, HEAD lines 1..9.
  diff::StageDiff s = stage_of("===-+====-=");
  HunkCut cut = cut_hunks(s, 1, kUnlimited);
  ASSERT_EQ(cut.hunks.size(), 2u);
  const diff::Hunk& a = *cut.hunks[0].hunk;
  const diff::Hunk& b = *cut.hunks[1].hunk;
  EXPECT_EQ(a.base_start, 3u);  // `=3`, `-4`, `+4`, `=5`
  EXPECT_EQ(a.base_count, 3u);
  EXPECT_EQ(a.head_start, 3u);
  EXPECT_EQ(a.head_count, 3u);
  EXPECT_EQ(b.base_start, 8u);  // `=8`, `-9`, `=10`
  EXPECT_EQ(b.base_count, 3u);
  EXPECT_EQ(b.head_start, 8u);
  EXPECT_EQ(b.head_count, 2u);
}

}  // namespace
}  // namespace ksnap::report

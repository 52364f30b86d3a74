// hunk_ranges / recut_hunk: the one function that cuts hunks from an edit
// script, table-driven.
#include "ksnap/diff/hunks.h"

#include <gtest/gtest.h>

#include <string>

namespace ksnap::diff {
namespace {

/// "==-+====+=" -> kinds ('=' context, '-' removed, '+' added).
std::vector<LineKind> kinds(const std::string& s) {
  std::vector<LineKind> out;
  for (char c : s)
    out.push_back(c == '=' ? LineKind::kContext : c == '-' ? LineKind::kRemoved : LineKind::kAdded);
  return out;
}

std::string ranges_text(const std::vector<HunkRange>& rs) {
  std::string out;
  for (const auto& r : rs)
    out.append("[").append(std::to_string(r.begin)).append(",").append(std::to_string(r.end)).append(")");
  return out;
}

TEST(HunkRanges, Table) {
  struct Case {
    std::string script;
    uint32_t context;
    std::string want;
  } cases[] = {
      {"", 3, ""},
      {"=====", 3, ""},
      {"==-+====+=", 1, "[1,5)[7,10)"},
      {"==-+====+=", 2, "[0,10)"},
      {"-", 3, "[0,1)"},
      {"-====+", 0, "[0,1)[5,6)"},
      {"-==+", 1, "[0,4)"},   // 2 unchanged lines = 2 * context: one hunk
      {"-===+", 1, "[0,2)[3,5)"},  // 3 unchanged lines > 2 * context: two hunks
      {"-====+", 1, "[0,2)[4,6)"},
      {"++++", 3, "[0,4)"},
  };
  for (const auto& c : cases)
    EXPECT_EQ(ranges_text(hunk_ranges(kinds(c.script), c.context)), c.want)
        << c.script << " context " << c.context;
}

TEST(RecutHunk, LessContextGivesSubHunksWithTheirOwnStarts) {
  Hunk h;
  h.unit = "k";
  // BASE lines 10.., HEAD lines 20..: = - + = = = = + =
  uint32_t b = 10, hd = 20;
  for (char c : std::string("=-+====+=")) {
    DiffLine l;
    l.kind = c == '=' ? LineKind::kContext : c == '-' ? LineKind::kRemoved : LineKind::kAdded;
    l.text = std::string(1, c);
    if (c != '+') l.base_line = b++;
    if (c != '-') l.head_line = hd++;
    l.py_line = c == '=' ? -1 : 7;
    h.lines.push_back(l);
  }
  h.base_start = 10;
  h.head_start = 20;
  std::vector<Hunk> subs = recut_hunk(h, 1);
  ASSERT_EQ(subs.size(), 2u);
  EXPECT_EQ(subs[0].lines.size(), 4u);  // = - + =
  EXPECT_EQ(subs[0].base_start, 10u);
  EXPECT_EQ(subs[0].base_count, 3u);
  EXPECT_EQ(subs[0].head_start, 20u);
  EXPECT_EQ(subs[0].head_count, 3u);
  EXPECT_EQ(subs[0].py_lines_base, std::vector<int32_t>{7});
  EXPECT_EQ(subs[1].lines.size(), 3u);  // = + =
  EXPECT_EQ(subs[1].base_start, 15u);
  EXPECT_EQ(subs[1].base_count, 2u);
  EXPECT_EQ(subs[1].head_start, 25u);
  EXPECT_EQ(subs[1].head_count, 3u);
  EXPECT_EQ(recut_hunk(h, 3).size(), 1u);
  EXPECT_EQ(recut_hunk(h, 3)[0].lines.size(), h.lines.size());
}

}  // namespace
}  // namespace ksnap::diff

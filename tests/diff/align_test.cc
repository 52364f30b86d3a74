#include "diff/align.h"

#include <gtest/gtest.h>

#include <string>

namespace ksnap::diff {
namespace {

std::vector<uint64_t> keys(const std::string& s) { return {s.begin(), s.end()}; }

/// Applies the alignment: the matched characters must be equal and the count
/// must be the LCS length.
TEST(AlignTest, Table) {
  struct Case {
    std::string a, b;
    size_t lcs;
  } cases[] = {
      {"", "", 0},
      {"abc", "", 0},
      {"", "abc", 0},
      {"abcd", "abcd", 4},
      {"abcd", "axcd", 3},
      {"abcd", "xabcd", 4},      // insertion at the front
      {"abcd", "abxcd", 4},      // insertion in the middle
      {"aaaa", "aa", 2},         // no unique anchors: exact LCS
      {"abcabc", "cbacba", 3},
      {"xyzabc", "abcxyz", 3},   // a move: one side of it matches
      {"abababab", "babababa", 7},
  };
  for (const auto& c : cases) {
    auto a = keys(c.a), b = keys(c.b);
    auto m = align(a, b);
    EXPECT_EQ(m.size(), c.lcs) << c.a << " / " << c.b;
    for (size_t k = 0; k < m.size(); ++k) {
      EXPECT_EQ(a[m[k].first], b[m[k].second]);
      if (k) {
        EXPECT_LT(m[k - 1].first, m[k].first);
        EXPECT_LT(m[k - 1].second, m[k].second);
      }
    }
  }
}

TEST(AlignTest, LargeGapWithoutAnchorsFallsBackToRarestKey) {
  std::vector<uint64_t> a(3000, 7), b(3000, 7);
  a[0] = 1;  // differing first keys so the prefix does not swallow everything
  b[0] = 2;
  a.back() = 3;
  b.back() = 4;
  // Exact LCS is over the cell limit; the rarest-key fallback still pairs them.
  EXPECT_EQ(align(a, b, /*dp_cell_limit=*/1000).size(), 2998u);
  EXPECT_EQ(align(a, b).size(), 2998u);
  // Nothing in common: nothing matched, whatever the size.
  std::vector<uint64_t> c(3000, 8);
  EXPECT_EQ(align(a, c, 1000).size(), 0u);
}

// A gap with no key unique to both sides, too big for an exact LCS, at the
// depth limit stays unmatched, and the limits say how much was given up.
TEST(AlignTest, GapLeftUnmatchedIsReported) {
  struct Case {
    std::vector<uint64_t> a, b;
    uint64_t cells;
    int depth;
    size_t matches;
    uint32_t gaps;
    uint64_t a_items, b_items;
  } cases[] = {
      // [A B A] vs [B A B]: A and B repeat on one side, no anchor; 9 cells.
      {{1, 2, 1}, {2, 1, 2}, 1, 0, 0, 1, 3, 3},
      // The same within the limits: the exact LCS (2 matches), nothing given up.
      {{1, 2, 1}, {2, 1, 2}, 16, 0, 2, 0, 0, 0},
      {{1, 2, 1}, {2, 1, 2}, 1, 64, 2, 0, 0, 0},  // depth left: rarest-key anchors
      // Unique anchors around the gap: only the gap itself is given up.
      {{9, 1, 2, 1, 8}, {9, 2, 1, 2, 8}, 1, 0, 2, 1, 3, 3},
      // Nothing in common is no limit: simply all removed and added.
      {{1, 1}, {2, 2}, 1, 0, 0, 0, 0, 0},
  };
  for (const Case& c : cases) {
    AlignLimits lim;
    lim.max_depth = c.depth;
    EXPECT_EQ(align(c.a, c.b, c.cells, &lim).size(), c.matches);
    EXPECT_EQ(lim.gaps, c.gaps);
    EXPECT_EQ(lim.a_items, c.a_items);
    EXPECT_EQ(lim.b_items, c.b_items);
    EXPECT_EQ(lim.any(), c.gaps != 0);
  }
}

}  // namespace
}  // namespace ksnap::diff

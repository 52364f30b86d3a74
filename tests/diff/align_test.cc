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

}  // namespace
}  // namespace ksnap::diff

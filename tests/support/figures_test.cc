// The range of resource figures and the saturating total (support/figures.h).
#include "ksnap/support/figures.h"

#include <gtest/gtest.h>

#include <climits>

namespace ksnap {
namespace {

TEST(FiguresTest, InRange) {
  const struct {
    int64_t v;
    bool in;
  } cases[] = {{0, true},           {227, true},         {kMaxFigure, true},
               {kMaxFigure + 1, false}, {-1, false},     {INT64_MIN, false},
               {INT64_MAX, false}};
  for (const auto& c : cases) EXPECT_EQ(figure_in_range(c.v), c.in) << c.v;
}

TEST(FiguresTest, SaturatingAddStopsAtInt64Max) {
  const struct {
    int64_t a, b, sum;
  } cases[] = {
      {0, 0, 0},
      {2, 3, 5},
      {kMaxFigure, kMaxFigure, 2 * kMaxFigure},
      {INT64_MAX - 1, 1, INT64_MAX},
      {INT64_MAX - 1, 2, INT64_MAX},
      {INT64_MAX, INT64_MAX, INT64_MAX},
  };
  for (const auto& c : cases) EXPECT_EQ(saturating_add(c.a, c.b), c.sum) << c.a << " + " << c.b;
  // 100,000 variants of the largest figure: the total stays defined.
  int64_t total = 0;
  for (int i = 0; i < 100000; ++i) total = saturating_add(total, kMaxFigure);
  EXPECT_EQ(total, INT64_MAX);
}

TEST(FiguresTest, OneMessageForEveryReader) {
  EXPECT_EQ(figure_range_message("shared", -1), "-1 is out of range for \"shared\" (0 to 2^48)");
  EXPECT_EQ(figure_range_message(".vgpr_count", INT64_MIN),
            "-9223372036854775808 is out of range for \".vgpr_count\" (0 to 2^48)");
}

}  // namespace
}  // namespace ksnap

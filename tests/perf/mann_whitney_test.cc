// Reference values: scipy 1.18.1 scipy.stats.mannwhitneyu(a, b,
// alternative="two-sided", method="exact" | "asymptotic", use_continuity=True).
#include "ksnap/perf/mann_whitney.h"

#include <gtest/gtest.h>

#include <vector>

namespace ksnap::perf {
namespace {

struct MwCase {
  const char* name;
  std::vector<double> a, b;
  double u_a;
  double p;
  bool exact;
};

class MannWhitney : public ::testing::TestWithParam<MwCase> {};

TEST_P(MannWhitney, MatchesScipy) {
  const MwCase& c = GetParam();
  MannWhitneyResult r = mann_whitney_u(c.a, c.b);
  EXPECT_DOUBLE_EQ(r.u_a, c.u_a);
  EXPECT_NEAR(r.p_value, c.p, 1e-12);
  EXPECT_EQ(r.exact, c.exact);
  // Swapping the samples mirrors U and keeps the two-sided p.
  MannWhitneyResult s = mann_whitney_u(c.b, c.a);
  EXPECT_DOUBLE_EQ(s.u_a, static_cast<double>(c.a.size() * c.b.size()) - c.u_a);
  EXPECT_NEAR(s.p_value, c.p, 1e-12);
}

std::vector<double> range(int n, double offset) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(i + offset);
  return v;
}

INSTANTIATE_TEST_SUITE_P(
    Table, MannWhitney,
    ::testing::Values(
        // Textbook: complete separation, 4 vs 4 -> 2 / C(8,4).
        MwCase{"separated_4_4",
               {1.1, 2.2, 3.3, 4.4},
               {5.5, 6.6, 7.7, 8.8},
               0,
               0.0285714285714286,
               true},
        MwCase{"separated_5_5", {1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}, 0, 0.00793650793650794, true},
        MwCase{"overlap_15_15", range(15, 0), range(15, 4.5), 55, 0.0164317222193857, true},
        MwCase{"interleaved_8_9",
               {3.1, 2.9, 3.5, 3.3, 3.0, 2.8, 3.6, 3.2},
               {3.25, 3.45, 3.05, 3.7, 3.65, 3.55, 3.15, 3.8, 3.35},
               17,
               0.074454956807898,
               true},
        // Ties: normal approximation with tie and continuity correction.
        MwCase{"ties_4_4", {1, 2, 2, 3}, {2, 3, 4, 5}, 2.5, 0.136658247738147, false},
        MwCase{"ties_10_10",
               {1, 2, 2, 3, 3, 3, 4, 4, 5, 6},
               {3, 4, 4, 5, 5, 5, 6, 6, 7, 8},
               17,
               0.01278339441356,
               false}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(MannWhitneyEdge, EmptyAndConstant) {
  std::vector<double> none, x = {1, 2, 3};
  EXPECT_DOUBLE_EQ(mann_whitney_u(none, x).p_value, 1.0);
  std::vector<double> same(10, 4.0);
  MannWhitneyResult r = mann_whitney_u(same, same);
  EXPECT_DOUBLE_EQ(r.p_value, 1.0);
  EXPECT_TRUE(r.has_ties);
}

TEST(MannWhitneyEdge, LargeSamplesUseNormalApproximation) {
  // 60 x 60 = 3600 > kMannWhitneyExactLimit; identical ranks pattern -> p ~ 1.
  std::vector<double> a = range(60, 0.25), b = range(60, 0.75);
  MannWhitneyResult r = mann_whitney_u(a, b);
  EXPECT_FALSE(r.exact);
  EXPECT_GT(r.p_value, 0.8);
  // A clear shift is highly significant.
  MannWhitneyResult s = mann_whitney_u(a, range(60, 30.5));
  EXPECT_LT(s.p_value, 1e-8);
}

TEST(MannWhitneyEdge, MinimumAttainableP) {
  EXPECT_NEAR(mann_whitney_min_p(3, 3), 0.1, 1e-12);  // 2 / 20
  EXPECT_NEAR(mann_whitney_min_p(4, 4), 2.0 / 70, 1e-12);
  EXPECT_DOUBLE_EQ(mann_whitney_min_p(1, 1), 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney_min_p(0, 5), 1.0);
}

}  // namespace
}  // namespace ksnap::perf

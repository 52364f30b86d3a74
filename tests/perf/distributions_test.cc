// Reference values: scipy 1.18.1 (scipy.stats.t / norm, scipy.special.betainc).
#include "ksnap/perf/distributions.h"

#include <gtest/gtest.h>

namespace ksnap::perf {
namespace {

struct BetaCase {
  double x, a, b, want;
};

class IncompleteBeta : public ::testing::TestWithParam<BetaCase> {};

TEST_P(IncompleteBeta, MatchesScipy) {
  const BetaCase& c = GetParam();
  EXPECT_NEAR(incomplete_beta(c.x, c.a, c.b), c.want, 1e-12);
}

INSTANTIATE_TEST_SUITE_P(Table, IncompleteBeta,
                         ::testing::Values(BetaCase{0.3, 2.5, 0.5, 0.018927124071945658},
                                           BetaCase{0.9, 10, 3, 0.889130022255},
                                           BetaCase{0.01, 0.5, 0.5, 0.06376856085851985},
                                           BetaCase{0.0, 2, 3, 0.0}, BetaCase{1.0, 2, 3, 1.0}));

struct TCase {
  double t, df, two_sided_p;
};

class StudentT : public ::testing::TestWithParam<TCase> {};

TEST_P(StudentT, TwoSidedP) {
  const TCase& c = GetParam();
  EXPECT_NEAR(student_t_two_sided_p(c.t, c.df), c.two_sided_p, 1e-10);
  EXPECT_NEAR(student_t_two_sided_p(-c.t, c.df), c.two_sided_p, 1e-10);
}

INSTANTIATE_TEST_SUITE_P(Table, StudentT,
                         ::testing::Values(TCase{2.228139, 10, 0.04999998745288254},
                                           TCase{1.5, 2.5, 0.24783645308629618},
                                           TCase{0.3, 40, 0.7657307167710191}, TCase{0.0, 5, 1.0}));

TEST(StudentT, Quantiles) {
  EXPECT_NEAR(student_t_quantile(0.975, 10), 2.228138851986274, 1e-9);
  EXPECT_NEAR(student_t_quantile(0.975, 3.7), 2.8675207071911895, 1e-9);
  EXPECT_NEAR(student_t_quantile(0.9, 57.9), 1.2963446935055325, 1e-9);
  EXPECT_NEAR(student_t_quantile(0.025, 10), -2.228138851986274, 1e-9);
}

TEST(Normal, CdfAndQuantile) {
  EXPECT_NEAR(normal_cdf(-3), 0.0013498980316300933, 1e-15);
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-12);
  EXPECT_NEAR(normal_quantile(1e-6), -4.753424308822899, 1e-9);
  EXPECT_NEAR(normal_quantile(0.5), 0.0, 1e-14);
}

}  // namespace
}  // namespace ksnap::perf

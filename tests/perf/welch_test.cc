// Reference values: scipy 1.18.1 scipy.stats.ttest_ind_from_stats(equal_var=False)
// on the lognormal moment-matched log means and sigmas, t.ppf for the CI.
#include "ksnap/perf/welch.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

namespace ksnap::perf {
namespace {

TEST(Welch, LognormalMomentMatch) {
  LogEstimate e = log_estimate_from_summary(SampleSummary{100, 5, 30});
  EXPECT_NEAR(e.mu, 4.603921745888798, 1e-12);
  EXPECT_NEAR(e.sigma, 0.049968792246633295, 1e-12);
  EXPECT_DOUBLE_EQ(e.n, 30);
  EXPECT_DOUBLE_EQ(log_estimate_from_summary(SampleSummary{0, 1, 30}).n, 0);
}

TEST(Welch, MatchesScipy) {
  WelchResult r = welch_log_test(log_estimate_from_summary({100, 5, 30}),
                                 log_estimate_from_summary({103, 5, 30}), 0.95);
  ASSERT_TRUE(r.valid);
  EXPECT_NEAR(r.t, 2.330237932192065, 1e-9);
  EXPECT_NEAR(r.df, 57.94952010679418, 1e-9);
  EXPECT_NEAR(r.p_value, 0.023297249275714423, 1e-10);
  EXPECT_NEAR(r.ratio, 1.0300737313745523, 1e-12);
  EXPECT_NEAR(r.lo, 1.004185599202494, 1e-9);
  EXPECT_NEAR(r.hi, 1.0566292654570646, 1e-9);
}

TEST(Welch, UnequalSizesFaster) {
  WelchResult r = welch_log_test(log_estimate_from_summary({9.7, 0.4, 800}),
                                 log_estimate_from_summary({9.3, 0.45, 600}), 0.95);
  ASSERT_TRUE(r.valid);
  EXPECT_NEAR(r.t, -17.29161158431672, 1e-8);
  EXPECT_NEAR(r.p_value / 7.877785151078488e-60, 1.0, 1e-6);
  EXPECT_LT(r.hi, 1.0);
}

TEST(Welch, DegenerateInputs) {
  LogEstimate one{1.0, 0.1, 1};
  LogEstimate two{1.0, 0.1, 5};
  EXPECT_FALSE(welch_log_test(one, two, 0.95).valid);
  LogEstimate exact_a{std::log(10.0), 0, 5}, exact_b{std::log(11.0), 0, 5};
  WelchResult r = welch_log_test(exact_a, exact_b, 0.95);
  ASSERT_TRUE(r.valid);
  EXPECT_DOUBLE_EQ(r.p_value, 0.0);
  EXPECT_NEAR(r.ratio, 1.1, 1e-12);
  EXPECT_DOUBLE_EQ(welch_log_test(exact_a, exact_a, 0.95).p_value, 1.0);
}

TEST(Welch, MedianEfficiencyWidensTheInterval) {
  LogEstimate b{std::log(100.0), 0.05, 30}, h{std::log(103.0), 0.05, 30};
  WelchResult mean_based = welch_log_test(b, h, 0.95);
  b.efficiency = h.efficiency = std::sqrt(std::numbers::pi / 2);
  WelchResult median_based = welch_log_test(b, h, 0.95);
  EXPECT_GT(median_based.p_value, mean_based.p_value);
  EXPECT_GT(median_based.hi - median_based.lo, mean_based.hi - mean_based.lo);
}

}  // namespace
}  // namespace ksnap::perf

#include "ksnap/perf/bootstrap.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ksnap::perf {
namespace {

TEST(Median, OddEvenEmpty) {
  std::vector<double> odd = {5, 1, 3}, even = {4, 1, 3, 2}, none;
  EXPECT_DOUBLE_EQ(median(odd), 3);
  EXPECT_DOUBLE_EQ(median(even), 2.5);
  EXPECT_TRUE(std::isnan(median(none)));
}

TEST(Ratio, OfMedians) {
  std::vector<double> base = {10, 11, 10, 12, 10}, head = {11, 12, 11, 13, 11};
  EXPECT_DOUBLE_EQ(ratio_of_medians(base, head), 1.1);
  std::vector<double> zero = {0, 0, 1};
  EXPECT_TRUE(std::isnan(ratio_of_medians(zero, head)));
}

TEST(SortedQuantile, LinearInterpolation) {
  std::vector<double> v = {1, 2, 3, 4, 5};
  EXPECT_DOUBLE_EQ(sorted_quantile(v, 0.0), 1);
  EXPECT_DOUBLE_EQ(sorted_quantile(v, 0.25), 2);
  EXPECT_DOUBLE_EQ(sorted_quantile(v, 0.9), 4.6);
  EXPECT_DOUBLE_EQ(sorted_quantile(v, 1.0), 5);
}

TEST(UniformIndex, StaysInRangeAndCoversIt) {
  std::mt19937_64 rng(1);
  std::vector<int> hits(7, 0);
  for (int i = 0; i < 7000; ++i) {
    size_t k = uniform_index(rng, 7);
    ASSERT_LT(k, 7u);
    ++hits[k];
  }
  for (int h : hits) EXPECT_GT(h, 800);
}

std::vector<double> noisy(double center, int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) {
    double u = static_cast<double>(rng() >> 11) / 9007199254740992.0;
    v.push_back(center * (1 + 0.02 * (u - 0.5)));
  }
  return v;
}

TEST(Bootstrap, DeterministicBySeed) {
  std::vector<double> base = noisy(100, 40, 1), head = noisy(103, 40, 2);
  BootstrapOptions o{1000, 0.95, 42};
  RatioInterval a = bootstrap_ratio_ci(base, head, o);
  RatioInterval b = bootstrap_ratio_ci(base, head, o);
  EXPECT_EQ(a.lo, b.lo);
  EXPECT_EQ(a.hi, b.hi);
  o.seed = 43;
  RatioInterval c = bootstrap_ratio_ci(base, head, o);
  EXPECT_TRUE(c.lo != a.lo || c.hi != a.hi);
}

TEST(Bootstrap, IntervalBracketsEstimateAndExcludesOneForAClearShift) {
  std::vector<double> base = noisy(100, 40, 1), head = noisy(103, 40, 2);
  RatioInterval ci = bootstrap_ratio_ci(base, head, {2000, 0.95, 7});
  EXPECT_NEAR(ci.ratio, ratio_of_medians(base, head), 1e-15);
  EXPECT_LE(ci.lo, ci.ratio);
  EXPECT_GE(ci.hi, ci.ratio);
  EXPECT_GT(ci.lo, 1.0);
  EXPECT_LT(ci.hi, 1.06);
  // Same distribution: the interval holds 1.
  RatioInterval same = bootstrap_ratio_ci(base, noisy(100, 40, 3), {2000, 0.95, 7});
  EXPECT_LT(same.lo, 1.0);
  EXPECT_GT(same.hi, 1.0);
  // Wider confidence, wider interval.
  RatioInterval wide = bootstrap_ratio_ci(base, head, {2000, 0.99, 7});
  EXPECT_LE(wide.lo, ci.lo);
  EXPECT_GE(wide.hi, ci.hi);
}

TEST(Bootstrap, NoResamplesOrNoDataGiveNaN) {
  std::vector<double> base = {1, 2, 3}, none;
  RatioInterval r = bootstrap_ratio_ci(base, base, {0, 0.95, 1});
  EXPECT_DOUBLE_EQ(r.ratio, 1.0);
  EXPECT_TRUE(std::isnan(r.lo));
  EXPECT_TRUE(std::isnan(bootstrap_ratio_ci(none, base, {100, 0.95, 1}).ratio));
}

}  // namespace
}  // namespace ksnap::perf

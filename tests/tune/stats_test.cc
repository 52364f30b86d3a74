#include "ksnap/tune/stats.h"

#include <gtest/gtest.h>

#include <vector>

namespace ksnap::tune {
namespace {

struct MedianCase {
  std::vector<double> in;
  double median;
  double trimmed;
};

TEST(Stats, MedianAndTrimmedMean) {
  const MedianCase cases[] = {
      {{}, 0, 0},
      {{5}, 5, 5},
      {{3, 1}, 2, 2},
      {{1, 2, 3, 4, 100}, 3, 3},                 // trim 1 each end: mean(2,3,4)
      {{10, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 5.5, 5.5},  // trim 2 each end: mean(3..8)
  };
  for (const auto& c : cases) {
    EXPECT_DOUBLE_EQ(median(c.in), c.median);
    std::vector<double> s = c.in;
    std::sort(s.begin(), s.end());
    EXPECT_DOUBLE_EQ(trimmed_mean_of_sorted(s, 0.2), c.trimmed);
  }
}

TEST(Stats, McKeanSchraderWorkedExample) {
  // The example at the top of stats.h.
  SortedSamples s;
  for (double x : {30.1, 30.4, 29.8, 72.4, 30.2, 30.0, 30.3, 29.9, 30.6}) s.add(x);
  Estimate e = s.estimate(Estimator::kMedian);
  EXPECT_EQ(e.n, 9u);
  EXPECT_DOUBLE_EQ(e.value, 30.2);
  EXPECT_NEAR(e.std_error, (30.6 - 29.9) / (2 * 1.959963984540054), 1e-12);
}

TEST(Stats, StandardErrorShrinksWithSamples) {
  // A deterministic spread: se(4n) should be about half of se(n).
  auto se_of = [](int n) {
    std::vector<double> v;
    for (int i = 0; i < n; ++i) v.push_back(100 + (i * 37 % n) * 10.0 / n);
    std::sort(v.begin(), v.end());
    return estimate_sorted(v, Estimator::kMedian).std_error;
  };
  double a = se_of(100), b = se_of(400);
  EXPECT_GT(a, 0);
  EXPECT_NEAR(b / a, 0.5, 0.08);
  std::vector<double> v(200);
  for (int i = 0; i < 200; ++i) v[i] = i;
  EXPECT_GT(estimate_sorted(v, Estimator::kTrimmedMean).std_error, 0);
}

TEST(Stats, FewSamplesAreUninformative) {
  std::vector<double> two = {10, 14};
  Estimate e = estimate_sorted(two, Estimator::kMedian);
  EXPECT_DOUBLE_EQ(e.value, 12);
  EXPECT_DOUBLE_EQ(e.std_error, 4);
}

TEST(Stats, ParseEstimator) {
  EXPECT_EQ(*parse_estimator("median"), Estimator::kMedian);
  EXPECT_EQ(*parse_estimator("trimmed_mean"), Estimator::kTrimmedMean);
  auto bad = parse_estimator("mean");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.status().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace ksnap::tune

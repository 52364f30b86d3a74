#include "ksnap/perf/compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace ksnap::perf {
namespace {

/// n samples around `center` with +-2% uniform noise and a rare 2x outlier.
std::vector<double> timings(double center, int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) {
    double u = static_cast<double>(rng() >> 11) / 9007199254740992.0;
    double x = center * (1 + 0.04 * (u - 0.5));
    if (i % 50 == 7) x *= 2;
    v.push_back(x);
  }
  return v;
}

BenchPoint samples_point(const std::string& name, std::vector<double> s,
                         const std::string& unit = "us") {
  BenchPoint p;
  p.id.name = name;
  p.samples = std::move(s);
  p.unit = unit;
  return p;
}

struct ChangeCase {
  const char* name;
  double base_center, head_center;
  int n;
  const char* unit;
  PerfChange want;
};

class SampleChanges : public ::testing::TestWithParam<ChangeCase> {};

TEST_P(SampleChanges, Decide) {
  const ChangeCase& c = GetParam();
  BenchResults base, head;
  ASSERT_TRUE(add_point(base, samples_point("k", timings(c.base_center, c.n, 1), c.unit)));
  ASSERT_TRUE(add_point(head, samples_point("k", timings(c.head_center, c.n, 2), c.unit)));
  auto out = compare_results(base, head, {});
  ASSERT_EQ(out.size(), 1u);
  const PointComparison& r = out[0];
  EXPECT_EQ(r.change, c.want) << perf_change_name(r.change) << " p=" << r.p_adjusted
                              << " ratio=" << r.ratio;
  EXPECT_EQ(r.method, TestMethod::kMannWhitney);
  EXPECT_EQ(r.n_base, static_cast<uint64_t>(c.n));
  EXPECT_NEAR(r.ratio, c.head_center / c.base_center, 0.01);
  EXPECT_LE(r.ci_lo, r.ratio);
  EXPECT_GE(r.ci_hi, r.ratio);
}

INSTANTIATE_TEST_SUITE_P(
    Table, SampleChanges,
    ::testing::Values(ChangeCase{"slower_5pct", 100, 105, 50, "us", PerfChange::kSlower},
                      ChangeCase{"faster_5pct", 100, 95, 50, "us", PerfChange::kFaster},
                      ChangeCase{"same", 100, 100, 50, "us", PerfChange::kNoChange},
                      // Significant with 2000 samples, but under the 1% threshold.
                      ChangeCase{"tiny_but_significant", 100, 100.5, 2000, "us",
                                 PerfChange::kNoChange},
                      // Throughput: a lower value is slower.
                      ChangeCase{"throughput_drop", 100, 95, 50, "TFLOPS", PerfChange::kSlower},
                      ChangeCase{"throughput_gain", 100, 105, 50, "GB/s", PerfChange::kFaster}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(Compare, TinyShiftIsSignificantButImmaterial) {
  BenchResults base, head;
  ASSERT_TRUE(add_point(base, samples_point("k", timings(100, 2000, 1))));
  ASSERT_TRUE(add_point(head, samples_point("k", timings(100.5, 2000, 2))));
  auto out = compare_results(base, head, {});
  EXPECT_LT(out[0].p_adjusted, 0.05);               // the test sees it ...
  EXPECT_EQ(out[0].change, PerfChange::kNoChange);  // ... the threshold drops it
  CompareOptions strict;
  strict.min_effect = 0;
  EXPECT_EQ(compare_results(base, head, strict)[0].change, PerfChange::kSlower);
}

TEST(Compare, CorrectionAcrossPoints) {
  // Each point alone: exact Mann–Whitney 4 vs 4 separated, p = 2/70 = 0.0286.
  BenchResults base, head;
  for (const char* name : {"a", "b"}) {
    ASSERT_TRUE(add_point(base, samples_point(name, {1.0, 1.1, 1.2, 1.3})));
    ASSERT_TRUE(add_point(head, samples_point(name, {2.0, 2.1, 2.2, 2.3})));
  }
  CompareOptions o;
  o.correction = Correction::kNone;
  auto none = compare_results(base, head, o);
  EXPECT_NEAR(none[0].p_adjusted, 2.0 / 70, 1e-12);
  EXPECT_EQ(none[0].change, PerfChange::kSlower);
  o.correction = Correction::kHolm;
  auto holm = compare_results(base, head, o);
  EXPECT_NEAR(holm[0].p_adjusted, 4.0 / 70, 1e-12);
  EXPECT_NEAR(holm[0].p_value, 2.0 / 70, 1e-12);
  EXPECT_EQ(holm[0].change, PerfChange::kNoChange);
  o.correction = Correction::kBenjaminiHochberg;
  EXPECT_EQ(compare_results(base, head, o)[1].change, PerfChange::kSlower);
}

TEST(Compare, BootstrapIsDeterministic) {
  BenchResults base, head;
  ASSERT_TRUE(add_point(base, samples_point("k", timings(100, 40, 1))));
  ASSERT_TRUE(add_point(head, samples_point("k", timings(103, 40, 2))));
  auto a = compare_results(base, head, {});
  auto b = compare_results(base, head, {});
  EXPECT_EQ(a[0].ci_lo, b[0].ci_lo);
  EXPECT_EQ(a[0].ci_hi, b[0].ci_hi);
  CompareOptions other;
  other.seed = 99;
  auto c = compare_results(base, head, other);
  EXPECT_TRUE(c[0].ci_lo != a[0].ci_lo || c[0].ci_hi != a[0].ci_hi);
}

TEST(Compare, SummariesUseWelchOnLogScale) {
  BenchResults base, head;
  BenchPoint b;
  b.id.name = "k";
  b.summary = SampleSummary{100, 5, 30};
  BenchPoint h = b;
  h.summary = SampleSummary{103, 5, 30};
  ASSERT_TRUE(add_point(base, b));
  ASSERT_TRUE(add_point(head, h));
  auto out = compare_results(base, head, {});
  EXPECT_EQ(out[0].method, TestMethod::kWelchLog);
  EXPECT_NEAR(out[0].p_value, 0.023297249275714423, 1e-10);  // scipy, see welch_test.cc
  EXPECT_NEAR(out[0].ratio, 1.0300737313745523, 1e-12);
  EXPECT_EQ(out[0].change, PerfChange::kSlower);
  EXPECT_EQ(out[0].n_head, 30u);
}

BenchPoint single_run(double v, std::optional<double> lo = {}, std::optional<double> hi = {}) {
  BenchPoint p;
  p.id.name = "mm";
  p.id.params = {{"N", "512"}, {"line", "Triton"}};
  p.samples = {v};
  p.from_perf_report = true;
  p.spread_lo = lo;
  p.spread_hi = hi;
  p.unit = "ms";
  return p;
}

struct InsufficientCase {
  const char* name;
  std::vector<double> base, head;
  const char* note_part;
};

class Insufficient : public ::testing::TestWithParam<InsufficientCase> {};

TEST_P(Insufficient, SaysWhy) {
  const InsufficientCase& c = GetParam();
  BenchResults base, head;
  ASSERT_TRUE(add_point(base, samples_point("k", c.base)));
  ASSERT_TRUE(add_point(head, samples_point("k", c.head)));
  auto out = compare_results(base, head, {});
  EXPECT_EQ(out[0].change, PerfChange::kInsufficientData);
  EXPECT_TRUE(std::isnan(out[0].p_adjusted));
  EXPECT_NE(out[0].note.find(c.note_part), std::string::npos) << out[0].note;
}

INSTANTIATE_TEST_SUITE_P(
    Table, Insufficient,
    ::testing::Values(InsufficientCase{"three_vs_three", {1, 2, 3}, {4, 5, 6}, "cannot reach"},
                      InsufficientCase{"zero_value", {0, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, "positive"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(Compare, PerfReportSingleRun) {
  BenchResults base, head;
  ASSERT_TRUE(add_point(base, single_run(1.00)));
  ASSERT_TRUE(add_point(head, single_run(1.10)));
  auto out = compare_results(base, head, {});
  EXPECT_EQ(out[0].change, PerfChange::kInsufficientData);
  EXPECT_NEAR(out[0].ratio, 1.10, 1e-12);  // still shown
  EXPECT_NE(out[0].note.find("no spread"), std::string::npos);
}

TEST(Compare, PerfReportSingleRunWithSpread) {
  BenchResults base, head;
  ASSERT_TRUE(add_point(base, single_run(1.00, 0.99, 1.01)));
  ASSERT_TRUE(add_point(head, single_run(1.10, 1.09, 1.11)));
  auto unknown_n = compare_results(base, head, {});
  EXPECT_EQ(unknown_n[0].change, PerfChange::kInsufficientData);
  EXPECT_NE(unknown_n[0].note.find("sample count is unknown"), std::string::npos);
  CompareOptions o;
  o.assumed_samples_per_point = 100;
  auto out = compare_results(base, head, o);
  EXPECT_EQ(out[0].method, TestMethod::kQuantileRange);
  EXPECT_EQ(out[0].change, PerfChange::kSlower);
  EXPECT_NEAR(out[0].ratio, 1.10, 1e-12);
  EXPECT_EQ(out[0].n_base, 100u);
}

TEST(Compare, PerfReportRepeatedRunsAreTested) {
  BenchResults base, head;
  for (double v : {1.00, 1.01, 0.99, 1.00, 1.02}) ASSERT_TRUE(add_point(base, single_run(v)));
  for (double v : {1.10, 1.11, 1.09, 1.12, 1.10}) ASSERT_TRUE(add_point(head, single_run(v)));
  auto out = compare_results(base, head, {});
  EXPECT_EQ(out[0].method, TestMethod::kMannWhitney);
  EXPECT_EQ(out[0].n_base, 5u);
  EXPECT_EQ(out[0].change, PerfChange::kSlower);
}

TEST(Compare, PointsOnOneSideOnly) {
  BenchResults base, head;
  ASSERT_TRUE(add_point(base, samples_point("gone", {1, 2, 3, 4, 5})));
  ASSERT_TRUE(add_point(head, samples_point("new", {1, 2, 3, 4, 5})));
  auto out = compare_results(base, head, {});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].label, "gone");
  EXPECT_EQ(out[0].note, "only in base results");
  EXPECT_EQ(out[0].n_head, 0u);
  EXPECT_EQ(out[1].label, "new");
  EXPECT_EQ(out[1].note, "only in head results");
  EXPECT_EQ(out[1].change, PerfChange::kInsufficientData);
}

TEST(Compare, SlowdownFollowsDirection) {
  PointComparison c;
  c.ratio = 0.8;
  c.direction = MetricDirection::kHigherIsBetter;
  EXPECT_DOUBLE_EQ(slowdown(c), 1.25);
  c.direction = MetricDirection::kLowerIsBetter;
  EXPECT_DOUBLE_EQ(slowdown(c), 0.8);
}

}  // namespace
}  // namespace ksnap::perf

namespace ksnap::perf {
namespace {

/// A side made of several runs, each `n` samples around its own center.
BenchResults runs_side(const std::vector<double>& centers, int n, uint64_t seed) {
  BenchResults r;
  for (size_t i = 0; i < centers.size(); ++i) {
    EXPECT_TRUE(add_point(r, samples_point("k", timings(centers[i], n, seed + i))));
  }
  return r;
}

TEST(CompareRuns, DriftBetweenRunsIsNotAChange) {
  // Same kernel, runs drifting by +-2%: pooled samples look "significantly"
  // different; the per-run medians do not.
  BenchResults base = runs_side({100, 102, 98.5, 101}, 400, 10);
  BenchResults head = runs_side({101.5, 99, 102.5, 100.5}, 400, 20);
  ASSERT_EQ(base.points[0].run_sizes, (std::vector<uint32_t>{400, 400, 400, 400}));
  auto out = compare_results(base, head, {});
  EXPECT_EQ(out[0].method, TestMethod::kRunMedians);
  EXPECT_EQ(out[0].n_base, 4u);
  EXPECT_EQ(out[0].change, PerfChange::kNoChange) << out[0].p_adjusted;
  CompareOptions pooled;
  pooled.test_run_medians = false;
  auto p = compare_results(base, head, pooled);
  EXPECT_EQ(p[0].method, TestMethod::kMannWhitney);
  EXPECT_EQ(p[0].n_base, 1600u);
  EXPECT_LT(p[0].p_adjusted, 0.05);
}

TEST(CompareRuns, ConsistentShiftAcrossRunsIsAChange) {
  BenchResults base = runs_side({100, 100.5, 99.5, 100.2}, 400, 10);
  BenchResults head = runs_side({105, 105.4, 104.6, 105.1}, 400, 20);
  auto out = compare_results(base, head, {});
  EXPECT_EQ(out[0].method, TestMethod::kRunMedians);
  EXPECT_EQ(out[0].change, PerfChange::kSlower);
  EXPECT_NEAR(out[0].ratio, 1.05, 0.005);
  EXPECT_LT(out[0].ci_lo, out[0].ratio);
  EXPECT_GT(out[0].ci_hi, out[0].ratio);
}

TEST(CompareRuns, RunsOfSlicesSamples) {
  BenchResults r = runs_side({1, 2}, 3, 1);
  auto runs = runs_of(r.points[0]);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].size(), 3u);
  EXPECT_EQ(runs[1][0], r.points[0].samples[3]);
  BenchPoint single = samples_point("s", {1, 2});
  EXPECT_EQ(runs_of(single).size(), 1u);
}

}  // namespace
}  // namespace ksnap::perf

// ksnap perf: decide, per benchmark point, whether performance changed
// between base and head.
//
// Worked example (lower is better, defaults alpha 0.05, min_effect 1%, Holm):
//
//   point  base samples (us)     head samples (us)      test     p     p_adj  ratio  change
//   A      31.1 30.9 31.0 ...    32.0 31.9 32.1 ...     MW       1e-9  3e-9   1.031  slower
//   B      50.2 49.9 50.1 ...    50.3 50.0 50.2 ...     MW       0.04  0.08   1.002  none
//   C      {mean 9.7,std .4,n 800} {mean 9.3,...,n 800} Welch    1e-30 ...    0.959  faster
//   D      0.031 (one run)       0.032 (one run)        -        -     -      1.032  insufficient
//
// Rule: a point changed when its adjusted p-value is below `alpha` AND the
// estimated ratio moves by at least `min_effect` (|ratio - 1| >= 1% by
// default): a significant 0.3% shift is "no measurable change". The
// direction (slower/faster) follows the metric's direction (time: a ratio
// above 1 is slower; throughput: below 1 is slower).
//
// Tests by input kind:
//   two or more runs of samples on both sides (several files per side, or
//     repeated rows) -> Welch's t on the log of the per-run medians: the
//     test sees the run-to-run variation that pooling all samples hides
//     (see docs/benchmarks-noise.md: back-to-back do_bench runs of the same
//     kernel drift by 1-8%, far more than the within-run spread suggests);
//   samples on both sides -> Mann–Whitney U (exact for small untied samples,
//     normal approximation with tie correction otherwise); ratio of medians
//     with a seeded percentile-bootstrap CI.
//   mean/std/n on either side -> Welch's t on the log scale (samples are
//     summarised first).
//   one perf_report run per side with <line>-min/-max and
//     `assumed_samples_per_point` > 0 -> the min/max are taken as do_bench's
//     20th/80th percentiles: sigma_log = ln(max/min) / (2 * 0.8416), the
//     value as the median, Welch on the log scale with the median's
//     efficiency sqrt(pi/2).
//   anything else (one value and no spread, a point on one side only, too
//     few samples to ever reach alpha, non-positive values) -> insufficient data.
// p-values are adjusted over every point that got a test (Holm by default).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ksnap/perf/bench_results.h"
#include "ksnap/perf/multiple_testing.h"

namespace ksnap::perf {

enum class PerfChange : uint8_t { kSlower, kFaster, kNoChange, kInsufficientData };

/// "slower", "faster", "no change", "insufficient data".
const char* perf_change_name(PerfChange c);

enum class TestMethod : uint8_t { kNone, kMannWhitney, kWelchLog, kQuantileRange, kRunMedians };

/// "none", "mann-whitney", "welch-log", "quantile-range", "run-medians".
const char* test_method_name(TestMethod m);

struct CompareOptions {
  double alpha = 0.05;
  /// Smallest |ratio - 1| reported as a change (practical threshold).
  double min_effect = 0.01;
  Correction correction = Correction::kHolm;
  /// Bootstrap resamples for the CI of the ratio of medians; 0 = no CI (the
  /// decision does not use the CI, only the estimate and the p-value).
  uint32_t bootstrap_resamples = 2000;
  double confidence = 0.95;
  uint64_t seed = 0x6b736e6170ULL;  ///< mixed with each point's label
  /// Direction for points whose unit does not say.
  MetricDirection default_direction = MetricDirection::kLowerIsBetter;
  /// perf_report single runs with -min/-max: do_bench's sample count per
  /// point, which the CSV does not record. 0 = unknown -> insufficient data.
  uint32_t assumed_samples_per_point = 0;
  /// With >= 2 runs of samples per side, test the per-run medians (true) or
  /// pool every sample into one Mann–Whitney test (false).
  bool test_run_medians = true;
};

/// The perf half of a verdict, for one benchmark point.
struct PointComparison {
  BenchPointId id;
  std::string label;  ///< format_point_label(id)
  std::string unit;
  MetricDirection direction = MetricDirection::kLowerIsBetter;
  TestMethod method = TestMethod::kNone;
  double ratio = 0;  ///< head / base of the statistic (median, or geometric mean); NaN if none
  double ci_lo = 0;  ///< confidence interval of `ratio`; NaN when not computed
  double ci_hi = 0;
  double p_value = 0;     ///< raw two-sided p; NaN when untested
  double p_adjusted = 0;  ///< after the correction over all tested points; NaN when untested
  uint64_t n_base = 0;    ///< samples (or runs, for kRunMedians)
  uint64_t n_head = 0;
  PerfChange change = PerfChange::kInsufficientData;
  std::string note;  ///< why the data is insufficient, or other caveats
};

/// Performance-normalized slowdown: time ratio for lower-is-better metrics,
/// 1/ratio for throughput. > 1 means head is slower.
double slowdown(const PointComparison& c);

/// Runs the per-point test without multiple-testing adjustment or decision:
/// fills method, ratio, CI, p_value, n_*, note (p_adjusted = p_value).
PointComparison test_point(const BenchPoint* base, const BenchPoint* head,
                           const CompareOptions& opts);

/// Sets `change` from p_adjusted, ratio and the options.
void decide_change(PointComparison& c, const CompareOptions& opts);

/// Compares every point of base and head (union of labels; base order
/// first, then head-only points), adjusts p-values, decides.
std::vector<PointComparison> compare_results(const BenchResults& base, const BenchResults& head,
                                             const CompareOptions& opts = {});

}  // namespace ksnap::perf

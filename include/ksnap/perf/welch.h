// ksnap perf: Welch's t-test on the log scale, for results that only give
// mean, std and n per point (and for a single perf_report run whose
// `-min`/`-max` columns give a spread).
//
// Worked example:
//
//   base {mean 100, std 5, n 30}, head {mean 103, std 5, n 30}
//   log scale (lognormal moment match): sigma^2 = ln(1 + (std/mean)^2),
//                                       mu = ln(mean) - sigma^2 / 2
//   base mu = 4.60392, sigma = 0.04997; head mu = 4.63355, sigma = 0.04852
//   t = (mu_h - mu_b) / sqrt(sb^2/nb + sh^2/nh) = 2.330, df = 57.95, p = 0.0233
//   ratio = exp(mu_h - mu_b) = 1.030 (a ratio of geometric means, which for
//   a lognormal is the ratio of medians), 95% CI exp(diff +- t_{0.975,df} se)
//   = 1.0042 .. 1.0566   (all figures as scipy.stats.ttest_ind_from_stats gives)
//
// Testing log values makes the result a ratio and copes with the right skew
// of GPU timings; it assumes roughly lognormal data within a point.
#pragma once

#include <cstdint>

#include "ksnap/perf/bench_results.h"

namespace ksnap::perf {

/// A point's location and spread on the natural-log scale.
struct LogEstimate {
  double mu = 0;     ///< estimate of the log location
  double sigma = 0;  ///< standard deviation of one log sample
  double n = 0;      ///< sample count (>= 2 for a test)
  /// Standard error = efficiency * sigma / sqrt(n); 1 for a mean,
  /// sqrt(pi/2) = 1.2533 for a median of normal data.
  double efficiency = 1;
};

/// Lognormal moment match of a linear-scale summary; requires mean > 0.
LogEstimate log_estimate_from_summary(const SampleSummary& s);

struct WelchResult {
  double t = 0;
  double df = 0;
  double p_value = 1;  ///< two-sided
  double ratio = 1;    ///< exp(mu_head - mu_base)
  double lo = 1, hi = 1;
  bool valid = false;  ///< false when n < 2 on a side or a scale is not positive
};

/// Two-sided Welch test of mu_head == mu_base with a `confidence` interval
/// of the ratio. Zero spread on both sides: p = 0 if the locations differ, 1
/// if they are equal.
WelchResult welch_log_test(const LogEstimate& base, const LogEstimate& head, double confidence);

}  // namespace ksnap::perf

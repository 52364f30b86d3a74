// ksnap perf: seeded percentile-bootstrap confidence interval of the ratio
// of medians, median(head) / median(base).
//
// Worked example:
//
//   base = {10, 11, 10, 12, 10}, head = {11, 12, 11, 13, 11}   (head ~10% slower)
//   ratio_of_medians(base, head)                     -> 11 / 10 = 1.10
//   bootstrap_ratio_ci(base, head, {2000, 0.95, 7})  -> {1.10, lo ~1.0, hi ~1.2}
//
// Each resample draws |base| values from base and |head| values from head
// with replacement (independently), and records the ratio of their medians;
// the interval is the (1-c)/2 and (1+c)/2 quantiles of those ratios (linear
// interpolation). The generator is std::mt19937_64, whose output the C++
// standard fixes, and indices are drawn by 128-bit multiply-shift, so a seed
// gives the same interval on every platform and compiler.
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace ksnap::perf {

/// Median (mean of the two middle values for even n). Empty -> NaN.
double median(std::span<const double> values);

/// median(head) / median(base); NaN when either is empty or base's median is 0.
double ratio_of_medians(std::span<const double> base, std::span<const double> head);

/// Uniform index in [0, n) from one draw of `rng` (multiply-shift; n >= 1).
size_t uniform_index(std::mt19937_64& rng, size_t n);

struct BootstrapOptions {
  uint32_t resamples = 2000;
  double confidence = 0.95;
  uint64_t seed = 0;
};

struct RatioInterval {
  double ratio = 0;  ///< point estimate (ratio of medians of the data)
  double lo = 0;
  double hi = 0;
};

/// Percentile bootstrap CI of median(head)/median(base). Deterministic for a
/// given seed. Empty samples or a zero median -> all fields NaN.
RatioInterval bootstrap_ratio_ci(std::span<const double> base, std::span<const double> head,
                                 const BootstrapOptions& opts);

/// Quantile q in [0,1] of sorted values (linear interpolation, "type 7").
double sorted_quantile(std::span<const double> sorted, double q);

}  // namespace ksnap::perf

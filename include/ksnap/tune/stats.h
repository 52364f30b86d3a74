// ksnap tune: robust location estimators and their standard errors.
//
// Kernel timings are skewed and carry outliers (a cold first launch, a clock
// dip, a preempted SM), so the autotuner compares variants by a robust
// location — the median, or a symmetric trimmed mean — never the plain mean.
// Each estimate comes with a distribution-free standard error so that a race
// can ask "is A slower than B?" with a known confidence.
//
// Worked example (median of 9 launch times, µs):
//   samples      = 30.1 30.4 29.8 72.4 30.2 30.0 30.3 29.9 30.6
//   sorted       = 29.8 29.9 30.0 30.1 30.2 30.3 30.4 30.6 72.4
//   median       = 30.2              (the 72.4 µs cold launch does not move it)
//   McKean–Schrader: c = round((n+1)/2 - 1.96*sqrt(n/4)) = round(5 - 2.94) = 2,
//   se = (x(n-c+1) - x(c)) / (2*1.96) = (30.6 - 29.9) / 3.92 = 0.18 µs.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "ksnap/support/status.h"

namespace ksnap::tune {

/// Which robust location the race compares.
enum class Estimator : unsigned char {
  kMedian,       ///< Sample median; standard error by McKean–Schrader order statistics.
  kTrimmedMean,  ///< 20% symmetric trimmed mean; standard error from the winsorized variance.
};

/// "median" / "trimmed_mean".
const char* estimator_name(Estimator e);
/// Parses "median" | "trimmed_mean" (also "trimmed"); kInvalidArgument otherwise.
Expected<Estimator> parse_estimator(std::string_view text);

/// A location estimate and its standard error (both in the samples' unit).
struct Estimate {
  double value = 0;
  double std_error = 0;
  size_t n = 0;
};

// The functions below take std::vector, not std::span: this header is part of
// the runtime's C++17 interface (docs/autotune.md, "C++17").

/// Median of `sorted` (ascending). Empty input gives 0.
double median_of_sorted(const std::vector<double>& sorted);

/// Median of unsorted `samples` (copies; O(n)). Empty input gives 0.
double median(const std::vector<double>& samples);

/// Mean of `sorted` after dropping floor(trim*n) values at each end.
/// `trim` in [0, 0.5). Empty input gives 0.
double trimmed_mean_of_sorted(const std::vector<double>& sorted, double trim = 0.2);

/// Estimate of `sorted` (ascending) by `e`. With fewer than 3 samples the
/// standard error is the whole range (deliberately uninformative).
Estimate estimate_sorted(const std::vector<double>& sorted, Estimator e);

/// Keeps samples sorted as they arrive (insertion into a sorted vector:
/// O(n) per insert, fine for the few hundred launches a race takes).
class SortedSamples {
 public:
  void add(double x);
  size_t size() const { return sorted_.size(); }
  bool empty() const { return sorted_.empty(); }
  const std::vector<double>& sorted() const { return sorted_; }
  Estimate estimate(Estimator e) const { return estimate_sorted(sorted_, e); }
  void clear() { sorted_.clear(); }

 private:
  std::vector<double> sorted_;
};

}  // namespace ksnap::tune

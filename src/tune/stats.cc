#include "ksnap/tune/stats.h"

#include <algorithm>
#include <cmath>

namespace ksnap::tune {

const char* estimator_name(Estimator e) {
  return e == Estimator::kMedian ? "median" : "trimmed_mean";
}

Expected<Estimator> parse_estimator(std::string_view text) {
  if (text == "median") return Estimator::kMedian;
  if (text == "trimmed_mean" || text == "trimmed") return Estimator::kTrimmedMean;
  return make_error(ErrorCode::kInvalidArgument,
                    "unknown estimator '" + std::string(text) + "' (median | trimmed_mean)");
}

double median_of_sorted(const std::vector<double>& s) {
  if (s.empty()) return 0;
  size_t n = s.size();
  return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

double median(const std::vector<double>& samples) {
  std::vector<double> v(samples.begin(), samples.end());
  std::sort(v.begin(), v.end());
  return median_of_sorted(v);
}

double trimmed_mean_of_sorted(const std::vector<double>& s, double trim) {
  if (s.empty()) return 0;
  size_t g = static_cast<size_t>(std::floor(trim * static_cast<double>(s.size())));
  if (2 * g >= s.size()) return median_of_sorted(s);
  double sum = 0;
  for (size_t i = g; i < s.size() - g; ++i) sum += s[i];
  return sum / static_cast<double>(s.size() - 2 * g);
}

namespace {

// McKean–Schrader (1984): the median's standard error from two order
// statistics symmetric about the middle; distribution-free, outlier-proof.
double median_std_error(const std::vector<double>& s) {
  const double z = 1.959963984540054;
  double n = static_cast<double>(s.size());
  long c = std::lround((n + 1) / 2 - z * std::sqrt(n / 4));
  c = std::clamp<long>(c, 1, static_cast<long>(s.size()));
  double lo = s[static_cast<size_t>(c - 1)];
  double hi = s[s.size() - static_cast<size_t>(c)];
  return (hi - lo) / (2 * z);
}

// Tukey–McLaughlin: se of the g-trimmed mean = s_w / ((1 - 2*trim) sqrt(n)),
// s_w the standard deviation of the winsorized sample.
double trimmed_std_error(const std::vector<double>& s, double trim) {
  size_t n = s.size();
  size_t g = static_cast<size_t>(std::floor(trim * static_cast<double>(n)));
  double lo = s[g], hi = s[n - 1 - g];
  double sum = 0, sum2 = 0;
  for (double x : s) {
    double w = std::clamp(x, lo, hi);
    sum += w;
    sum2 += w * w;
  }
  double mean = sum / static_cast<double>(n);
  double var = std::max(0.0, (sum2 - static_cast<double>(n) * mean * mean) /
                                 static_cast<double>(n - 1));
  return std::sqrt(var) / ((1 - 2 * trim) * std::sqrt(static_cast<double>(n)));
}

}  // namespace

Estimate estimate_sorted(const std::vector<double>& s, Estimator e) {
  Estimate out;
  out.n = s.size();
  if (s.empty()) return out;
  constexpr double kTrim = 0.2;
  out.value = e == Estimator::kMedian ? median_of_sorted(s) : trimmed_mean_of_sorted(s, kTrim);
  if (s.size() < 3) {
    out.std_error = s.back() - s.front();
    return out;
  }
  out.std_error = e == Estimator::kMedian ? median_std_error(s) : trimmed_std_error(s, kTrim);
  return out;
}

void SortedSamples::add(double x) {
  sorted_.insert(std::upper_bound(sorted_.begin(), sorted_.end(), x), x);
}

}  // namespace ksnap::tune

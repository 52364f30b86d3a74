#include "ksnap/perf/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ksnap::perf {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Median of `v` (reordered in place).
double median_in_place(std::vector<double>& v) {
  const size_t n = v.size();
  const size_t mid = n / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  double hi = v[mid];
  if (n % 2 == 1) return hi;
  double lo = *std::max_element(v.begin(), v.begin() + mid);
  return 0.5 * (lo + hi);
}

}  // namespace

double median(std::span<const double> values) {
  if (values.empty()) return kNaN;
  std::vector<double> v(values.begin(), values.end());
  return median_in_place(v);
}

double ratio_of_medians(std::span<const double> base, std::span<const double> head) {
  if (base.empty() || head.empty()) return kNaN;
  double b = median(base);
  if (b == 0) return kNaN;
  return median(head) / b;
}

size_t uniform_index(std::mt19937_64& rng, size_t n) {
  return static_cast<size_t>((static_cast<unsigned __int128>(rng()) * n) >> 64);
}

double sorted_quantile(std::span<const double> sorted, double q) {
  if (sorted.empty()) return kNaN;
  q = std::clamp(q, 0.0, 1.0);
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t i = static_cast<size_t>(std::floor(pos));
  if (i + 1 >= sorted.size()) return sorted.back();
  const double frac = pos - static_cast<double>(i);
  return sorted[i] + frac * (sorted[i + 1] - sorted[i]);
}

RatioInterval bootstrap_ratio_ci(std::span<const double> base, std::span<const double> head,
                                 const BootstrapOptions& opts) {
  RatioInterval out{kNaN, kNaN, kNaN};
  out.ratio = ratio_of_medians(base, head);
  if (std::isnan(out.ratio) || opts.resamples == 0) return out;
  std::mt19937_64 rng(opts.seed);
  std::vector<double> rb(base.size()), rh(head.size()), ratios;
  ratios.reserve(opts.resamples);
  for (uint32_t k = 0; k < opts.resamples; ++k) {
    for (double& x : rb) x = base[uniform_index(rng, base.size())];
    for (double& x : rh) x = head[uniform_index(rng, head.size())];
    const double mb = median_in_place(rb);
    if (mb == 0) continue;
    ratios.push_back(median_in_place(rh) / mb);
  }
  if (ratios.empty()) return out;
  std::sort(ratios.begin(), ratios.end());
  const double tail = (1 - opts.confidence) / 2;
  out.lo = sorted_quantile(ratios, tail);
  out.hi = sorted_quantile(ratios, 1 - tail);
  return out;
}

}  // namespace ksnap::perf

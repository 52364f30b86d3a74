#include "ksnap/perf/distributions.h"

#include <cmath>

namespace ksnap::perf {
namespace {

/// Continued fraction for I_x(a, b) (modified Lentz), valid for x < (a+1)/(a+b+2).
double beta_continued_fraction(double x, double a, double b) {
  constexpr double kTiny = 1e-300;
  constexpr double kEps = 1e-15;
  double c = 1.0;
  double d = 1.0 - (a + b) * x / (a + 1.0);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1.0 / d;
  double f = d;
  for (int m = 1; m <= 10000; ++m) {
    const double dm = m;
    // Even step.
    double num = dm * (b - dm) * x / ((a + 2 * dm - 1) * (a + 2 * dm));
    d = 1.0 + num * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + num / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    f *= d * c;
    // Odd step.
    num = -(a + dm) * (a + b + dm) * x / ((a + 2 * dm) * (a + 2 * dm + 1));
    d = 1.0 + num * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + num / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double delta = d * c;
    f *= delta;
    if (std::fabs(delta - 1.0) < kEps) break;
  }
  return f;
}

template <typename Cdf>
double invert_by_bisection(Cdf cdf, double p, double lo, double hi) {
  for (int i = 0; i < 200 && hi - lo > 1e-15 * (1 + std::fabs(lo)); ++i) {
    double mid = 0.5 * (lo + hi);
    if (cdf(mid) < p)
      lo = mid;
    else
      hi = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

double normal_quantile(double p) {
  if (p <= 0) return -38;
  if (p >= 1) return 38;
  return invert_by_bisection(normal_cdf, p, -38, 38);
}

double incomplete_beta(double x, double a, double b) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double log_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  const double front = std::exp(log_front);
  if (x < (a + 1) / (a + b + 2)) return front * beta_continued_fraction(x, a, b) / a;
  return 1.0 - front * beta_continued_fraction(1 - x, b, a) / b;
}

double student_t_two_sided_p(double t, double df) {
  if (!std::isfinite(t)) return 0;
  if (df <= 0) return 1;
  return incomplete_beta(df / (df + t * t), df / 2, 0.5);
}

double student_t_quantile(double p, double df) {
  if (p <= 0) return -INFINITY;
  if (p >= 1) return INFINITY;
  auto cdf = [df](double t) {
    double tail = 0.5 * student_t_two_sided_p(t, df);
    return t < 0 ? tail : 1 - tail;
  };
  double bound = 1e3;
  while (cdf(bound) < p && bound < 1e12) bound *= 10;
  while (cdf(-bound) > p && bound < 1e12) bound *= 10;
  return invert_by_bisection(cdf, p, -bound, bound);
}

}  // namespace ksnap::perf

#include "ksnap/perf/welch.h"

#include <cmath>

#include "ksnap/perf/distributions.h"

namespace ksnap::perf {

LogEstimate log_estimate_from_summary(const SampleSummary& s) {
  LogEstimate e;
  if (!(s.mean > 0)) return e;
  const double cv = s.std / s.mean;
  const double var = std::log1p(cv * cv);
  e.sigma = std::sqrt(var);
  e.mu = std::log(s.mean) - var / 2;
  e.n = static_cast<double>(s.n);
  return e;
}

WelchResult welch_log_test(const LogEstimate& base, const LogEstimate& head, double confidence) {
  WelchResult r;
  if (base.n < 2 || head.n < 2 || !(base.sigma >= 0) || !(head.sigma >= 0)) return r;
  const double vb = std::pow(base.efficiency * base.sigma, 2) / base.n;
  const double vh = std::pow(head.efficiency * head.sigma, 2) / head.n;
  const double diff = head.mu - base.mu;
  r.valid = true;
  r.ratio = std::exp(diff);
  const double se = std::sqrt(vb + vh);
  if (se == 0) {
    r.p_value = diff == 0 ? 1 : 0;
    r.df = base.n + head.n - 2;
    r.lo = r.hi = r.ratio;
    return r;
  }
  r.t = diff / se;
  r.df = (vb + vh) * (vb + vh) / (vb * vb / (base.n - 1) + vh * vh / (head.n - 1));
  r.p_value = student_t_two_sided_p(r.t, r.df);
  const double q = student_t_quantile(0.5 + confidence / 2, r.df);
  r.lo = std::exp(diff - q * se);
  r.hi = std::exp(diff + q * se);
  return r;
}

}  // namespace ksnap::perf

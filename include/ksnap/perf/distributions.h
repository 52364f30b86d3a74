// ksnap perf: the few distribution functions the change tests need.
//
// Worked example:
//
//   normal_cdf(1.959964)                 -> 0.975
//   normal_quantile(0.975)               -> 1.959964
//   student_t_two_sided_p(2.228139, 10)  -> 0.05      (t_{0.975, 10} = 2.228)
//   student_t_quantile(0.975, 10)        -> 2.228139
//
// The t distribution goes through the regularized incomplete beta function
// I_x(a, b), evaluated with Lentz's continued fraction (absolute error well
// below 1e-12 over the range used here). Quantiles invert the CDF by
// bisection: slow-ish (~200 CDF calls) but exact to double precision.
#pragma once

namespace ksnap::perf {

/// P(Z <= z) for a standard normal Z.
double normal_cdf(double z);

/// z with normal_cdf(z) = p, for 0 < p < 1 (clamped to +-38 at the ends).
double normal_quantile(double p);

/// Regularized incomplete beta I_x(a, b), a, b > 0, 0 <= x <= 1.
double incomplete_beta(double x, double a, double b);

/// P(|T| >= |t|) for Student's t with `df` > 0 degrees of freedom.
double student_t_two_sided_p(double t, double df);

/// t with P(T <= t) = p for Student's t with `df` degrees of freedom.
double student_t_quantile(double p, double df);

}  // namespace ksnap::perf

// ksnap perf: the Mann–Whitney U (Wilcoxon rank-sum) test, two-sided.
//
// Worked example (no ties, so the exact distribution is used):
//
//   a = {1.1, 2.2, 3.3, 4.4}, b = {5.5, 6.6, 7.7, 8.8}
//   ranks of a: 1+2+3+4 = 10, U_a = 10 - 4*5/2 = 0, U_b = 16
//   P(U <= 0) = 1 / C(8,4) = 1/70, two-sided p = 2/70 = 0.0286
//
// With ties (or when n_a * n_b > kExactLimit) the normal approximation is
// used: mean n_a n_b / 2, variance n_a n_b / 12 * ((N+1) - sum(t^3 - t) / (N(N-1)))
// over tie groups of size t, with a 0.5 continuity correction.
#pragma once

#include <cstdint>
#include <span>

namespace ksnap::perf {

struct MannWhitneyResult {
  double u_a = 0;      ///< U statistic of sample a: #(a_i > b_j) + 0.5 #(a_i == b_j)
  double z = 0;        ///< normal score (0 when exact)
  double p_value = 1;  ///< two-sided
  bool exact = false;  ///< exact null distribution used
  bool has_ties = false;
};

/// The exact distribution is used when there are no ties and n_a*n_b <= this.
inline constexpr uint64_t kMannWhitneyExactLimit = 2500;

/// Two-sided test that a and b come from the same distribution (location
/// shift alternative). Either sample empty -> p = 1.
MannWhitneyResult mann_whitney_u(std::span<const double> a, std::span<const double> b);

/// Smallest two-sided p-value attainable with sample sizes n_a, n_b (no ties):
/// 2 / C(n_a + n_b, n_a), capped at 1. A test that cannot reach alpha has
/// too little data.
double mann_whitney_min_p(uint64_t n_a, uint64_t n_b);

}  // namespace ksnap::perf

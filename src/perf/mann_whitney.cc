#include "ksnap/perf/mann_whitney.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "ksnap/perf/distributions.h"

namespace ksnap::perf {
namespace {

/// Cumulative null distribution of U for (n_a, n_b) without ties:
/// cdf[u] = P(U <= u). The counts are the coefficients of the Gaussian
/// binomial [n_a + n_b choose n_a]_q = prod_{i=1..n_a} (1 - q^{n_b+i}) / (1 - q^i).
const std::vector<double>& exact_cdf(uint64_t n_a, uint64_t n_b) {
  thread_local std::map<std::pair<uint64_t, uint64_t>, std::vector<double>> cache;
  auto key = std::make_pair(n_a, n_b);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  const size_t top = n_a * n_b;
  std::vector<double> c(top + 1, 0.0);
  c[0] = 1;
  for (uint64_t i = 1; i <= n_a; ++i) {
    const size_t up = n_b + i;
    // Multiply by (1 - q^up); coefficients above `top` are never needed
    // because the division below is a forward recurrence.
    for (size_t u = top; u >= up && u <= top; --u) c[u] -= c[u - up];
    // Divide by (1 - q^i): d[u] = c[u] + d[u - i].
    for (size_t u = i; u <= top; ++u) c[u] += c[u - i];
  }
  double total = 0;
  for (double& x : c) {
    x = std::max(0.0, std::round(x));  // counts are integers; undo rounding drift
    total += x;
  }
  double run = 0;
  for (double& x : c) {
    run += x;
    x = run / total;
  }
  if (cache.size() > 64) cache.clear();
  return cache.emplace(key, std::move(c)).first->second;
}

}  // namespace

double mann_whitney_min_p(uint64_t n_a, uint64_t n_b) {
  if (n_a == 0 || n_b == 0) return 1;
  // log C(n_a + n_b, n_a)
  double log_c = std::lgamma(static_cast<double>(n_a + n_b + 1)) -
                 std::lgamma(static_cast<double>(n_a + 1)) -
                 std::lgamma(static_cast<double>(n_b + 1));
  return std::min(1.0, 2.0 * std::exp(-log_c));
}

MannWhitneyResult mann_whitney_u(std::span<const double> a, std::span<const double> b) {
  MannWhitneyResult r;
  const uint64_t na = a.size(), nb = b.size();
  if (na == 0 || nb == 0) return r;
  // Pool with a tag, sort, assign midranks.
  std::vector<std::pair<double, bool>> pooled;  // (value, from_a)
  pooled.reserve(na + nb);
  for (double x : a) pooled.emplace_back(x, true);
  for (double x : b) pooled.emplace_back(x, false);
  std::sort(pooled.begin(), pooled.end(),
            [](const auto& l, const auto& r) { return l.first < r.first; });
  const double n = static_cast<double>(na + nb);
  double rank_sum_a = 0, tie_term = 0;
  for (size_t i = 0; i < pooled.size();) {
    size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double midrank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (size_t k = i; k < j; ++k) {
      if (pooled[k].second) rank_sum_a += midrank;
    }
    if (t > 1) {
      tie_term += t * t * t - t;
      r.has_ties = true;
    }
    i = j;
  }
  const double dna = static_cast<double>(na), dnb = static_cast<double>(nb);
  r.u_a = rank_sum_a - dna * (dna + 1) / 2;
  const double mean = dna * dnb / 2;

  if (!r.has_ties && na * nb <= kMannWhitneyExactLimit) {
    const std::vector<double>& cdf = exact_cdf(na, nb);
    const size_t u = static_cast<size_t>(std::llround(r.u_a));
    const double lower = cdf[u];                           // P(U <= u)
    const double upper = u == 0 ? 1.0 : 1.0 - cdf[u - 1];  // P(U >= u)
    r.exact = true;
    r.p_value = std::min(1.0, 2 * std::min(lower, upper));
    return r;
  }
  const double var = dna * dnb / 12 * ((n + 1) - tie_term / (n * (n - 1)));
  if (var <= 0) return r;  // all values equal: no evidence of a difference
  const double diff = r.u_a - mean;
  const double corrected = std::max(0.0, std::fabs(diff) - 0.5);
  r.z = (diff < 0 ? -corrected : corrected) / std::sqrt(var);
  r.p_value = std::min(1.0, 2 * normal_cdf(-std::fabs(r.z)));
  return r;
}

}  // namespace ksnap::perf

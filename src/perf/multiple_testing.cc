#include "ksnap/perf/multiple_testing.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ksnap::perf {

const char* correction_name(Correction c) {
  switch (c) {
    case Correction::kNone:
      return "none";
    case Correction::kHolm:
      return "holm";
    case Correction::kBenjaminiHochberg:
      return "bh";
  }
  return "?";
}

std::vector<double> adjust_p_values(std::span<const double> p, Correction c) {
  std::vector<double> out(p.begin(), p.end());
  std::vector<size_t> order;
  for (size_t i = 0; i < p.size(); ++i) {
    if (!std::isnan(p[i])) order.push_back(i);
  }
  const size_t m = order.size();
  if (c == Correction::kNone || m == 0) return out;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
  const double dm = static_cast<double>(m);
  if (c == Correction::kHolm) {
    double running = 0;
    for (size_t k = 0; k < m; ++k) {
      double adj = std::min(1.0, (dm - static_cast<double>(k)) * p[order[k]]);
      running = std::max(running, adj);
      out[order[k]] = running;
    }
  } else {
    double running = 1;
    for (size_t k = m; k-- > 0;) {
      double adj = std::min(1.0, dm / static_cast<double>(k + 1) * p[order[k]]);
      running = std::min(running, adj);
      out[order[k]] = running;
    }
  }
  return out;
}

}  // namespace ksnap::perf

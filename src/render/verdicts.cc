#include "render/verdicts.h"

#include <algorithm>

namespace ksnap::render {

namespace {

/// Most serious first: real regressions, then unexplained slowdowns, noise, ...
int severity(perf::VerdictKind k) {
  switch (k) {
    case perf::VerdictKind::kLikelyReal: return 0;
    case perf::VerdictKind::kSlowerIrUnknown: return 1;
    case perf::VerdictKind::kLikelyNoise: return 2;
    case perf::VerdictKind::kFaster: return 3;
    case perf::VerdictKind::kIrChangedNoPerfChange: return 4;
    case perf::VerdictKind::kInsufficientData: return 5;
    case perf::VerdictKind::kNoChange: return 6;
  }
  return 7;
}

}  // namespace

std::string verdict_counts_text(const perf::VerdictReport& v) {
  std::string out;
  for (size_t k = 0; k < perf::kVerdictKindCount; ++k) {
    if (!v.counts[k]) continue;
    if (!out.empty()) out += ", ";
    out += std::to_string(v.counts[k]) + " " + perf::verdict_name(static_cast<perf::VerdictKind>(k));
  }
  return out;
}

std::string verdict_lines(const perf::VerdictReport& v, size_t max_rows) {
  std::vector<const perf::PointVerdict*> rows;
  for (const auto& p : v.points) rows.push_back(&p);
  std::stable_sort(rows.begin(), rows.end(), [](const auto* a, const auto* b) {
    return severity(a->kind) < severity(b->kind);
  });
  std::string out;
  for (size_t i = 0; i < rows.size() && i < max_rows; ++i) {
    const auto& p = *rows[i];
    std::string name = perf::verdict_name(p.kind);
    name.resize(std::max<size_t>(name.size(), 26), ' ');
    out += "  " + name + " " + p.perf.label + ": " + perf::describe(p, v.options) + "\n";
  }
  if (rows.size() > max_rows) out += "  … " + std::to_string(rows.size() - max_rows) + " more points\n";
  return out;
}

}  // namespace ksnap::render

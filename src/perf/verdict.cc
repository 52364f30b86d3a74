#include "ksnap/perf/verdict.h"

#include <cmath>
#include <cstdio>

namespace ksnap::perf {
namespace {

std::string percent(double slowdown_ratio) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%+.1f%%", (slowdown_ratio - 1) * 100);
  return buf;
}

}  // namespace

const char* verdict_name(VerdictKind k) {
  switch (k) {
    case VerdictKind::kLikelyReal:
      return "likely real";
    case VerdictKind::kLikelyNoise:
      return "likely noise";
    case VerdictKind::kSlowerIrUnknown:
      return "slower (IR unknown)";
    case VerdictKind::kFaster:
      return "faster";
    case VerdictKind::kIrChangedNoPerfChange:
      return "IR changed, no perf change";
    case VerdictKind::kNoChange:
      return "no change";
    case VerdictKind::kInsufficientData:
      return "insufficient data";
  }
  return "?";
}

const char* verdict_id(VerdictKind k) {
  switch (k) {
    case VerdictKind::kLikelyReal:
      return "likely_real";
    case VerdictKind::kLikelyNoise:
      return "likely_noise";
    case VerdictKind::kSlowerIrUnknown:
      return "slower_ir_unknown";
    case VerdictKind::kFaster:
      return "faster";
    case VerdictKind::kIrChangedNoPerfChange:
      return "ir_changed_no_perf_change";
    case VerdictKind::kNoChange:
      return "no_change";
    case VerdictKind::kInsufficientData:
      return "insufficient_data";
  }
  return "?";
}

VerdictKind combine_verdict(PerfChange perf, PointIr ir) {
  switch (perf) {
    case PerfChange::kInsufficientData:
      return VerdictKind::kInsufficientData;
    case PerfChange::kFaster:
      return VerdictKind::kFaster;
    case PerfChange::kSlower:
      if (ir == PointIr::kChanged) return VerdictKind::kLikelyReal;
      if (ir == PointIr::kUnchanged) return VerdictKind::kLikelyNoise;
      return VerdictKind::kSlowerIrUnknown;
    case PerfChange::kNoChange:
      return ir == PointIr::kChanged ? VerdictKind::kIrChangedNoPerfChange : VerdictKind::kNoChange;
  }
  return VerdictKind::kInsufficientData;
}

std::string describe(const PointVerdict& v, const CompareOptions& opts) {
  const PointComparison& c = v.perf;
  std::string out = perf_change_name(c.change);
  if (!std::isnan(c.ratio) && c.ratio > 0) {
    out += ", slowdown " + percent(slowdown(c));
    if (!std::isnan(c.ci_lo) && c.ci_lo > 0) {
      // For throughput the slowdown interval is the reciprocal, reversed.
      const bool time = c.direction == MetricDirection::kLowerIsBetter;
      const double lo = time ? c.ci_lo : 1 / c.ci_hi, hi = time ? c.ci_hi : 1 / c.ci_lo;
      char conf[16];
      std::snprintf(conf, sizeof(conf), "%.0f%%", opts.confidence * 100);
      out += std::string(" (") + conf + " CI " + percent(lo) + ".." + percent(hi) + ")";
    }
  }
  char buf[96];
  if (!std::isnan(c.p_adjusted)) {
    std::snprintf(buf, sizeof(buf), ", p_adj %.2g", c.p_adjusted);
    out += buf;
  }
  std::snprintf(buf, sizeof(buf), ", n %llu/%llu", static_cast<unsigned long long>(c.n_base),
                static_cast<unsigned long long>(c.n_head));
  out += buf;
  if (c.method != TestMethod::kNone) out += std::string(", ") + test_method_name(c.method);
  if (!c.note.empty()) out += "; " + c.note;
  const Attribution& a = v.attribution;
  if (a.rule == MatchRule::kUnattributed) {
    out += "; unattributed";
  } else {
    out += std::string("; IR ") + point_ir_name(a.ir) + " in " + std::to_string(a.variants.size()) +
           " variant" + (a.variants.size() == 1 ? "" : "s") + " (" + match_rule_name(a.rule) + ")";
  }
  out += std::string(" -> ") + verdict_name(v.kind);
  return out;
}

VerdictReport make_verdicts(const BenchResults& base, const BenchResults& head,
                            std::span<const VariantInfo> variants, const CompareOptions& opts) {
  VerdictReport report;
  report.options = opts;
  Attributor attributor(variants);
  for (PointComparison& c : compare_results(base, head, opts)) {
    PointVerdict v;
    v.attribution = attributor.attribute(c.id);
    for (size_t i : v.attribution.variants) v.variant_ids.push_back(variants[i].key.id());
    v.kind = combine_verdict(c.change, v.attribution.ir);
    v.perf = std::move(c);
    ++report.counts[static_cast<size_t>(v.kind)];
    report.points.push_back(std::move(v));
  }
  return report;
}

}  // namespace ksnap::perf

// ksnap perf: combine the per-point performance decision with the IR diff
// into a verdict.
//
// Worked example (time metric):
//
//   perf change   point IR    verdict
//   slower        changed     likely real         "IR changed and it got slower"
//   slower        unchanged   likely noise        "slower, but no kernel it ran changed"
//   slower        unknown     slower (IR unknown) unattributed point
//   faster        any         faster              (IR status shown alongside)
//   no change     changed     IR changed, no measurable perf change
//   no change     unchanged/unknown  no change
//   insufficient  any         insufficient data
//
// Every verdict carries the ratio, its CI, the adjusted p-value and n_base /
// n_head (in `perf`), and the variants it was attributed to.
#pragma once

#include <array>
#include <span>
#include <string>
#include <vector>

#include "ksnap/perf/attribution.h"
#include "ksnap/perf/compare.h"

namespace ksnap::perf {

enum class VerdictKind : uint8_t {
  kLikelyReal,             ///< slower, and the IR of a kernel it ran changed
  kLikelyNoise,            ///< slower, but the IR of every kernel it ran is unchanged
  kSlowerIrUnknown,        ///< slower, point not attributed to any variant
  kFaster,                 ///< faster (see `attribution.ir` for the IR side)
  kIrChangedNoPerfChange,  ///< IR changed, no measurable change
  kNoChange,               ///< no measurable change, IR unchanged or unknown
  kInsufficientData,       ///< no test possible (see perf.note)
};
inline constexpr size_t kVerdictKindCount = 7;

/// "likely real", "likely noise", "slower (IR unknown)", "faster",
/// "IR changed, no perf change", "no change", "insufficient data".
const char* verdict_name(VerdictKind k);

/// Stable identifier for machine formats: "likely_real", "likely_noise",
/// "slower_ir_unknown", "faster", "ir_changed_no_perf_change", "no_change",
/// "insufficient_data".
const char* verdict_id(VerdictKind k);

/// The verdict table above.
VerdictKind combine_verdict(PerfChange perf, PointIr ir);

struct PointVerdict {
  PointComparison perf;
  Attribution attribution;
  std::vector<std::string> variant_ids;  ///< ids of attribution.variants
  VerdictKind kind = VerdictKind::kInsufficientData;
};

/// One line for people, e.g. "slower +3.1% (95% CI +2.4%..+3.9%, p_adj 2.1e-06,
/// n 100/100, mann-whitney); IR changed in 1 of 2 variants -> likely real".
std::string describe(const PointVerdict& v, const CompareOptions& opts);

struct VerdictReport {
  std::vector<PointVerdict> points;
  std::array<size_t, kVerdictKindCount> counts{};  ///< indexed by VerdictKind
  CompareOptions options;
};

/// compare_results + attribution + combine_verdict for every point.
VerdictReport make_verdicts(const BenchResults& base, const BenchResults& head,
                            std::span<const VariantInfo> variants, const CompareOptions& opts = {});

}  // namespace ksnap::perf

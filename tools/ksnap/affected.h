// `ksnap diff BASE HEAD --affected`: the benchmark points whose variants
// changed, so that a CI job reruns only those benchmarks.
//
// A capture attributes each variant to the benchmark points it was compiled
// or launched at (docs/capture.md: perf_report x values, autotune keys,
// pytest test ids, explicit ksnap_triton.benchmark_point labels). A point is
// affected when any variant attributed to it changed in any IR stage (text
// stages, `sass` included), or was added or removed. Example (text):
//
//   # 2 of 27 variants changed; 3 benchmark points affected
//   bench_suite.py	{"K": 512, "M": 512, "N": 512, "provider": "triton"}
//   bench_suite.py	{"test": "tests/test_softmax.py::test_softmax[4096]"}
//
// JSON (--format json): {"schema": "ksnap-affected", "schema_version": 1,
//   "variants": 27, "changed_variants": 2, "points": [{"script", "point",
//   "variants": [ids], "stages": [names]}], "unattributed": [ids]}
#pragma once

#include <string>
#include <vector>

#include "ksnap/diff/result.h"

namespace ksnap::cli {

struct AffectedPoint {
  std::string script;  ///< Benchmark script ("" when the capture did not record one).
  std::string point;   ///< The point as JSON text (or the string the capture recorded).
  std::vector<std::string> variants;  ///< Ids of the changed variants attributed to it.
  std::vector<std::string> stages;    ///< Stages that changed in those variants.
};

struct Affected {
  size_t variants = 0;
  size_t changed_variants = 0;
  std::vector<AffectedPoint> points;      ///< Sorted by script, then point.
  std::vector<std::string> unattributed;  ///< Changed variants with no recorded point.
};

/// The model: decided once from a diff result.
Affected affected_points(const diff::DiffResult& r);

std::string render_affected_text(const Affected& a);
std::string render_affected_json(const Affected& a);

}  // namespace ksnap::cli

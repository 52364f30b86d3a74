// Joins benchmark results to an IR diff: each diff variant becomes a
// perf::VariantInfo (its VariantKey, the benchmark script and points the
// capture recorded, IR status), then perf::make_verdicts decides per point.
#pragma once

#include <vector>

#include "ksnap/diff/result.h"
#include "ksnap/perf/verdict.h"

namespace ksnap::report {

/// The variants of `r` as the perf layer sees them.
std::vector<perf::VariantInfo> variant_infos(const diff::DiffResult& r);

/// Verdicts for every benchmark point of `base` / `head` against `r`.
perf::VerdictReport bench_verdicts(const diff::DiffResult& r, const perf::BenchResults& base,
                                   const perf::BenchResults& head,
                                   const perf::CompareOptions& opts = {});

}  // namespace ksnap::report

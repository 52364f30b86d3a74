// Internal: benchmark-noise verdicts as text blocks, for the renderers.
#pragma once

#include <string>

#include "ksnap/perf/verdict.h"

namespace ksnap::render {

/// Counts per verdict kind, "2 likely real, 5 likely noise, ..." ("" if none).
std::string verdict_counts_text(const perf::VerdictReport& v);

/// One line per point, most serious first: "likely real  matmul[M=512]  +3.1% ...".
std::string verdict_lines(const perf::VerdictReport& v, size_t max_rows);

}  // namespace ksnap::render

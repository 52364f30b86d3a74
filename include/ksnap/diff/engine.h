// ksnap diff engine: pairs the variants of two builds and compares each
// stage's normalized IR. Unchanged stages are decided by hash alone; changed
// ones get a structural diff (diff/structural.h).
#pragma once

#include <string>
#include <vector>

#include "ksnap/build/build.h"
#include "ksnap/diff/result.h"
#include "ksnap/normalize/normalize.h"
#include "ksnap/support/status.h"

namespace ksnap::diff {

/// What is computed (how it is shown is render::RenderOptions).
struct DiffOptions {
  norm::NormalizeOptions normalize;
  /// Stages to compare; empty = every text stage except "source".
  std::vector<std::string> stages;
  /// Only variants whose kernel name is in this list (empty = all).
  std::vector<std::string> kernels;
  /// Context lines kept around each change in hunks.
  uint32_t context = 3;
  /// Worker threads; 0 = one per core.
  unsigned jobs = 0;
};

/// Compares two loaded builds. A stage whose IR is malformed, unreadable or
/// cannot be diffed does not fail the comparison: its StageDiff::fallback
/// says why (with file:line:col for malformed IR) and its status is decided
/// by bytes or normalized hashes.
Expected<DiffResult> diff_builds(const build::Build& base, const build::Build& head,
                                 const DiffOptions& opts = {});

/// Loads both builds and compares them.
Expected<DiffResult> diff_paths(const std::string& base, const std::string& head,
                                const DiffOptions& opts = {});

}  // namespace ksnap::diff

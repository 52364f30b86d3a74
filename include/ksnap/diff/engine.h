// ksnap diff engine: pairs the variants of two builds and compares each
// stage's normalized IR. Unchanged stages are decided by hash alone; changed
// ones get a structural diff (diff/structural.h).
#pragma once

#include <functional>
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
  /// Unchanged lines the result keeps around each run of changes
  /// (StageDiff::hunks): the most context any report of this result can
  /// show. A bound on what the result holds, not a display choice: what is
  /// shown is report::ReportOptions::context, cut by report::cut_hunks.
  uint32_t kept_context = 3;
  /// Worker threads; 0 = one per core.
  unsigned jobs = 0;
  /// Called after each (variant, stage) comparison with (done, total), from
  /// worker threads one call at a time (never concurrently); may be empty.
  std::function<void(size_t done, size_t total)> progress;
};

/// Compares two loaded builds. A stage whose IR is malformed, unreadable or
/// cannot be diffed does not fail the comparison: its StageDiff::fallback
/// says why (with file:line:col for malformed IR) and its status is decided
/// by bytes or normalized hashes.
Expected<DiffResult> diff_builds(const build::Build& base, const build::Build& head,
                                 const DiffOptions& opts = {});

/// The same, for a caller that needs neither build afterwards (the CLI's
/// `ksnap diff`): each text stage file's path moves into its StageDiff
/// instead of being copied, and a variant's text stage files (paths, texts
/// held in memory) are freed as soon as its stages are compared, so that a
/// suite's files are not held twice at the peak. Each result variant's
/// identity moves out of its build variant (BASE's, HEAD's when added), and
/// a paired HEAD variant's identity is freed once read. The builds are left
/// valid but without variants (their other fields are kept).
Expected<DiffResult> diff_builds(build::Build&& base, build::Build&& head,
                                 const DiffOptions& opts = {});

/// Loads both builds and compares them.
Expected<DiffResult> diff_paths(const std::string& base, const std::string& head,
                                const DiffOptions& opts = {});

}  // namespace ksnap::diff

// Internal: change groups of the report and their reading order (see groups.cc).
#pragma once

#include <string>
#include <vector>

#include "ksnap/diff/result.h"
#include "ksnap/report/report.h"

namespace ksnap::report {

/// Fills rep->groups (split by kernel label and unstable flag, in reading
/// order), rep->kernels and rep->stage_groups. Needs rep->stages,
/// rep->variant_kernels and rep->options.
void build_groups(const diff::DiffResult& r, Report* rep);

/// Marks the first options.max_groups groups shown and cuts their hunks to
/// what is shown (none without show_diffs).
void select_hunks(const diff::DiffResult& r, Report* rep);

}  // namespace ksnap::report

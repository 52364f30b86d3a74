// Internal: fossil-db-style statistics of a diff result (see statistics.cc).
#pragma once

#include <string>
#include <vector>

#include "ksnap/diff/result.h"
#include "ksnap/report/report.h"

namespace ksnap::report {

/// "binary" (figures of the loaded kernel) when any variant has them, then
/// each of `stages` that has an affected variant.
std::vector<StageStatistics> compute_statistics(const diff::DiffResult& r,
                                                const std::vector<std::string>& stages);

}  // namespace ksnap::report

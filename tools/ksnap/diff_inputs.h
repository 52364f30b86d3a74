// What `ksnap diff BASE HEAD` accepts: two builds (capture folders, Triton
// cache folders, recorded commits), two IR files, or two plain folders of IR
// files; anything else is an error that says what would work.
//
//   ksnap diff base/ head/            two captures (or caches, or commits)
//   ksnap diff a.ttgir b.ttgir        one kernel, one stage
//   ksnap diff dump1/ dump2/          folders of k.ttgir, k.llir, ...: one
//                                     variant per file stem, one stage per
//                                     extension
#pragma once

#include <string>
#include <utility>

#include "ksnap/build/build.h"
#include "ksnap/support/status.h"

namespace ksnap::cli {

/// Loads both sides (concurrently for builds). Errors name the argument.
Expected<std::pair<build::Build, build::Build>> load_diff_inputs(const std::string& base,
                                                                 const std::string& head,
                                                                 const std::string& store);

}  // namespace ksnap::cli

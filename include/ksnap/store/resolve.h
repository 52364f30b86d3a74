// Turning a command-line argument into a Build: a capture or Triton cache
// folder, or a commit recorded in the history store. This is the hook that
// lets `ksnap diff SHA1 SHA2` (and `ksnap diff SHA ci/capture`) compare
// recorded commits.
//
//   resolve_build("ci/capture", ".ksnap/history.db")  -> build::load_build("ci/capture")
//   resolve_build("3f2a1b7", ".ksnap/history.db")      -> the recorded commit 3f2a1b7...
//   resolve_build("main", ".ksnap/history.db")         -> git rev-parse main, if recorded
#pragma once

#include <string>

#include "ksnap/build/build.h"
#include "ksnap/support/status.h"

namespace ksnap::store {

/// A folder loads as a build; anything else is looked up in the store at
/// `store_path` as a unique commit prefix, then (when `repo` is a git work
/// tree) as a git revision. Errors name the argument and the store.
Expected<build::Build> resolve_build(const std::string& arg, const std::string& store_path,
                                     const std::string& repo = ".");

/// resolve_build's commit lookup alone: the full recorded sha for `arg`.
Expected<std::string> resolve_commit(const std::string& arg, const std::string& store_path,
                                     const std::string& repo = ".");

}  // namespace ksnap::store

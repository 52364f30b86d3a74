// Internal: reading Triton's per-variant metadata and stage files.
#pragma once

#include <string>

#include "ksnap/build/build.h"
#include "ksnap/support/path_guard.h"

namespace ksnap::build {

/// Adds every `<kernel>.<stage>` file in folder `vdir` (relative to the
/// guard's root) to v->stages / binaries. An absent stage is skipped; a path
/// that leaves the root (through a link) or is not a regular file is an error.
Status collect_stage_files(PathGuard& guard, const std::string& vdir, const std::string& kernel,
                           Variant* v);

/// Orders v->stages by pipeline order.
void sort_stages(Variant* v);

/// Reads Triton's `<kernel>.json` at `rel` (relative to the guard's root),
/// when present, into v->compile_options and resource figures it records
/// (shared, tmem_size, scratch sizes). A missing file is fine; a malformed
/// one, or one that leaves the root, is an error naming it.
Status read_metadata(PathGuard& guard, const std::string& rel, Variant* v);

}  // namespace ksnap::build

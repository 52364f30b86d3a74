// Internal: reading Triton's per-variant metadata and stage files.
#pragma once

#include <string>

#include "ksnap/build/build.h"

namespace ksnap::build {

/// Adds every `<kernel>.<stage>` file found in `vdir` to v->stages / binaries.
void collect_stage_files(const std::string& vdir, const std::string& kernel, Variant* v);

/// Orders v->stages by pipeline order.
void sort_stages(Variant* v);

/// Reads Triton's `<kernel>.json` (when present) into v->compile_options and
/// resource figures it records (shared, tmem_size, scratch sizes). A missing
/// file is fine; a malformed one is an error naming it.
Status read_metadata(const std::string& path, Variant* v);

}  // namespace ksnap::build

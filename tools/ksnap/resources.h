// `ksnap show --format json`: a variant's resource figures, from the launch
// (the capture manifest and Triton's <kernel>.json) and from its cubin or
// hsaco (ksnap/binary), each with where it came from (docs/resources.md).
#pragma once

#include <nlohmann/json.hpp>

#include "ksnap/build/build.h"

namespace ksnap::cli {

/// Adds to `out` (the variant's show object):
///   "resources": the launch figures (n_regs, n_spills, shared, ...) with
///       n_regs / n_spills filled from the binary when the capture has none,
///       and every figure read from the binary (regs, local_bytes, vgprs, ...);
///   "resource_sources": figure name -> "launch" or "binary";
///   "occupancy": {value, unit, limited_by, target} when the target is known;
///   "resource_error": why the binary could not be read (show goes on).
void add_resources(const build::Variant& v, nlohmann::json* out);

}  // namespace ksnap::cli

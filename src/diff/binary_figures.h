// Resource figures read from the binaries of variants whose binary changed
// (build::variant_resources), merged into VariantDiff::resources. Internal to
// the diff engine.
//
// Worked example: BASE launched on an H200 (n_regs 168 from the driver),
// HEAD recompiled on a CPU runner (no launch figures) whose cubin changed:
//   v.resources         {"n_regs": (168, 255), "n_spills": (0, 22),
//                        "occupancy": (12, 8)}
//   v.resource_sources  {"n_regs": "launch|binary", "n_spills": "launch|binary",
//                        "occupancy": "binary"}
#pragma once

#include "ksnap/build/build.h"
#include "ksnap/diff/result.h"

namespace ksnap::diff {

/// For every paired variant of `r` whose cubin or hsaco changed, reads both
/// sides' figures and adds those the report ranks (kBinaryFigures) that the
/// launch did not record, plus "occupancy". A binary that cannot be read is
/// stated in VariantDiff::resource_error. Runs on `jobs` threads. A build
/// variant whose launch figures a consumed diff freed (an empty map) has
/// them read back from the variant's VariantDiff::resources.
void add_binary_figures(const build::Build& base, const build::Build& head, unsigned jobs,
                        DiffResult* r);

}  // namespace ksnap::diff

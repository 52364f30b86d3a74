// A variant's resource figures, from the launch and from its binary, without
// a GPU: what the capture recorded at launch (the manifest's n_regs,
// n_spills, ...; Triton's <kernel>.json: shared, ...) and what its cubin or
// hsaco holds (ksnap/binary), each with where it came from, and the
// occupancy those figures allow on the binary's target.
//
// Worked example, attn_fwd of a launched H200 capture:
//   auto r = build::variant_resources(v);
//   r.figures    {"n_regs": 227, "n_spills": 0, "shared": 66560, "regs": 227,
//                 "local_bytes": 0, "shared_static_bytes": 0, ...}
//   r.sources    {"n_regs": "launch", "regs": "binary", ...}
//   r.occupancy  {8, "warps per SM", "registers"}, r.target "sm_90"
// The same variant recompiled without a GPU has no launch figures:
// "n_regs" and "n_spills" then come from the binary (EIATTR_REGCOUNT and
// the local frame / 4, as Triton's launcher asks the driver), source
// "binary". docs/resources.md lists every figure.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "ksnap/binary/occupancy.h"
#include "ksnap/build/build.h"

namespace ksnap::build {

struct VariantResources {
  /// Every figure by name; a launch figure wins over a binary one of the same name.
  std::map<std::string, int64_t> figures;
  /// Figure name -> "launch" or "binary".
  std::map<std::string, std::string> sources;
  /// Warps per SM / waves per SIMD, when the target has a table
  /// (binary::target_limits) and the figures suffice.
  std::optional<binary::Occupancy> occupancy;
  std::string target;  ///< "sm_90", "gfx942", "" when no binary says.
  /// Why the binary's figures are missing ("" = read, or no binary): e.g.
  /// "x.cubin: invalid argument: kernel 'k' not found". The launch figures
  /// are still there.
  std::string error;
};

/// The figures of `v`. Never fails: a binary that cannot be read leaves the
/// launch figures and says why in `error`.
VariantResources variant_resources(const Variant& v);
/// The same with `launch` as the launch figures instead of v.resources (a
/// caller that freed them and kept a copy: the diff engine's consumed builds).
VariantResources variant_resources(const Variant& v,
                                   const std::map<std::string, int64_t>& launch);

}  // namespace ksnap::build

// ksnap tune: reading the compiled variants of one kernel from a ksnap
// capture (the corpus layout: manifest.json beside Triton's cache folders).
//
//   capture/manifest.json          {"format": "ksnap-capture", "format_version": 1,
//                                   "entries": [{"kernel": "matmul_kernel",
//                                     "constexprs": {"BLOCK_SIZE_M": 128, ...},
//                                     "options": {"num_warps": 8, "num_stages": 3},
//                                     "cache_dir": "MXSB...", ...}, ...]}
//   capture/cache/MXSB.../matmul_kernel.cubin   the binary
//   capture/cache/MXSB.../matmul_kernel.json    Triton's metadata: name, num_warps,
//        num_ctas, shared, global/profile_scratch_size/_align, cluster_dims, ...
//
// The manifest is read by capture::read_manifest (format and version
// checked, errors located). A kernel is its name and where it is defined
// (capture::VariantKey::source(): the module, or the script run as
// `__main__`): two scripts that both define `matmul_kernel` hold two kernels
// and give two autotune groups, never one. A kernel is named by a selector:
//   "matmul_kernel"              the only kernel of that name in the capture
//   "matmul_kernel@03-matmul.py" the one defined in a source ending in
//                                that tail (`a/03-matmul.py`, `suite_kernels`,
//                                or the whole path or module)
// A bare name that more than one kernel has is an error naming each, with
// the selector that picks it (`ksnap tune groups CAPTURE` lists them).
//
// Every entry of the kernel becomes one variant, in manifest order (the
// declaration order ties are broken by). Older captures without "format"
// (the shared corpus) are read the same way.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ksnap/capture/variant_key.h"
#include "ksnap/support/status.h"

namespace ksnap::tune {

/// The launch-relevant part of Triton's `<kernel>.json`.
struct TritonLaunchMeta {
  std::string name;  ///< the cubin's entry point
  int num_warps = 4;
  int num_ctas = 1;
  int cluster_dims[3] = {1, 1, 1};
  int64_t shared = 0;  ///< dynamic shared memory bytes
  int64_t global_scratch_size = 0, global_scratch_align = 1;
  int64_t profile_scratch_size = 0, profile_scratch_align = 1;
  bool launch_cooperative_grid = false;
  bool launch_pdl = false;
  std::string arch;  ///< "sm90"
  int threads_per_warp = 32;
};

struct CapturedVariant {
  std::string kernel;
  /// The variant's identity as the capture records it: kernel, source,
  /// signature, every constexpr and option (as JSON text, none dropped).
  capture::VariantKey identity;
  std::string label;  ///< "BLOCK_SIZE_M=128,BLOCK_SIZE_N=256,...,num_warps=8,num_stages=3"
  std::map<std::string, int64_t> constexprs;  ///< integer and boolean constexprs
  std::map<std::string, int64_t> options;     ///< integer compile options
  std::string cache_dir;
  TritonLaunchMeta meta;
  std::string cubin;  ///< bytes; empty when not requested
};

/// Parses Triton metadata JSON text (`name` for messages).
Expected<TritonLaunchMeta> parse_triton_meta(std::string_view text, const std::string& name);

/// One kernel of a capture: one autotune group.
struct CapturedKernel {
  std::string kernel;                 ///< Function name.
  std::string source;                 ///< capture::VariantKey::source() ("" = unknown).
  capture::SourceKind source_kind = capture::SourceKind::kUnknown;
  /// What load_capture_kernel takes to pick this kernel: the name when no
  /// other kernel of the capture has it, else `name@tail` with the shortest
  /// tail of the source that tells them apart (`matmul_kernel@a.py`).
  std::string selector;
  size_t variants = 0;  ///< Entries of the manifest that are variants of it.
};

/// The kernels of `capture_dir`, in the order of their first entry.
Expected<std::vector<CapturedKernel>> list_capture_kernels(const std::string& capture_dir);

/// Loads every variant of the kernel `selector` names (a name, or
/// `name@source-tail`) from `capture_dir`. Errors: kNotFound (no manifest,
/// no such kernel — the message lists the kernels there —, missing cubin),
/// kInvalidArgument (a selector that more than one kernel matches: the
/// message names each with its source and selector), kUnsupported (a
/// manifest format or version this ksnap does not read), kParseError with
/// file:line for malformed files.
Expected<std::vector<CapturedVariant>> load_capture_kernel(const std::string& capture_dir,
                                                           const std::string& selector,
                                                           bool read_cubins = true);

}  // namespace ksnap::tune

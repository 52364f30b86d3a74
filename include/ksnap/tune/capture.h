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
// Every entry of the kernel becomes one variant, in manifest order (the
// declaration order ties are broken by). Older captures without "format"
// (the shared corpus) are read the same way.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

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
  std::string label;  ///< "BLOCK_SIZE_M=128,BLOCK_SIZE_N=256,...,num_warps=8,num_stages=3"
  std::map<std::string, int64_t> constexprs;  ///< integer and boolean constexprs
  std::map<std::string, int64_t> options;     ///< integer compile options
  std::string cache_dir;
  TritonLaunchMeta meta;
  std::string cubin;  ///< bytes; empty when not requested
};

/// Parses Triton metadata JSON text (`name` for messages).
Expected<TritonLaunchMeta> parse_triton_meta(std::string_view text, const std::string& name);

/// Loads every variant of `kernel` from `capture_dir`. Errors: kNotFound
/// (no manifest, unknown kernel — the message lists the kernels there —,
/// missing cubin), kParseError with file:line for malformed files.
Expected<std::vector<CapturedVariant>> load_capture_kernel(const std::string& capture_dir,
                                                           const std::string& kernel,
                                                           bool read_cubins = true);

}  // namespace ksnap::tune

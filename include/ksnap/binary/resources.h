// Kernel resource figures read from a compiled binary, without a GPU: an
// NVIDIA cubin's `.nv.info` attributes and sections, or an AMD hsaco's code
// object metadata note. docs/resources.md says what each figure means.
//
//   auto r = binary::read_kernel_resources(bytes, "matmul_kernel", path);
//   r->figures  // {"regs": 207, "local_bytes": 0, "shared_static_bytes": 1024, ...}
//   r->n_regs   // what Triton's launcher reports as n_regs (see below)
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "ksnap/binary/elf.h"
#include "ksnap/support/figures.h"
#include "ksnap/support/status.h"

namespace ksnap::binary {

enum class Vendor : uint8_t { kNvidia, kAmd };

struct KernelResources {
  Vendor vendor = Vendor::kNvidia;
  /// "sm_90", "sm_80" (from the cubin's e_flags), "gfx942" (hsaco metadata
  /// target), "" when the binary does not say.
  std::string target;
  /// Every figure found, by name. NVIDIA: regs, local_bytes, stack_min_bytes,
  /// stack_max_bytes, crs_stack_bytes, shared_static_bytes, max_threads,
  /// reqntid, max_reg_count. AMD: vgprs, sgprs, agprs, vgpr_spills,
  /// sgpr_spills, lds_bytes, scratch_bytes, wavefront_size,
  /// max_flat_workgroup_size. A figure the binary does not hold is absent.
  std::map<std::string, int64_t> figures;
  /// Triton's launch-time figures, reproduced from the binary. Triton's
  /// driver.c asks the driver for CU_FUNC_ATTRIBUTE_NUM_REGS and
  /// CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES / 4 (HIP: HIP_FUNC_ATTRIBUTE_NUM_REGS
  /// and HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES / 4). The driver's NUM_REGS is
  /// EIATTR_REGCOUNT and its LOCAL_SIZE_BYTES the per-thread local frame
  /// (EIATTR_FRAME_SIZE); HIP's are the metadata's .vgpr_count and
  /// .private_segment_fixed_size. So n_regs = regs | vgprs and
  /// n_spills = local_bytes / 4 | scratch_bytes / 4 (integer division, as
  /// Triton does).
  std::optional<int64_t> n_regs;
  std::optional<int64_t> n_spills;
};

/// Reads the figures of `kernel` from a cubin or hsaco (told apart by
/// e_machine). Errors: not ELF, malformed ELF, kernel not found, malformed
/// `.nv.info` or metadata; each names `path` and the byte offset.
Expected<KernelResources> read_kernel_resources(std::string_view bytes, std::string_view kernel,
                                                const std::string& path);

/// The two readers behind read_kernel_resources, for an Elf already parsed.
Expected<KernelResources> read_cubin(const Elf& elf, std::string_view kernel);
Expected<KernelResources> read_hsaco(const Elf& elf, std::string_view kernel);

}  // namespace ksnap::binary

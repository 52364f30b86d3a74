// Occupancy from the figures a binary holds and the target's limits, the
// way the CUDA occupancy calculator (cuda_occupancy.h) and LLVM's AMDGPU
// backend (AMDGPUSubtarget::getOccupancyWith*) count it. No GPU is asked.
//
/// NVIDIA (sm_75 ... sm_90), per SM, for a block of W = ceil(threads / 32)
/// warps:
///   regs/warp      = roundup(regs * 32, 256)                (allocation unit)
///   blocks_regs    = floor(floor(regs_per_sm / 4 / regs/warp) * 4 / W)
///                    (4 sub-partitions, each with a quarter of the file)
///   smem/block     = roundup(shared_static + shared_dynamic + 1 KiB reserved, 128)
///   blocks_smem    = floor(shared_per_sm / smem/block)
///   blocks_warps   = floor(max_warps_per_sm / W)
///   blocks         = min(blocks_regs, blocks_smem, blocks_warps, max_blocks_per_sm)
///   warps per SM   = blocks * W; limited by the smallest term.
/// Worked example, attn_fwd on sm_90, 227 registers, num_warps 4, 64 KiB of
/// dynamic + 1 KiB of static shared: regs/warp = roundup(7264, 256) = 7424;
/// floor(16384 / 7424) = 2 warps per sub-partition, 8 per SM, 2 blocks;
/// smem/block = 67584, floor(233472 / 67584) = 3 blocks; floor(64 / 4) = 16;
/// 32 → 2 blocks = 8 warps per SM, limited by registers.
///
/// AMD gfx90a/gfx942 (CDNA2/3), waves per SIMD (4 SIMDs per CU), for a
/// workgroup of G = ceil(threads / 64) waves:
///   waves_vgpr = floor(512 / roundup(vgpr_count, 8)): one register file of
///                512 per lane shared by VGPRs and AGPRs (.vgpr_count already
///                counts both), granule 8
///   waves_sgpr = 10 / 9 / 8 / 7 for sgpr_count <= 80 / 88 / 100 / more (GFX9)
///   waves_lds  = floor(floor(65536 / lds) * G / 4)  (64 KiB of LDS per CU)
///   waves      = min(8, waves_vgpr, waves_sgpr, waves_lds)
/// Worked example, matmul_kernel on gfx942 with .vgpr_count 212 (148 VGPRs +
/// 64 AGPRs), 80 SGPRs, no LDS: floor(512 / 216) = 2 waves per SIMD, limited
/// by registers — what the compiler prints as "; Occupancy: 2".
///
/// Sources: CUDA C++ Programming Guide, "Compute Capabilities" table
/// (registers, warps, blocks and shared memory per SM); cuda_occupancy.h
/// (allocation units, sub-partitions, the reserved 1 KiB per block); LLVM
/// AMDGPUUsage and AMDGPUBaseInfo (VGPR granule and file size, SGPR steps,
/// LDS per CU, 8 waves per SIMD on gfx90a/gfx942).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ksnap/binary/resources.h"
#include "ksnap/support/status.h"

namespace ksnap::binary {

/// The per-SM (NVIDIA) or per-CU (AMD) limits of one target.
struct TargetLimits {
  std::string_view target;  ///< "sm_90", "gfx942".
  Vendor vendor;
  int64_t regs_per_unit;    ///< NVIDIA: registers per SM; AMD: VGPRs per lane per SIMD.
  int64_t reg_granule;      ///< NVIDIA: registers per warp allocation unit; AMD: VGPR granule.
  int64_t max_waves;        ///< NVIDIA: warps per SM; AMD: waves per SIMD.
  int64_t max_blocks;       ///< NVIDIA: blocks per SM; AMD: unused (0).
  int64_t shared_per_unit;  ///< Shared memory per SM / LDS per CU, bytes.
  int64_t reserved_shared;  ///< Bytes the driver reserves per block.
  int64_t shared_granule;   ///< Allocation unit of shared memory (1: none applied).
  int64_t wave_size;        ///< 32 or 64.
};

/// The limits of `target` ("sm_80", "sm_86", "sm_89", "sm_90", "sm_75",
/// "gfx90a", "gfx942"), or null when ksnap has no table for it.
const TargetLimits* target_limits(std::string_view target);

struct Occupancy {
  int64_t value = 0;       ///< Warps per SM (NVIDIA) or waves per SIMD (AMD).
  std::string unit;        ///< "warps per SM" or "waves per SIMD".
  std::string limited_by;  ///< "registers", "shared memory", "warps", "blocks", "sgprs", "lds".
};

/// Occupancy of a kernel with `r`'s figures launched with `threads` threads
/// per block and `dynamic_shared` bytes of dynamic shared memory / LDS.
/// Errors: no register figure, threads <= 0, a vendor/target mismatch.
Expected<Occupancy> occupancy(const KernelResources& r, const TargetLimits& t, int64_t threads,
                              int64_t dynamic_shared);

}  // namespace ksnap::binary

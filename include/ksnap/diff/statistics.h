// Statistics of one stage's normalized IR, the figures a compiler reviewer
// sums over affected variants (the Mesa shader-db / fossil-db habit):
// instruction count, lines, and for machine code (PTX, SASS, AMDGCN) the
// count per instruction class.
//
// Worked example, a PTX kernel body
//   ld.global.v4.b32 {%r1, %r2, %r3, %r4}, [%rd1];
//   fma.rn.f32 %r5, %r1, %r2, %r3;
//   st.shared.b32 [%r6], %r5;
//   bar.sync 0;
//   ret;
// gives {"instructions": 5, "lines": 5 + the lines that are not
// instructions, "class.global_mem": 1, "class.alu": 1, "class.shared_mem": 1,
// "class.control": 2}.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "ksnap/normalize/normalize.h"

namespace ksnap::diff {

/// Instruction classes of machine code, in report order.
inline constexpr const char* kInstructionClasses[] = {
    "global_mem",  ///< loads, stores and atomics of global memory; async copies to shared
    "shared_mem",  ///< shared-memory (LDS) loads, stores, atomics, ldmatrix
    "local_mem",   ///< thread-local memory: register spills (PTX .local, SASS LDL/STL, scratch)
    "tensor",      ///< matrix-multiply units: mma, wgmma, HMMA/HGMMA, v_mfma, v_wmma
    "control",     ///< branches, calls, returns, barriers, fences, waits
    "convert",     ///< type conversions: cvt, F2F/I2F, v_cvt
    "alu",         ///< everything else: arithmetic, logic, moves, compares
};

/// HEAD's count minus BASE's per op name (norm::op_counts), nonzero
/// entries only: StageDiff::op_deltas.
std::map<std::string, int64_t> op_count_deltas(const norm::Module& base, const norm::Module& head);

/// The class of instruction `op` in the machine code of `stage` ("ptx",
/// "sass", "amdgcn"); nullptr for other stages (IR, not machine code).
const char* instruction_class(std::string_view stage, std::string_view op);

/// Statistics of a normalized module of `stage`: "instructions" (lines with
/// an op), "lines" (significant lines after normalization) and, for machine
/// code, "class.<name>" for every class with at least one instruction.
std::map<std::string, int64_t> stage_statistics(const norm::Module& m, std::string_view stage);

}  // namespace ksnap::diff

// Which layer of the compiler owns a stage, and where a variant changed
// first: the stage nearest the source whose change is real (not known
// nondeterminism). The first changed stage points at the cause — a change
// seen first in PTX, with TTIR, TTGIR and LLVM IR identical, was made by
// LLVM's backend (or by its options), not by Triton's passes.
//
// Worked example (pipeline source → ttir → ttgir → llir → ptx → sass/cubin):
//   ttgir unchanged, llir changed, ptx changed  → first "llir", layer llvm-middle-end
//   text stages unchanged, cubin and n_spills changed → first "cubin", layer assembler
//   ttir changed (the kernel's source changed)  → first "ttir", layer triton
#pragma once

#include <cstdint>
#include <string_view>

#include "ksnap/diff/result.h"

namespace ksnap::diff {

enum class Layer : uint8_t {
  kTriton,         ///< source, TTIR, TTGIR: Triton's frontend and MLIR passes.
  kLlvmMiddleEnd,  ///< LLVM IR: Triton's lowering to LLVM and LLVM's optimizer.
  kLlvmBackend,    ///< PTX, AMDGCN, SPIR-V: LLVM's code generator (or the SPIR-V translator).
  kAssembler,      ///< SASS and binaries: ptxas, AMD's assembler and linker, ocloc.
  kOther,          ///< A stage ksnap does not know.
};

/// "triton", "llvm-middle-end", "llvm-backend", "assembler", "other"
const char* layer_name(Layer l);
/// "Triton's passes", "LLVM's middle end", "LLVM's backend", "the assembler", "an unknown stage"
const char* layer_prose(Layer l);
/// The layer that produces `stage` ("ttgir" → kTriton, "cubin" → kAssembler).
Layer stage_layer(std::string_view stage);

/// The earliest stage of `v` in pipeline order (build::kKnownStages, then
/// binaries) that changed for real: status changed, added or removed on a
/// paired variant, and not known unstable. A binary counts only when no text
/// stage changed and a figure of VariantDiff::resources differs (a cubin
/// also changes with line info alone). Null when nothing changed, or `v` is on one side only.
const StageDiff* first_changed_stage(const VariantDiff& v);

}  // namespace ksnap::diff

// Compiler nondeterminism check: two captures of the same build (the same
// suite compiled twice, in different processes, from empty Triton caches)
// should hold the same normalized IR for every variant-stage; those that do
// not are unstable. `ksnap check-determinism A B` prints the report;
// `ksnap capture --repeat N` writes it into the capture as unstable.json.
//
// Worked example (tests/diff/determinism_test.cc): A = examples/corpus/base,
// B = a copy whose attn_fwd LLVM IR has its two @global_smem buffer offsets
// (8192, 16384) swapped, as the warp-specialized persistent matmul of the
// Triton tutorials compiles them from identical sources in two processes:
//   check_determinism(A, B) -> variants_compared 8, stages_compared 40,
//     variants = [{attn_fwd{...}, stages: [{llir, +8 -8}]}], unpaired = []
#pragma once

#include <string>

#include "ksnap/build/build.h"
#include "ksnap/build/unstable.h"
#include "ksnap/diff/engine.h"
#include "ksnap/support/status.h"

namespace ksnap::diff {

/// Compares every text stage (`source` included) of every variant that both
/// builds compiled, by normalized IR (`o.normalize`; `o.stages`/`o.kernels`
/// narrow it). Variants compiled by one build only are listed as unpaired.
/// `runs` names the two builds in the report. Errors: as diff_builds.
Expected<build::UnstableReport> check_determinism(const build::Build& a, const build::Build& b,
                                                  const DiffOptions& o = {});

/// Adds `more` (another comparison against the same reference) to `into`:
/// the union of unstable stages per variant, runs appended after the first,
/// unpaired variants appended (their run index shifted).
void merge_unstable(build::UnstableReport* into, const build::UnstableReport& more);

}  // namespace ksnap::diff

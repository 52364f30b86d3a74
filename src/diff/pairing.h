// Pairing variants across two builds.
//
// Worked example. BASE has matmul_kernel{BLOCK_M: 128} with options
// {num_warps: 8}; HEAD, built with enable_fp_fusion=False passed explicitly,
// has the same kernel and constexprs with options {enable_fp_fusion: false,
// num_warps: 8}. Step 1 (exact identity) fails; step 2 pairs them because
// kernel + constexprs is unique on both sides, and reports the option change
// "enable_fp_fusion: true -> false" (from the recorded compile options).
//
// Steps, each over the variants the previous ones left:
//   1. exact: kernel + signature + constexprs + explicit options;
//   2. kernel + constexprs, when unique on both sides        -> options_differ;
//   3. bare caches (no constexprs): kernel + recorded num_warps/num_stages/
//      num_ctas + the same set of stages, when unique         -> inferred;
//   4. bare caches: remaining variants of one kernel by IR similarity of
//      their first stage (shape-set Jaccard, greedy)          -> inferred.
// Steps 3-4 pair two variants only when at least one of them has unknown
// constexprs (a bare cache): between capture folders a variant left over
// after steps 1-2 is removed or added, never "inferred" to be a variant of
// other constexprs (BLOCK_N 64 in BASE and BLOCK_N 32 in HEAD are two
// variants, however similar their IR).
// Never by Triton's cache hash (it changes with every Triton build).
#pragma once

#include <cstddef>
#include <vector>

#include "ksnap/build/build.h"
#include "ksnap/diff/result.h"

namespace ksnap::diff {

struct VariantPair {
  int base = -1;  ///< Index into base.variants, -1 = added.
  int head = -1;  ///< Index into head.variants, -1 = removed.
  Pairing kind = Pairing::kExact;
};

/// `similarity(b, h)` in [0,1] is consulted only for step 4.
using SimilarityFn = double (*)(const build::Variant& b, const build::Variant& h, void* ctx);

std::vector<VariantPair> pair_variants(const build::Build& base, const build::Build& head,
                                       SimilarityFn similarity = nullptr, void* ctx = nullptr);

/// Compile options that differ between two variants: explicit options, then
/// the options the compiler recorded.
std::vector<OptionChange> option_changes(const build::Variant& b, const build::Variant& h);

}  // namespace ksnap::diff

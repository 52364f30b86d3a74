// Pairing variants across two builds.
//
// Worked example. BASE has matmul_kernel{BLOCK_M: 128} with options
// {num_warps: 8}; HEAD, built with enable_fp_fusion=False passed explicitly,
// has the same kernel and constexprs with options {enable_fp_fusion: false,
// num_warps: 8}. Step 1 (exact identity) fails; step 2 pairs them because
// kernel + constexprs is unique on both sides, and reports the option change
// "enable_fp_fusion: true -> false" (from the recorded compile options).
//
// A variant's kernel is its name and where it is defined (Variant::source():
// the module, or the file of a `__main__` script). Before pairing variants,
// the kernels of one name are matched across builds: equal sources; then the
// longest common suffix of source components (`/ci/a/bench/x.py` continues
// as `/ci/b/bench/x.py`, not as `/ci/b/bench/y.py`) where it is the unique
// best on both sides; then the files matched as wholes, by that tail or by
// the set of kernel names each defines (renamed scripts); then the one source
// left on each side (a moved file).
// Variants pair only within one kernel: two scripts that both define
// `__main__.matmul_kernel` are two kernels, each paired with its own.
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
#include <string>
#include <vector>

#include "ksnap/build/build.h"
#include "ksnap/diff/result.h"

namespace ksnap::diff {

struct VariantPair {
  int base = -1;  ///< Index into base.variants, -1 = added.
  int head = -1;  ///< Index into head.variants, -1 = removed.
  Pairing kind = Pairing::kExact;
  /// The kernel's source as BASE spells it (HEAD's for a kernel BASE lacks):
  /// with the kernel name, the key of the kernel the variant belongs to.
  std::string source;
};

/// `similarity(b, h)` in [0,1] is consulted only for step 4.
/// Every variant of either build is in exactly one pair (diff_builds with
/// consumed builds moves each pair's identity out of its build variant).
using SimilarityFn = double (*)(const build::Variant& b, const build::Variant& h, void* ctx);

std::vector<VariantPair> pair_variants(const build::Build& base, const build::Build& head,
                                       SimilarityFn similarity = nullptr, void* ctx = nullptr);

/// Compile options that differ between two variants: explicit options, then
/// the options the compiler recorded.
std::vector<OptionChange> option_changes(const build::Variant& b, const build::Variant& h);

}  // namespace ksnap::diff

// `ksnap log`: the recorded commits where a kernel's normalized IR changed.
// History lives above both the store (commits, trees, variant records,
// blobs: persistence) and the diff engine (what changed): it walks the
// store's commits and runs the engine where blob ids differ.
//
// Worked example (bench/store_bench.cc). Commits c1..c50 are recorded along
// main; c37 took one matmul variant's TTGIR/LLIR/PTX from a pipeline without
// LICM. Walking first parents from c50, each pair (parent, child) is compared
// by blob id; equal ids mean equal normalized text, so 48 of the 49
// comparisons read no IR at all. Only (c36, c37) differs; for it the diff
// engine runs on matmul_kernel alone:
//   kernel_log(store, {.kernel = "matmul_kernel"})
//     -> one LogEntry: c37 vs c36, matmul_kernel, 1 of 8 variants changed,
//        stages ttgir +2 -2, llir +1 -1, ptx +1 -1
// and format_log_line() prints one line (wrapped here):
//   5eed00250000 2024-12-02 matmul_kernel {"BLOCK_SIZE_K": 64, ...} {"num_stages": 3,
//   "num_warps": 8}: ttgir +2 -2, llir +1 -1, ptx +1 -1  matmul: pipeline without LICM
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ksnap/store/store.h"
#include "ksnap/support/status.h"

namespace ksnap::history {

using store::CommitInfo;
using store::Store;

struct LogQuery {
  std::string kernel;      ///< Only this kernel ("" = every kernel).
  std::string stage;       ///< Only this stage ("" = every stage but "source").
  std::string from;        ///< Commit to walk back from (prefix ok); "" = the last recorded.
  std::string repo = ".";  ///< Git work tree used to bridge unrecorded first parents; "" = none.
  size_t max_count = 0;    ///< Stop after this many entries (0 = all).
  bool summaries = true;   ///< Run the diff engine for lines added/removed.
  /// Called after each recorded commit the walk compares: (commits walked,
  /// commits recorded — an upper bound of the walk). Optional.
  std::function<void(size_t done, size_t total)> progress;
};

struct StageChange {
  std::string stage;
  size_t variants = 0;  ///< Variants whose normalized IR of this stage changed.
  uint32_t lines_added = 0, lines_removed = 0;  ///< Summed over them (0 without summaries).
  /// Variants whose text of this stage differs but the store knows the stage
  /// to compile nondeterministically (Store::unstable): not in `variants`,
  /// nor in the line counts.
  size_t unstable = 0;
};

struct KernelChange {
  std::string kernel;
  size_t variants_total = 0;         ///< The kernel's variants in the child commit.
  std::vector<std::string> changed;  ///< Variant ids changed (incl. added/removed).
  /// VariantKey::label() of each of `changed`, same order (how `diff` shows them).
  std::vector<std::string> changed_labels;
  /// Variant ids whose every differing stage is known unstable (not in
  /// `changed`): compiler nondeterminism, not a change of the commit.
  std::vector<std::string> unstable;
  size_t added = 0, removed = 0;     ///< Variants only in child / only in parent.
  std::vector<StageChange> stages;   ///< Pipeline order.
};

struct LogEntry {
  CommitInfo commit;   ///< The child.
  std::string parent;  ///< The recorded commit it was compared with.
  std::vector<KernelChange> kernels;
};

/// Newest first. Errors: kNotFound (empty store, unknown --from), store errors,
/// malformed stored IR while summarizing (naming the stored path).
Expected<std::vector<LogEntry>> kernel_log(Store& store, const LogQuery& q);

/// "<sha12> <YYYY-MM-DD> <kernel> <variants>: <stage> +a -r, ...  <subject>";
/// known-unstable stages read "<stage> unstable x<n>" (or "(+n unstable)"
/// after a real change), and a kernel with only those says "unstable only".
std::string format_log_line(const LogEntry& e, const KernelChange& k);

}  // namespace ksnap::history

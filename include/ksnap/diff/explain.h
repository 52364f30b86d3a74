// ksnap explain: which compiler pass made two builds of one variant differ.
//
// A compiler run with per-pass IR printing (Triton: MLIR_ENABLE_DUMP=1 and
// LLVM_IR_ENABLE_DUMP=1) writes one stream of dumps, each a header line and
// the IR it prints:
//
//   // -----// IR Dump Before TritonGPUCoalesce (tritongpu-coalesce) ('builtin.module' operation)
//   //----- // #blocked = #ttg.blocked<{sizePerThread = [1], ...}> module attributes {...} { ... }
//   ; *** IR Dump After InstCombinePass on add_kernel ***
//   define void @add_kernel(ptr addrspace(1) %0, ...) { ... }
//   # *** IR Dump After NVPTX DAG->DAG Pattern Instruction Selection (nvptx-isel) ***:
//   # Machine code for function add_kernel: IsSSA, TracksLiveness
//
// parse_pass_dumps() cuts such a stream into ordered PassDumps (text before
// the first header, and lines no header claims, are not IR: dropped).
// pass_outputs() turns them into what each pass produced: an "After P" dump
// is P's output; a "Before P" dump (Triton's MLIR dumps print only these) is
// the output of the pass printed before it, or, first in a stream or when it
// differs from the "After" just before it, the IR as it came to P (frontend,
// translation: PassSnapshot::entry). explain_passes() aligns BASE's and
// HEAD's snapshots by pass (LCS on dialect + pass name + argument), compares
// them in order by normalized hash (norm::normalized_hash; a dump that does
// not normalize is compared by its bytes, and a note says so), and names the
// first pass whose output differs, with the structural diff of the two
// outputs:
//
//   BASE passes  convert-triton-to-tritongpu  tritongpu-coalesce  tritongpu-accelerate-matmul ...
//   HEAD passes  convert-triton-to-tritongpu  tritongpu-coalesce  tritongpu-accelerate-matmul ...
//   equal?       yes                          yes                 no  -> first difference
//
// A pass that ran on one side only is skipped when it left the IR as it was
// (same dialect, same normalized hash as the snapshot before it); otherwise
// it is the first difference (ExplainResult::only_in), with the diff of what
// it did (its input against its output).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ksnap/diff/result.h"
#include "ksnap/diff/structural.h"
#include "ksnap/support/status.h"

namespace ksnap::diff {

/// Which printer wrote a dump.
enum class DumpDialect : uint8_t {
  kMlir,     ///< MLIR pass manager: `// -----// IR Dump ... //----- //`.
  kLlvm,     ///< LLVM IR pass (new or legacy pass manager): `; *** IR Dump ... ***`.
  kMachine,  ///< LLVM machine-code pass: `# *** IR Dump ... ***:`.
};
const char* dump_dialect_name(DumpDialect d);  ///< "mlir", "llvm", "machine"

/// One header of a pass-dump stream and the IR under it.
struct PassDump {
  bool before = false;  ///< "IR Dump Before" (else "After").
  bool failed = false;  ///< "IR Dump After X Failed": the pass failed.
  DumpDialect dialect = DumpDialect::kMlir;
  std::string pass;  ///< "TritonGPUAccelerateMatmul", "InstCombinePass", "NVPTX DAG->DAG Pattern
                     ///< Instruction Selection".
  std::string argument;  ///< "tritongpu-accelerate-matmul", "nvptx-isel"; "" when the header has
                         ///< none (new pass manager).
  std::string scope;  ///< What it ran on: "builtin.module", "tt.func @k", "add_kernel", "[module]";
                      ///< "" unknown.
  uint32_t line = 0;  ///< 1-based line of the header in the stream.
  std::string text;   ///< The IR printed under the header (up to the next header).
};

struct DumpParseOptions {
  /// More headers than this is an input error (kLimitExceeded naming the
  /// line): real Triton runs print a few hundred to a few thousand.
  size_t max_dumps = 200000;
};

/// Cuts a dump stream into its dumps, in order. `name` is used in errors.
/// Errors: kParseError at name:line:col for a line that starts like a dump
/// header but does not parse (`// -----// IR Dump After` with no closing
/// `//----- //`, an unknown word where Before/After goes); kLimitExceeded past
/// `max_dumps`. A stream with no header gives an empty list.
Expected<std::vector<PassDump>> parse_pass_dumps(std::string_view stream, const std::string& name,
                                                 const DumpParseOptions& opts = {});

/// The IR one pass produced, as a dump stream shows it.
struct PassSnapshot {
  std::string pass;  ///< The pass whose output this is ("" for an entry snapshot).
  std::string argument;
  DumpDialect dialect = DumpDialect::kMlir;
  /// An entry snapshot: the IR as it came to `next_pass` from outside any
  /// printed pass (the frontend's TTIR, a module translated to LLVM IR).
  bool entry = false;
  std::string next_pass;  ///< With `entry` or a Before dump: the pass printed after it.
  uint32_t line = 0;      ///< Header line of the dump that holds it.
  std::string_view text;  ///< Into the PassDump list it was made from.
  /// "tritongpu-accelerate-matmul" (the argument, else the pass name), or
  /// "input of tritongpu-coalesce" for an entry snapshot.
  std::string label() const;
};

/// The snapshots of `dumps` in order (see the file comment). Views into `dumps`.
std::vector<PassSnapshot> pass_outputs(const std::vector<PassDump>& dumps);

struct ExplainOptions {
  StructuralOptions structural;
};

/// The answer: the first pass whose output differs, or none.
struct ExplainResult {
  size_t base_snapshots = 0, head_snapshots = 0;
  size_t aligned = 0;       ///< Snapshots paired by pass across the sides.
  size_t equal_before = 0;  ///< Paired snapshots compared equal before the first difference.
  bool found = false;       ///< A first difference was found.
  /// 0: the pass ran on both sides and its outputs differ; -1: it ran only in
  /// BASE and changed the IR; +1: only in HEAD.
  int only_in = 0;
  std::string pass, argument, label;
  DumpDialect dialect = DumpDialect::kMlir;
  bool entry = false;  ///< The difference is in an entry snapshot (before any printed pass).
  /// Both sides' inputs to the pass compared equal (the pass itself made the
  /// difference; false when its inputs are not in the dumps or differ by
  /// bytes only in ways normalization does not remove).
  bool inputs_equal = false;
  uint32_t base_line = 0, head_line = 0;  ///< Header lines of the two snapshots (0 = none).
  size_t base_index = 0, head_index = 0;  ///< Indices into each side's pass_outputs().
  std::string previous_label;             ///< The last pass compared equal ("" none).
  /// The diff shown: BASE's output against HEAD's (only_in == 0), else the
  /// pass's input against its output on the side it ran.
  StageDiff diff;
  std::vector<std::string> notes;  ///< Dumps compared by bytes (not normalizable), ...
};

/// Compares two dump streams' snapshots (see the file comment).
ExplainResult explain_passes(const std::vector<PassDump>& base, const std::vector<PassDump>& head,
                             const ExplainOptions& opts = {});

}  // namespace ksnap::diff

// ksnap diff result: the one type that the engine produces and that every
// renderer (terminal, Markdown, JSON, HTML, --stat) and the history store
// consume. It holds what was computed, never how it is shown.
//
// Shape of a result:
//   DiffResult
//     summary[stage]      unchanged / changed / added / removed variant counts
//     variants[]          one per variant of BASE ∪ HEAD, paired across builds
//       stages[]          per IR stage: status, lines ±, op-count and resource deltas, hunks
//     groups[]            identical changes of one kernel and stage, ranked
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ksnap/capture/variant_key.h"

namespace ksnap::diff {

enum class ChangeStatus : uint8_t { kUnchanged, kChanged, kAdded, kRemoved };
const char* status_name(ChangeStatus s);  ///< "unchanged", "changed", "added", "removed"

/// How a variant of HEAD was matched to one of BASE.
enum class Pairing : uint8_t {
  kExact,          ///< Same kernel, signature, constexprs and explicit options.
  kOptionsDiffer,  ///< Same kernel and constexprs (unique), explicit options differ.
  kInferred,       ///< Bare cache: matched by metadata, then by IR similarity.
  kAdded,          ///< Only in HEAD.
  kRemoved,        ///< Only in BASE.
  /// Only in BASE, and HEAD is a recompile that failed to rebuild it
  /// (build::NotRebuilt): not compared, never counted as removed.
  kNotRebuilt,
};
/// "exact", "options_differ", "inferred", "added", "removed", "not_rebuilt"
const char* pairing_name(Pairing p);

/// A byte range [begin, end) of a DiffLine's text that differs from its counterpart.
struct Span {
  uint32_t begin = 0;
  uint32_t end = 0;
};

enum class LineKind : uint8_t { kContext, kAdded, kRemoved };

struct DiffLine {
  LineKind kind = LineKind::kContext;
  /// Display text. Added and context lines spell HEAD's symbols by the names
  /// of the BASE symbols they correspond to.
  std::string text;
  uint32_t base_line = 0;  ///< 1-based line in the BASE file (0 for added lines).
  uint32_t head_line = 0;  ///< 1-based line in the HEAD file (0 for removed lines).
  int32_t py_line = -1;    ///< Python source line (BASE's for removed/context, HEAD's for added).
  std::vector<Span> highlights;  ///< Word-level changes against the paired line.
  /// HEAD's own spelling of an added or context line when it differs from
  /// `text` (HEAD symbols renamed to BASE's names); empty otherwise. Shown
  /// with `--head-names`.
  std::string head_text;
  /// `highlights` mapped onto `head_text` (a renamed symbol is highlighted
  /// only where the word itself changed, never for the renaming).
  std::vector<Span> head_highlights;
};

struct Hunk {
  std::string unit;  ///< Function the hunk is in ("" = module level).
  uint32_t base_start = 0, base_count = 0;
  uint32_t head_start = 0, head_count = 0;
  std::vector<DiffLine> lines;
  /// Python source lines of the changed lines: BASE's (removed) and HEAD's (added).
  std::vector<int32_t> py_lines_base, py_lines_head;
};

/// (BASE, HEAD) values of a figure; missing on one side = -1.
using FigurePair = std::pair<int64_t, int64_t>;

struct StageDiff {
  std::string stage;  ///< "ttir", "ttgir", "llir", "ptx", ...
  ChangeStatus status = ChangeStatus::kUnchanged;
  uint32_t lines_added = 0;
  uint32_t lines_removed = 0;
  std::vector<Hunk> hunks;
  /// op name -> HEAD count - BASE count, nonzero entries only.
  std::map<std::string, int64_t> op_deltas;
  /// Resource figures read from the IR itself (PTX .reg counts, ...).
  std::map<std::string, FigurePair> resources;
  /// Statistics of the stage's normalized IR (diff/statistics.h:
  /// instructions, lines, instruction classes), for stages that were
  /// normalized (changed, added, removed); empty for unchanged stages.
  std::map<std::string, FigurePair> stats;
  /// Hash of the change with symbols and numbers masked (0 when unchanged):
  /// equal signatures = the same change; drives grouping.
  uint64_t change_signature = 0;
  uint64_t base_hash = 0, head_hash = 0;  ///< Normalized-text hashes.
  std::string base_path, head_path;
  int32_t group = -1;  ///< Index into DiffResult::groups, -1 = none.
  /// Why this stage got less than a structural diff, shown to the reader
  /// (empty = full structural diff). E.g. "BASE x.llir:12:3: unterminated
  /// string; compared by hash only". The status is still decided (by hash).
  std::string fallback;
  /// The fallback comes from input that is malformed or unreadable (the
  /// reason names file:line:col): the report is still complete, and the CLI
  /// also prints the reason to stderr and exits 2.
  bool input_error = false;
  /// The change is known compiler nondeterminism (the same build compiled
  /// twice gave different text for this variant-stage): reported apart from
  /// real changes and ignored by --exit-code unless asked.
  bool unstable = false;
  /// A binary artifact (cubin, hsaco, zebin, spv binary): compared by hash
  /// and size, never parsed as text. `bytes` holds (BASE, HEAD) sizes.
  bool binary = false;
  FigurePair bytes{-1, -1};
};

struct OptionChange {
  std::string name;
  std::string base;  ///< JSON text, "" when absent.
  std::string head;
};

struct VariantDiff {
  /// The variant's identity (capture/variant_key.h): BASE's when paired or
  /// removed, HEAD's when added. Its kernel, signature, constexprs, options
  /// and id() are read from here; nothing holds copies of them.
  capture::VariantKey key;
  /// Where the kernel is defined, as this result names the kernel: BASE's
  /// spelling (key.source() of a BASE variant of the kernel), HEAD's for a
  /// kernel BASE lacks. It differs from key.source() only for a variant
  /// added to a kernel whose source moved (pairing.h matched the kernel by
  /// path suffix); "" for bare caches. Two scripts that both define
  /// `__main__.matmul_kernel` are two kernels.
  std::string source;
  /// HEAD's source when it is spelled otherwise (the checkout or the file
  /// moved: the kernel was matched by path suffix or as the one left), else "".
  std::string head_source;
  /// How to name the kernel to a reader: `kernel` when it is the only kernel
  /// of that name in the result, else `kernel (tail)` with the shortest tail
  /// of its source that tells the kernels apart: `matmul_kernel (03-matmul.py)`,
  /// `matmul_kernel (bench/a.py)`, `matmul_kernel (suite_kernels)`. Renderers
  /// show it wherever they show the kernel.
  std::string label;
  std::string head_id;  ///< HEAD's key.id() spelling ("" when removed).
  Pairing pairing = Pairing::kExact;
  /// Index of the variant in the compared builds' `variants` (-1 = absent:
  /// added / removed).
  int32_t base_index = -1, head_index = -1;
  /// Compile options that differ (explicit and recorded), e.g. enable_fp_fusion true -> false.
  std::vector<OptionChange> option_changes;
  /// With Pairing::kNotRebuilt: why HEAD's recompile did not rebuild it
  /// ("compile: CompilationError: ...", "timeout: ..."), from recompile.json.
  std::string not_rebuilt;
  /// Figures of the loaded kernel: what the launch recorded (n_regs,
  /// n_spills, shared, ...) and, where the cubin/hsaco changed, what the
  /// binaries hold (diff/binary_figures.h: n_regs and n_spills when the
  /// launch did not record them, AMD's sgprs, agprs, spills, LDS, scratch,
  /// and "occupancy").
  std::map<std::string, FigurePair> resources;
  /// Figure name -> where it came from: "launch", "binary", or
  /// "BASE's|HEAD's" when the sides differ ("launch|binary": BASE launched,
  /// HEAD recompiled). Empty when no binary was read.
  std::map<std::string, std::string> resource_sources;
  /// The unit of the "occupancy" figure: "warps per SM", "waves per SIMD".
  std::string occupancy_unit;
  /// Why a binary's figures could not be read ("" = none failed); the report
  /// states it.
  std::string resource_error;
  std::vector<StageDiff> stages;
  /// Binary artifacts (cubin, hsaco, zebin, binary SPIR-V), compared by hash
  /// and size: StageDiff with `binary` set, `bytes` = (BASE, HEAD) sizes,
  /// base_hash/head_hash of the raw bytes, no hunks. They are not IR: not in
  /// DiffResult::summary, and changed() ignores them (a cubin also changes
  /// with line info); the `sass` text stage is where machine code is diffed.
  std::vector<StageDiff> binaries;
  std::vector<std::string> benchmark_points;  ///< From the capture (HEAD, else BASE).
  std::string benchmark_script;

  /// Any stage not unchanged, or the variant added or removed.
  bool changed() const;
  /// Like changed(), but a stage whose change is known unstable does not count.
  bool real_change() const;
  const StageDiff* stage(const std::string& name) const;
  /// `label`, or the kernel's name when no label was set.
  const std::string& name() const { return label.empty() ? key.kernel : label; }
};

/// Identical changes (same kernel and source, stage and change signature) shown once.
struct ChangeGroup {
  std::string kernel;
  std::string source;  ///< The kernel's source (VariantDiff::source); part of the group key.
  std::string label;   ///< VariantDiff::label of its members.
  std::string stage;
  uint64_t signature = 0;
  std::vector<size_t> variants;  ///< Indices into DiffResult::variants, first = representative.
  uint32_t lines_added = 0;      ///< Of the representative.
  uint32_t lines_removed = 0;
  /// Summed over members: the rank key (largest first).
  uint64_t weight = 0;
  /// The members' changes are known compiler nondeterminism (StageDiff::
  /// unstable): such groups never hold a real change and rank after all
  /// groups that do.
  bool unstable = false;
  /// `label`, or `kernel` when no label was set.
  const std::string& name() const { return label.empty() ? kernel : label; }
};

struct StageSummary {
  std::string stage;
  /// `changed` counts real changes only; changes of variant-stages known to
  /// be unstable (StageDiff::unstable) are counted in `unstable` instead.
  uint32_t unchanged = 0, changed = 0, added = 0, removed = 0, unstable = 0;
};

struct DiffResult {
  std::string base_name, head_name;
  std::string base_root, head_root;
  std::vector<VariantDiff> variants;
  std::vector<ChangeGroup> groups;    ///< Ranked, largest first.
  std::vector<StageSummary> summary;  ///< Pipeline order.
  std::vector<std::string> warnings;

  bool any_change() const;
  /// Any change that is not known unstable (what --exit-code asks about).
  bool any_real_change() const;
  /// Number of (variant, stage) pairs whose status is not unchanged.
  size_t changed_stage_count() const;
  /// Of those, the changed ones known unstable.
  size_t unstable_stage_count() const;
};

}  // namespace ksnap::diff

// ksnap report model: what every format shows, decided once.
//
// The engine produces one diff::DiffResult (what was computed). build_report
// turns it, the benchmark verdicts and ReportOptions (how it is shown) into a
// Report: the headline, fossil-db-style statistics, identical option changes
// collapsed into one line each, ranked figure changes, notes (fallbacks,
// unstable stages, renamed names, shared kernel names), and the change groups
// in reading order with the hunks each format prints and what was cut. The
// terminal, Markdown, JSON, HTML and --stat writers (render/) only write it.
//
// Worked example: base..fusion_off of the shared corpus (19 variants, 11 PTX
// changes, enable_fp_fusion true -> false everywhere) gives
//   headline   "11 of 76 kernel-stages changed, in 11 of 19 variants of 4 kernels; ..."
//   statistics [binary: 11 of 19 affected; n_regs helped 3 hurt 0, 2303 -> 2291 (-0.52%)]
//              [ptx: 11 of 19 affected; instructions ..., class.alu ..., ...]
//   option_changes [{enable_fp_fusion, true -> false, 19 variants of 5 kernels}]
//   kernels    attn_fwd, layer_norm_fwd, softmax_kernel, add_kernel... by impact
//   groups     per kernel in pipeline order (the earliest stage first)
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ksnap/diff/layers.h"
#include "ksnap/diff/result.h"
#include "ksnap/perf/verdict.h"

namespace ksnap::report {

/// Reading order of the change groups.
enum class Order : uint8_t {
  kPipeline,  ///< Kernels by impact; per kernel, stages in pipeline order (root cause first).
  kSize,      ///< Groups by size (changed lines x variants), largest first, kernels mixed.
  kKernel,    ///< Kernels by name; per kernel, stages in pipeline order.
};
const char* order_name(Order o);                 ///< "pipeline", "size", "kernel"
bool parse_order(std::string_view s, Order* out);

inline constexpr size_t kUnlimited = std::numeric_limits<size_t>::max();

/// How the result is shown (what is computed is diff::DiffOptions).
struct ReportOptions {
  Order order = Order::kPipeline;
  /// Show HEAD lines with HEAD's own names (DiffLine::head_text) instead of
  /// BASE's names for corresponding symbols.
  bool head_names = false;
  bool show_diffs = true;                    ///< False: groups without hunks.
  size_t max_groups = kUnlimited;            ///< Groups with their hunks; the rest by name.
  size_t max_lines_per_group = kUnlimited;   ///< Diff lines kept per group.
  size_t max_variants_listed = kUnlimited;   ///< Variants named per group.
  size_t max_figure_rows = kUnlimited;       ///< Ranked figure changes kept.
  size_t max_list_rows = kUnlimited;         ///< Added / removed variants named.
  size_t max_notes = 20;                     ///< Per-stage notes (fallbacks) named.
  /// Context lines shown around changes, cut by cut_hunks; kUnlimited = all
  /// the result kept (diff::DiffOptions::kept_context, the most there is).
  size_t context = kUnlimited;
};

/// Headline counts. Unstable stages (compiler nondeterminism) are counted
/// apart and are not changes.
struct Totals {
  size_t variants = 0, changed_variants = 0, added = 0, removed = 0;
  /// BASE variants HEAD's recompile failed to rebuild (diff::Pairing::kNotRebuilt):
  /// not compared, not counted as changed.
  size_t not_rebuilt = 0;
  size_t stages = 0, changed_stages = 0, unstable_stages = 0;
  size_t kernels = 0, kernels_changed = 0;
  size_t groups = 0, unstable_groups = 0;
};

/// One statistic summed over the affected variants of a stage.
struct Statistic {
  std::string name;  ///< "n_regs", "instructions", "class.alu", "ptx.reg.b32", "lines", "bytes"
  size_t helped = 0;  ///< Affected variants where it went down (lower is better).
  size_t hurt = 0;    ///< Where it went up.
  size_t counted = 0;  ///< Affected variants that have the figure on both sides.
  int64_t base = 0, head = 0;  ///< Sums over the counted variants.
  /// 100 * (head - base) / base; nullopt when base is 0.
  std::optional<double> percent() const;
};

/// Statistics of one stage ("binary" = figures of the loaded kernel:
/// n_regs, n_spills, shared).
struct StageStatistics {
  std::string stage;
  size_t affected = 0;  ///< Paired variants whose stage changed (binary: any stage or figure).
  size_t total = 0;     ///< Paired variants that have the stage.
  std::vector<Statistic> rows;  ///< "instructions" always; others only when they differ.
};

/// Identical option changes of many variants, one line.
struct OptionChangeLine {
  std::string name, base, head;       ///< JSON texts; "" = absent on that side.
  std::vector<size_t> variants;       ///< Indices into DiffResult::variants.
  std::vector<std::string> kernels;   ///< Distinct kernel labels, sorted.
};

/// A figure of one variant that differs, for the ranked list.
struct FigureChange {
  size_t variant = 0;
  std::string from;  ///< "binary" or the stage whose IR gave it.
  std::string name;
  int64_t base = -1, head = -1;
};

/// One figure of the kernel (registers, spills, occupancy, ...) over the
/// paired variants whose value moved: the resource deltas that lead every
/// format, right after the headline.
struct ResourceDelta {
  std::string figure;  ///< VariantDiff::resources key: "n_spills", "occupancy", "n_regs", ...
  std::string title;   ///< "spills", "occupancy", "registers", ...
  bool higher_is_better = false;  ///< Occupancy: a drop hurts.
  size_t total = 0;    ///< Paired variants with the figure on both sides.
  size_t hurt = 0, helped = 0;
  /// Of `hurt`: variants at 0 in BASE (for spills: "now spill"); of
  /// `helped`: variants at 0 in HEAD ("no longer spill").
  size_t started = 0, stopped = 0;
  int64_t base = 0, head = 0;  ///< Sums over the hurt and helped variants.
  std::string unit;            ///< "warps per SM" for occupancy, else "".
  /// "3 variants now spill, 1 spills more, 2 spill less (6 of 19 variants;
  /// 12 → 99 in total, +725.00%)": the sentence every format prints.
  std::string text;
  std::vector<FigureChange> rows;  ///< Hurt first, then helped; each by relative change.
  size_t rows_total = 0;           ///< Before the max_figure_rows cap.
};

/// How many changed variants changed first in one layer of the compiler
/// (diff::first_changed_stage), and in which of its stages.
struct LayerCount {
  diff::Layer layer = diff::Layer::kOther;
  size_t variants = 0;
  std::vector<std::pair<std::string, size_t>> stages;  ///< Stage -> variants, pipeline order.
};

enum class NoteKind : uint8_t { kWarning, kFallback, kUnstable, kNames, kSource };
const char* note_kind_name(NoteKind k);  ///< "warning", "fallback", "unstable", "names", "source"

struct Note {
  NoteKind kind = NoteKind::kWarning;
  std::string text;
};

/// The first `lines` lines of `*hunk` are shown.
struct HunkView {
  const diff::Hunk* hunk = nullptr;
  size_t lines = 0;
};

/// One group of identical changes (same kernel, stage and change signature).
struct GroupView {
  size_t engine_group = 0;           ///< Index into DiffResult::groups.
  std::string kernel;                ///< Kernel label (VariantDiff::name(): plus a source tail when shared).
  std::string name, source;          ///< The kernel's own name and source.
  std::string stage;
  uint64_t signature = 0;
  std::vector<size_t> variants;      ///< All members; the first is the representative.
  size_t variants_listed = 0;        ///< Members named (max_variants_listed).
  uint32_t lines_added = 0, lines_removed = 0;  ///< Of the representative.
  uint64_t weight = 0;               ///< Changed lines summed over members.
  bool unstable = false;             ///< Known compiler nondeterminism, not a change.
  bool root_cause = false;           ///< The earliest changed stage of its kernel.
  std::vector<std::pair<std::string, int64_t>> ops;  ///< Op deltas, by |delta| then name.
  std::vector<FigureChange> figures;  ///< IR figures of the representative that differ.
  std::vector<int32_t> py_lines;      ///< Python lines of the changed lines (HEAD's, else BASE's).
  /// Why this change has no structural diff ("" = it has one); with several
  /// members that fell back: "N of M variants: <first reason>".
  std::string fallback;
  bool binary = false;                ///< Compared by hash and size only.
  diff::FigurePair bytes{-1, -1};
  bool shown = false;                 ///< Within max_groups: written in full, not only named.
  std::vector<HunkView> hunks;        ///< What is shown (empty unless shown and show_diffs).
  size_t lines_total = 0;             ///< Diff lines of the representative's hunks, as cut.
  size_t lines_cut = 0;               ///< Of those, not shown.
  std::shared_ptr<std::vector<diff::Hunk>> recut;  ///< Owns re-cut hunks (context option).
};

/// The hunks of one stage as a report shows them. The diff keeps
/// DiffOptions::kept_context unchanged lines around each run of changes;
/// this is the one place that decides what is shown of them: every report
/// group (select_hunks) and `ksnap explain`'s pass diffs are cut here.
///
/// Worked example: a stage kept with context 3 as one hunk
///   ` a`, ` b`, ` c`, `- d`, `+ D`, ` e`, ` f`, ` g`, ` h`, `- i`, ` j`
/// cut to context 1 gives two hunks, [` c`, `- d`, `+ D`, ` e`] and
/// [` h`, `- i`, ` j`], lines_total 7; with max_lines 5 the second hunk
/// shows one line and lines_cut is 2.
struct HunkCut {
  std::vector<HunkView> hunks;  ///< In order; the last may show only its first lines.
  size_t lines_total = 0;       ///< Diff lines after the context cut.
  size_t lines_cut = 0;         ///< Of those, over `max_lines` and not shown.
  /// Owns hunks re-cut to a smaller context (null when shown as kept);
  /// HunkView::hunk points into it or into the StageDiff.
  std::shared_ptr<std::vector<diff::Hunk>> recut;
};
/// `s.hunks` cut to `context` lines around changes (kUnlimited: as kept),
/// then to at most `max_lines` diff lines in all. The result points into `s`,
/// which must outlive it.
HunkCut cut_hunks(const diff::StageDiff& s, size_t context, size_t max_lines);

/// A kernel and its groups, for reading kernel by kernel.
struct KernelSection {
  std::string kernel;   ///< Label (VariantDiff::name(): a source tail when two kernels share the name).
  std::string name, source;
  size_t variants = 0, changed_variants = 0, changed_stages = 0;
  uint64_t lines = 0;               ///< Changed lines over its variants.
  std::vector<size_t> groups;       ///< Into Report::groups, in reading order.
  std::vector<size_t> added, removed;  ///< Variant indices.
};

struct Report {
  const diff::DiffResult* result = nullptr;  ///< Not owned; outlives the report.
  ReportOptions options;
  Totals totals;
  std::string headline;
  std::vector<StageStatistics> statistics;  ///< "binary" first, then pipeline order.
  /// Hurt figures first ("3 variants now spill, 5 use more registers"): what
  /// a reviewer reads first; "" when no figure moved.
  std::string resource_headline;
  /// Spills, occupancy, registers, then the rest (AMD's SGPRs, AGPRs, LDS,
  /// scratch; shared memory); only figures that moved.
  std::vector<ResourceDelta> resource_deltas;
  /// Per layer, pipeline order, only layers with variants; over paired
  /// variants that changed for real.
  std::vector<LayerCount> first_changed_layers;
  /// "changed first in LLVM's backend: 41 variants (ptx 41); in Triton's
  /// passes: 3 (ttgir 2, ttir 1)"; "" when nothing changed.
  std::string layers_text;
  /// Per variant: its first changed stage (diff::first_changed_stage), or null.
  std::vector<const diff::StageDiff*> first_changed;
  std::vector<OptionChangeLine> option_changes;
  std::vector<FigureChange> figure_changes;  ///< Ranked by |delta| / max(|base|, 1), then |delta|.
  size_t figure_changes_total = 0;
  std::vector<Note> notes;
  std::vector<size_t> added, removed;  ///< Variant indices, capped by max_list_rows.
  std::vector<KernelSection> kernels;  ///< By impact (kKernel: by name).
  std::vector<GroupView> groups;       ///< Reading order: real changes, then unstable ones.
  size_t groups_shown = 0;  ///< The first groups_shown groups are written in full.
  std::vector<std::string> stages;      ///< Stage names in pipeline order.
  std::vector<std::string> variant_labels;  ///< Per variant: "{BLOCK=64} [num_warps=4]".
  std::vector<std::string> variant_kernels;  ///< Per variant: its kernel label (VariantDiff::name()).
  /// Per variant, per entry of its `stages`: index into `groups`, -1 = none.
  std::vector<std::vector<int32_t>> stage_groups;
  std::optional<perf::VerdictReport> verdicts;
  std::vector<size_t> verdict_order;  ///< Indices into verdicts->points, most serious first.

  /// Anything changed that --exit-code reports: a real (not unstable) stage
  /// change, or a variant on one side only.
  bool any_change() const;
};

/// Builds the report of `r` (which must outlive it) under `o`; `verdicts` may be null.
Report build_report(const diff::DiffResult& r, const perf::VerdictReport* verdicts,
                    const ReportOptions& o = {});

/// The text of a shown line: HEAD's own spelling under --head-names (for
/// added and context lines that have one), else DiffLine::text.
const std::string& shown_text(const diff::DiffLine& l, bool head_names);
const std::vector<diff::Span>& shown_highlights(const diff::DiffLine& l, bool head_names);

/// "{BLOCK_SIZE=256} [num_warps=4]" — a compact variant label; each part only
/// when it has entries, so a variant of two bare files has the label "".
std::string variant_label(const diff::VariantDiff& v);

/// "kernel {BLOCK=64} [num_warps=4]": the variant's kernel label and its
/// variant_label, without a trailing space when the label is empty.
std::string variant_title(const Report& r, size_t variant);

/// "+3" / "-1" / "0".
std::string signed_text(int64_t v);

/// "-0.52%" / "+12.00%" / "n/a" (no base).
std::string percent_text(const Statistic& s);

}  // namespace ksnap::report

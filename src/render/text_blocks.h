// Internal: the words every text format uses for the parts of a report
// (terminal, Markdown, --stat, the HTML summary), so that they read alike.
// Returned strings are raw data text: each writer escapes them for its medium.
//
//   option_line_text(enable_fp_fusion true -> false, 19 variants of 5 kernels)
//     == "enable_fp_fusion: true → false — 19 variants of 5 kernels (add_kernel, attn_fwd, …)"
//   group_title(attn_fwd, ptx, 1 variant, +277 -213) == "attn_fwd · ptx · 1 variant · +277 −213 lines"
#pragma once

#include <array>
#include <string>
#include <vector>

#include "ksnap/report/report.h"

namespace ksnap::render {

/// Columns of the statistics table.
inline constexpr const char* kStatColumns[] = {"stage", "statistic", "affected", "helped",
                                               "hurt",  "BASE",      "HEAD",     "change"};
using StatCells = std::array<std::string, 8>;

/// One row of cells per statistic of every stage (the stage cell is empty
/// after its first row).
std::vector<StatCells> statistics_rows(const report::Report& r);

/// "enable_fp_fusion: true → false — 19 variants of 5 kernels (a, b, …)".
std::string option_line_text(const report::OptionChangeLine& l, size_t max_kernels = 4);

/// "attn_fwd {BLOCK_M=128} [num_warps=4]: n_regs 227 → 222 (-5)" (binary
/// figures) or "... ptx.reg.b32 (ptx) 842 → 906 (+64)".
std::string figure_text(const report::Report& r, const report::FigureChange& f, bool with_variant);

/// The resource deltas that follow the headline: one line per figure that
/// moved ("spills: 3 variants now spill, ... (3 of 19 variants; ...)"),
/// each followed by up to `rows` lines "  attn_fwd {...}: n_spills 0 → 22
/// (+22)" and "  … N more". Empty when no figure moved.
std::vector<std::string> resource_lines(const report::Report& r, size_t rows);

/// "attn_fwd · ptx · 1 variant · +277 −213 lines" (+ " · unstable").
std::string group_title(const report::GroupView& g);
/// The same without the kernel: "ptx · 1 variant · +277 −213 lines".
std::string group_subtitle(const report::GroupView& g);

/// "+2 ttg.local_load, -1 tt.dot" (the first `max`, then "… N more").
std::string ops_text(const std::vector<std::pair<std::string, int64_t>>& ops, size_t max = 8);

/// "85, 86, 90" (the first 12, then "…").
std::string py_lines_text(const std::vector<int32_t>& lines);

/// "binary 12,104 → 12,168 bytes (+64)" for a binary stage's group.
std::string bytes_text(const diff::FigurePair& b);

/// "@@ -425,7 +425,7 @@ attn_fwd" and, when known, "  (python line 123, 124)".
std::string hunk_header(const diff::Hunk& h);

/// Names of the groups after the first `from`: "attn_fwd · ptx (3)", ...
std::vector<std::string> group_names(const report::Report& r, size_t from);

/// "2 likely real, 5 likely noise" ("" when no verdicts).
std::string verdict_counts_text(const perf::VerdictReport& v);

/// "likely real                 matmul[M=512]: +3.1% ..." for point `i` of the report order.
std::string verdict_line(const report::Report& r, size_t i);

}  // namespace ksnap::render

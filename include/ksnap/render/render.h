// ksnap renderers: each turns one diff::DiffResult into one output format.
// What is computed is decided by diff::DiffOptions; RenderOptions only decide
// how it is shown (color, caps, how much of each group).
#pragma once

#include <cstddef>
#include <string>

#include "ksnap/diff/result.h"
#include "ksnap/perf/verdict.h"

namespace ksnap::render {

enum class Format { kTerminal, kMarkdown, kJson, kHtml, kStat };

/// Parses "terminal", "markdown"/"md", "json", "html", "stat".
bool parse_format(const std::string& s, Format* out);

struct RenderOptions {
  bool color = false;             ///< ANSI colors (terminal, stat).
  size_t max_bytes = 60000;       ///< Markdown size cap (GitHub comments hold 65536).
  size_t max_groups = 200;        ///< Groups shown in full (terminal, markdown).
  size_t max_lines_per_group = 400;  ///< Diff lines shown per group before "… N more".
  size_t max_variants_listed = 12;   ///< Variants named per group before "and N more".
  bool show_diffs = true;         ///< False: summary and group headers only.
  /// Benchmark-noise verdicts to show beside the IR result (computed by
  /// perf::make_verdicts from the same result; null = none).
  const perf::VerdictReport* verdicts = nullptr;
};

std::string render_terminal(const diff::DiffResult& r, const RenderOptions& o = {});
std::string render_markdown(const diff::DiffResult& r, const RenderOptions& o = {});
std::string render_json(const diff::DiffResult& r, const RenderOptions& o = {});
std::string render_stat(const diff::DiffResult& r, const RenderOptions& o = {});
/// One self-contained HTML page (no network, no external URL) with the
/// summary, filters, search and every change group's hunks, syntax-highlighted
/// by ksnap's IR lexer; the page renders group bodies lazily (docs/html-report.md).
std::string render_html(const diff::DiffResult& r, const RenderOptions& o = {});

}  // namespace ksnap::render

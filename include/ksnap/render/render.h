// ksnap writers: each writes one report::Report (the report model) in one
// format. What is shown and in what order is decided by report::build_report;
// a writer only decides spelling: colors, table layout, escaping for its
// medium (terminal control characters, Markdown fences, HTML), and the byte
// cap of a PR comment.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "ksnap/diff/result.h"
#include "ksnap/perf/verdict.h"
#include "ksnap/report/report.h"
#include "ksnap/support/status.h"

namespace ksnap::render {

enum class Format { kTerminal, kMarkdown, kJson, kHtml, kStat, kNameOnly };

/// Parses "terminal", "markdown"/"md", "json", "html", "stat", "name-only".
bool parse_format(const std::string& s, Format* out);

/// The report options each format shows by default: the terminal and
/// Markdown cap groups, lines and lists; JSON keeps everything; HTML keeps
/// everything but caps lines per group at 20,000.
report::ReportOptions default_report_options(Format f);

/// How a writer spells the report.
struct WriteOptions {
  bool color = false;        ///< ANSI colors (terminal, stat), ksnap's own only.
  size_t max_bytes = 60000;  ///< Markdown: the whole comment (GitHub holds 65,536 chars).
  size_t width = 80;         ///< --stat: terminal columns.
  /// Markdown: where the full HTML report is (a CI artifact); shown at the
  /// top and where groups were cut. Empty: the comment says how to make it.
  std::string html_url;
};

std::string render_terminal(const report::Report& r, const WriteOptions& w = {});
std::string render_markdown(const report::Report& r, const WriteOptions& w = {});
/// The model's schema (docs/diff-json.md), version 2.
std::string render_json(const report::Report& r, const WriteOptions& w = {});
/// render_json's text handed to `write` in pieces of about `chunk` bytes
/// (cut between list items), so that a 100,000-variant report (about 290 MB)
/// is never held whole; the pieces joined are render_json's text. Stops at
/// the first error `write` returns and returns it.
Status render_json_to(const report::Report& r,
                      const std::function<Status(std::string_view)>& write,
                      size_t chunk = size_t{1} << 20);
/// One line per changed variant with +/- bars, like `git diff --stat`.
std::string render_stat(const report::Report& r, const WriteOptions& w = {});
/// One line per changed variant: kernel, label and its changed stages.
std::string render_name_only(const report::Report& r, const WriteOptions& w = {});
/// One self-contained HTML page (no network, no external URL); its data
/// island is render_json's output with lexer token runs added per line
/// (docs/html-report.md).
std::string render_html(const report::Report& r, const WriteOptions& w = {});

/// Hunks cut by report::cut_hunks as the terminal writer prints them (hunk
/// headers, "- " / "+ " / "  " lines, data escaped, ksnap's colors with
/// `w.color`), then "… N more lines" for what the cut left out. Used by
/// `ksnap explain` for the diff of one pass's output.
std::string render_hunks(const report::HunkCut& cut, const WriteOptions& w = {});

/// Builds the report of `r` with default_report_options(f) and writes it.
std::string render(Format f, const diff::DiffResult& r, const WriteOptions& w = {},
                   const perf::VerdictReport* verdicts = nullptr);

}  // namespace ksnap::render

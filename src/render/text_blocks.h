// Internal: plain-text building blocks shared by the terminal and Markdown
// renderers (summary table, group headers, hunks).
#pragma once

#include <string>

#include "ksnap/diff/result.h"
#include "ksnap/render/render.h"

namespace ksnap::render {

struct Palette {
  const char* bold = "";
  const char* dim = "";
  const char* red = "";
  const char* green = "";
  const char* cyan = "";
  const char* yellow = "";
  const char* red_hl = "";    ///< Highlight inside a removed line.
  const char* green_hl = "";  ///< Highlight inside an added line.
  const char* reset = "";
};
Palette palette(bool color);

/// Fixed-width summary table, one row per stage.
std::string summary_table(const diff::DiffResult& r);

/// The one-line verdict under the table: "42 of 76 kernel-stages changed ...".
std::string headline(const diff::DiffResult& r);

/// Unified-diff text of a stage's hunks, at most `max_lines` lines; the
/// number of lines not shown is added to *cut.
std::string hunks_text(const diff::StageDiff& s, const Palette& p, size_t max_lines, size_t* cut);

/// Names of the group's variants, at most `max` then "and N more".
std::string group_variants_text(const diff::DiffResult& r, const diff::ChangeGroup& g,
                                size_t max);

/// Variant-level figures that differ, ranked by |delta| (biggest first).
std::string resource_ranking(const diff::DiffResult& r, size_t max_rows);

}  // namespace ksnap::render

// Internal: the static parts of the HTML report, written in C++ from the
// report model so they show before (and without) the page's script:
//   summary_html   headline, totals, notes, statistics, option changes (top
//                  of the page: short, so the first change group shows in
//                  the first screen)
//   overview_html  per-stage table, per-kernel charts with their legend,
//                  ranked figure and op-count changes (below the changes)
// All text is escaped with escape_html.
#pragma once

#include <cstddef>
#include <string>

#include "ksnap/report/report.h"

namespace ksnap::render::html {

struct SummaryLimits {
  size_t max_kernel_charts = 60;  ///< Kernels charted (the report's kernel order).
  size_t max_rank_rows = 15;      ///< Rows of each ranked table.
  size_t max_stat_rows = 8;       ///< Statistics rows shown before "show all".
};

/// <table class="stages">: one row per stage, with a total row.
std::string stage_table_html(const report::Report& r);

/// <div class="kernels">: one card per kernel with an SVG of per-stage
/// variant statuses (stacked bar) and lines added/removed, after a legend.
std::string kernel_charts_html(const report::Report& r, const SummaryLimits& limits = {});

/// <table class="rank res">: the report's ranked figure changes.
std::string resource_rank_html(const report::Report& r, const SummaryLimits& limits = {});

/// <table class="rank ops">: op-count deltas per change group, by |delta|
/// then group size. Empty when none.
std::string op_rank_html(const report::Report& r, const SummaryLimits& limits = {});

/// <table class="stats">: the statistics, the first max_stat_rows rows
/// visible and the rest behind a <details>.
std::string statistics_html(const report::Report& r, const SummaryLimits& limits = {});

std::string summary_html(const report::Report& r, const SummaryLimits& limits = {});
std::string overview_html(const report::Report& r, const SummaryLimits& limits = {});

}  // namespace ksnap::render::html

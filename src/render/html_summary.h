// Internal: the HTML report's summary, rendered eagerly in C++ so it shows
// before (and without) the page's script: per-stage counts, one small SVG
// chart per kernel, and the ranked resource and op-count deltas.
//
// Every figure the browser test compares with `--format json` carries data-
// attributes, e.g. <td data-stage="ttgir" data-status="changed">6</td>.
#pragma once

#include <string>

#include "ksnap/diff/result.h"

namespace ksnap::render::html {

struct SummaryLimits {
  size_t max_kernel_charts = 60;  ///< Kernels charted (most changed first).
  size_t max_rank_rows = 15;      ///< Rows of each ranked table.
};

/// <table class="stages">: one row per stage, with a total row.
std::string stage_table_html(const diff::DiffResult& r);

/// <div class="kernels">: one card per kernel with an SVG of per-stage
/// variant statuses (stacked bar) and lines added/removed.
std::string kernel_charts_html(const diff::DiffResult& r, const SummaryLimits& limits = {});

/// <table class="rank res">: variant figures (n_regs, n_spills, shared, ...)
/// and IR figures per stage that differ, ranked by |delta| / max(|base|, 1),
/// then |delta|. Empty string when no figure differs.
std::string resource_rank_html(const diff::DiffResult& r, const SummaryLimits& limits = {});

/// <table class="rank ops">: op-count deltas per change group (kernel, stage,
/// op, delta, variants), ranked by |delta| then group size. Empty when none.
std::string op_rank_html(const diff::DiffResult& r, const SummaryLimits& limits = {});

/// The whole summary section (headline, warnings, tables, charts).
std::string summary_html(const diff::DiffResult& r, const SummaryLimits& limits = {});

}  // namespace ksnap::render::html

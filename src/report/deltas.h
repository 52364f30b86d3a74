// Internal: the facts that lead the report after the headline — resource
// deltas (resource_deltas.cc) and where variants changed first (layers.cc).
#pragma once

#include "ksnap/diff/result.h"
#include "ksnap/report/report.h"

namespace ksnap::report {

/// The ranking of figure changes every list uses: larger relative change
/// |head - base| / max(|base|, 1) first, then larger |head - base|.
bool larger_change_first(const FigureChange& a, const FigureChange& b);

/// Fills Report::resource_deltas and resource_headline from the variants'
/// figures (VariantDiff::resources), and a note per variant whose binary
/// figures could not be read.
void add_resource_deltas(const diff::DiffResult& r, Report* rep);

/// Fills Report::first_changed, first_changed_layers and layers_text.
void add_first_changed(const diff::DiffResult& r, Report* rep);

}  // namespace ksnap::report

// Internal: the facts that lead the report after the headline — resource
// deltas (resource_deltas.cc) and where variants changed first (layers.cc).
#pragma once

#include "ksnap/diff/result.h"
#include "ksnap/report/report.h"

namespace ksnap::report {

/// Fills Report::resource_deltas and resource_headline from the variants'
/// figures (VariantDiff::resources), and a note per variant whose binary
/// figures could not be read.
void add_resource_deltas(const diff::DiffResult& r, Report* rep);

/// Fills Report::first_changed, first_changed_layers and layers_text.
void add_first_changed(const diff::DiffResult& r, Report* rep);

}  // namespace ksnap::report

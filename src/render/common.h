// Internal helpers shared by the renderers.
#pragma once

#include <string>
#include <vector>

#include "ksnap/diff/result.h"

namespace ksnap::render {

/// "{BLOCK_SIZE=256} [num_warps=4]" — a compact variant label.
std::string variant_label(const diff::VariantDiff& v);

/// "+2 ttg.local_load, -1 tt.dot" sorted by |delta| then name; `max` entries.
std::string op_delta_text(const std::map<std::string, int64_t>& d, size_t max = 8);

/// "n_regs 207 → 210 (+3), shared 0 → 16" for figures that differ.
std::string resource_text(const std::map<std::string, diff::FigurePair>& r);

/// "85, 86, 90" (sorted, unique) or "".
std::string py_lines_text(const std::vector<int32_t>& a);

/// Python lines of a stage's changes (BASE and HEAD), merged.
void stage_py_lines(const diff::StageDiff& s, std::vector<int32_t>* base,
                    std::vector<int32_t>* head);

/// Sum over variants of (variant changed) etc.
struct Totals {
  size_t variants = 0, changed_variants = 0, added = 0, removed = 0;
  size_t stages = 0, changed_stages = 0;
  size_t kernels_changed = 0;
};
Totals totals(const diff::DiffResult& r);

/// "+3" / "-1" / "0".
std::string signed_text(int64_t v);

}  // namespace ksnap::render

// Sequence alignment of two key sequences (line shapes, tokens).
//
// Worked example: a = [A B C D], b = [A X C D]  ->  matches (0,0) (2,2) (3,3).
// Strategy (like git's patience/histogram diffs): strip the common prefix and
// suffix; anchor on keys unique in both sides, taking the longest increasing
// run of anchors; recurse between anchors; where no anchor exists, an exact
// LCS by dynamic programming when the gap is small enough, else the gap stays
// unmatched (all removed / added).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace ksnap::diff {

using Match = std::pair<uint32_t, uint32_t>;  ///< (index in a, index in b)

/// What an alignment gave up on: gaps with no common key to anchor on
/// within the recursion depth that were too big (n*m over the cell limit)
/// for an exact LCS, left unmatched (all removed / added). Empty when the
/// alignment is exact in the sense above; a caller shows it as a fallback.
struct AlignLimits {
  /// Input: recursion depth of anchoring by the rarest key beyond which a
  /// gap too big for an exact LCS is left unmatched.
  int max_depth = 64;
  // Output, added to by each alignment:
  uint32_t gaps = 0;     ///< Gaps left unmatched.
  uint64_t a_items = 0;  ///< Elements of `a` in them.
  uint64_t b_items = 0;  ///< Elements of `b` in them.
  bool any() const { return gaps != 0; }
};

/// Matched index pairs, strictly increasing in both coordinates.
/// `dp_cell_limit` bounds n*m of a gap solved by exact LCS; `limits`
/// (optional) receives, added to what it holds, the gaps left unmatched.
std::vector<Match> align(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b,
                         uint64_t dp_cell_limit = 4u << 20, AlignLimits* limits = nullptr);

/// Aligns by several key levels, finest first: `a[0]` / `b[0]` align the
/// whole sequences, then each gap between their matches is aligned by level
/// 1, and so on. Every level has one key per element. Every level but the
/// last matches only keys unique in both sides of a gap (patience anchors,
/// recursively): where a key repeats, a coarser level decides.
/// Example: level 0 the line with its operands' definitions, level 1 the
/// line's shape alone.
/// `positional` (optional): per returned match, whether only the last level
/// made it (equal keys that repeat, paired by order: weaker evidence than a
/// key unique in both sides).
std::vector<Match> align_levels(const std::vector<std::vector<uint64_t>>& a,
                                const std::vector<std::vector<uint64_t>>& b,
                                uint64_t dp_cell_limit = 4u << 20,
                                std::vector<bool>* positional = nullptr,
                                AlignLimits* limits = nullptr);

}  // namespace ksnap::diff

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

/// Matched index pairs, strictly increasing in both coordinates.
/// `dp_cell_limit` bounds n*m of a gap solved by exact LCS.
std::vector<Match> align(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b,
                         uint64_t dp_cell_limit = 4u << 20);

/// Aligns by several key levels, finest first: `a[0]` / `b[0]` align the
/// whole sequences, then each gap between their matches is aligned by level
/// 1, and so on. Every level has one key per element. Every level but the
/// last matches only keys unique in both sides of a gap (patience anchors,
/// recursively): where a key repeats, a coarser level decides.
/// Example: level 0 the line with its operands' definitions, level 1 the
/// line's shape alone.
std::vector<Match> align_levels(const std::vector<std::vector<uint64_t>>& a,
                                const std::vector<std::vector<uint64_t>>& b,
                                uint64_t dp_cell_limit = 4u << 20);

}  // namespace ksnap::diff

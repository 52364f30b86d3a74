// Cutting hunks out of an edit script: the one function every producer of
// hunks uses. The structural diff cuts a unit's hunks from its edit script;
// the report model re-cuts a hunk's lines when it shows less context.
//
// Worked example, context 1, an edit script of ten lines
//   index  0 1 2 3 4 5 6 7 8 9
//   kind   = = - + = = = = + =
// gives the ranges [1, 5) and [7, 10): each run of changes with one unchanged
// line around it. Two runs separated by at most 2 * context unchanged lines
// merge into one hunk (with context 2, the example is one range [0, 10)).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "ksnap/diff/result.h"

namespace ksnap::diff {

/// A half-open range [begin, end) of an edit script.
struct HunkRange {
  size_t begin = 0;
  size_t end = 0;
};

/// The hunks of an edit script whose lines have the given kinds, with up to
/// `context` unchanged lines before and after each run of changes. Ranges are
/// ordered and disjoint; a script without a change gives none.
std::vector<HunkRange> hunk_ranges(std::span<const LineKind> kinds, uint32_t context);

/// `h` cut down to `context` lines around its changes: the sub-hunks of its
/// lines, each with its own start lines and counts. A hunk that already has
/// no more context than that comes back as it is (one element).
std::vector<Hunk> recut_hunk(const Hunk& h, uint32_t context);

}  // namespace ksnap::diff

// The range of a resource figure (registers, spills, bytes of shared or
// local memory, threads), shared by every reader that takes one from
// untrusted input: a capture's manifest and metadata, a cubin, an hsaco.
//
//   figure_in_range(227)          == true
//   figure_in_range(-1)           == false   // a count is never negative
//   figure_in_range(int64_t{1} << 60) == false
//
// A value outside the range is refused where it is read, with a located
// error, so the report's deltas (head - base) never overflow.
#pragma once

#include <cstdint>

namespace ksnap {

/// The largest figure accepted: 2^48.
constexpr int64_t kMaxFigure = int64_t{1} << 48;

/// True when `v` is a figure a real kernel can have: 0 <= v <= kMaxFigure.
constexpr bool figure_in_range(int64_t v) { return v >= 0 && v <= kMaxFigure; }

}  // namespace ksnap

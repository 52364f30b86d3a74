// The range of a resource figure (registers, spills, bytes of shared or
// local memory, threads), shared by every reader that takes one from
// untrusted input: a capture's manifest and metadata, a cubin, an hsaco.
//
//   figure_in_range(227)          == true
//   figure_in_range(-1)           == false   // a count is never negative
//   figure_in_range(int64_t{1} << 60) == false
//
// A value outside the range is refused where it is read (a capture, a
// binary, a stored record), with a located error, so one variant's delta
// (head - base) never overflows; totals over many variants are summed with
// saturating_add, which stops at INT64_MAX.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ksnap {

/// The largest figure accepted: 2^48.
constexpr int64_t kMaxFigure = int64_t{1} << 48;

/// True when `v` is a figure a real kernel can have: 0 <= v <= kMaxFigure.
constexpr bool figure_in_range(int64_t v) { return v >= 0 && v <= kMaxFigure; }

/// The one message every reader gives for a figure outside the range:
/// figure_range_message("shared", -1) == "-1 is out of range for \"shared\" (0 to 2^48)".
inline std::string figure_range_message(std::string_view name, int64_t v) {
  return std::to_string(v) + " is out of range for \"" + std::string(name) + "\" (0 to 2^48)";
}

/// `a + b` for two non-negative figures or totals, stopping at INT64_MAX
/// instead of overflowing: a report's totals over 100,000 variants of
/// 2^48 each stay defined (and so does head - base of two such totals).
constexpr int64_t saturating_add(int64_t a, int64_t b) {
  return a > INT64_MAX - b ? INT64_MAX : a + b;
}

}  // namespace ksnap

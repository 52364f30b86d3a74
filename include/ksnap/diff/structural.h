// ksnap structural diff of two normalized modules (one stage of one variant).
//
// Worked example. BASE and HEAD differ by one op hoisted out of a loop:
//   BASE                                   HEAD
//   %0 = arith.constant 1 : i32            %0 = arith.constant 1 : i32
//   scf.for %i = ... {                     %1 = arith.muli %0, %0 : i32
//     %1 = arith.muli %0, %0 : i32         scf.for %i = ... {
//     %2 = arith.addi %1, %i : i32           %2 = arith.addi %1, %i : i32
// A line diff of positional names (%v0, %v1, ...) is fine here, but in real
// IR one inserted op renumbers every later value. ksnap instead
//   1. sets aside order-free definitions (aliases, metadata, attribute
//      groups) whose canonical text the other side has too;
//   2. aligns lines by keys of their def-use neighbourhood (what each line
//      computes from and what uses it, never names; line_keys.h), matching
//      only keys unique in both sides, finest first, then by shape;
//   3. infers which HEAD symbol is which BASE symbol from the defs of aligned
//      and moved lines (uses vote where no def is aligned); module-scope
//      symbols of equal canonical id correspond from the start;
//   4. re-aligns on shape + resolved symbols, so a line whose operands now
//      refer to other values is a change, and nothing else is.
// Result: "-  %1 = arith.muli" inside the loop, "+  %1 = arith.muli" before it:
// 2 changed lines, and HEAD's lines print with BASE's names. A run of ops of
// one shape that loses or repeats a line shows that one line.
#pragma once

#include <cstdint>
#include <vector>

#include "ksnap/diff/result.h"
#include "ksnap/normalize/normalize.h"

namespace ksnap::diff {

struct StructuralOptions {
  /// Unchanged lines kept around each run of changes (DiffOptions::kept_context).
  uint32_t kept_context = 3;
  /// Bounds of the line alignment (diff/align.h): the largest gap (BASE
  /// lines x HEAD lines) solved by exact LCS, and the depth of anchoring by
  /// the rarest line beyond which a bigger gap is left unaligned. A gap left
  /// unaligned is shown as removed + added lines and named in `fallback`.
  uint64_t align_cells = 4u << 20;
  int align_depth = 64;
  /// A unit pair whose lines are equal position by position (same shapes,
  /// symbols of equal canonical ids; the order-free lines set aside) has its
  /// symbols mapped position by position instead of by alignment and votes:
  /// the same mapping and output (checked by tests and by the
  /// structural_diff fuzz target with this off), at the cost of one walk.
  /// Off only to check that.
  bool equal_units_by_position = true;
};

/// Fills lines_added/removed, hunks and change_signature of `out` (status
/// and other fields are the caller's). When the alignment left a gap
/// unaligned (StructuralOptions), `out->fallback` says where and how big;
/// the hunks are still complete and correct, only less precise there. Any two Modules built by
/// norm::normalize can be diffed, whatever units each side has; a Module
/// whose symbol references are out of range (not one normalize builds) is
/// not diffed: `out->fallback` says why.
/// `symbol_map` (optional) receives the symbol correspondence the diff
/// ended with: per HEAD symbol, the BASE symbol it is shown as (-1: none);
/// empty when the modules were not diffed.
void structural_diff(const norm::Module& base, const norm::Module& head,
                     const StructuralOptions& opts, StageDiff* out,
                     std::vector<int32_t>* symbol_map = nullptr);

}  // namespace ksnap::diff

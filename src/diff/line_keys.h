// Keys of normalized lines for the structural diff, none of which depends on
// a printed name.
//
// Worked example (LLVM IR, a run of same-shape ops):
//   %20 = bitcast i32 %16 to float      %16 = extractvalue {...} %15, 0
//   %21 = bitcast i32 %17 to float      %17 = extractvalue {...} %15, 1
// Both bitcasts have one shape, so aligning by shape pairs them by position
// and a line deleted from the run shifts every pair after it. Their
// neighbourhood keys differ: each folds in the keys of the lines that define
// its operands (`extractvalue ..., 0` vs `..., 1`) and of the lines that use
// its result, so each bitcast is unique and aligns with its true counterpart.
#pragma once

#include <cstdint>
#include <vector>

#include "ksnap/normalize/normalize.h"

namespace ksnap::diff {

/// The lines of one unit that a diff aligns, in file order.
using LineSeq = std::vector<const norm::Line*>;

/// The line's canonical text as a key: its shape and every symbol's canonical
/// id. Equal keys on two sides = equal lines in the canonical texts.
uint64_t canonical_key(const norm::Module& m, const norm::Line& l);

/// Neighbourhood keys, finest level first: level `levels` - 1 is the shape
/// with module-scope symbols (aliases, metadata, attribute groups) by their
/// canonical ids; each finer level folds into a line's key the previous
/// level's keys of the lines defining its operands (in operand order) and of
/// the lines using what it defines (as a set). Values and blocks count only
/// through the lines that define and use them, never by name or number.
/// `out[k][i]` is the level-k key of `lines[i]`.
std::vector<std::vector<uint64_t>> neighbourhood_keys(const norm::Module& m, const LineSeq& lines,
                                                      int levels);

}  // namespace ksnap::diff

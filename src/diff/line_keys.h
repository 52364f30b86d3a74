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
#include <memory>
#include <vector>

#include "ksnap/normalize/normalize.h"

namespace ksnap::diff {

/// The lines of one unit that a diff aligns, in file order.
using LineSeq = std::vector<const norm::Line*>;

/// The line's canonical text as a key: its shape and every symbol's canonical
/// id. Equal keys on two sides = equal lines in the canonical texts.
uint64_t canonical_key(const norm::Module& m, const norm::Line& l);

/// Neighbourhood keys, finest level first (`steps` + 5 levels). A line has
/// two cones: down, the lines defining its operands (in operand order,
/// recursively), and up, the lines using what it defines (as a set,
/// recursively). Levels `steps` - 1 .. 0 are both cones `steps` .. 1 lines
/// deep; then the whole down cone and the whole up cone (`whole_steps`
/// deep: a chain of identical ops is told apart only by its distance to
/// either end); then the down cone and the up cone `steps`
/// deep alone (a line whose operands changed still finds its counterpart by
/// its users, and the other way round); last the base: the shape with
/// module-scope symbols (aliases, metadata, attribute groups) by canonical
/// id. Values and blocks count only through the lines that define and use
/// them, never by name or number. `out[k][i]` is the level-k key of `lines[i]`.
std::vector<std::vector<uint64_t>> neighbourhood_keys(const norm::Module& m, const LineSeq& lines,
                                                      int steps, int whole_steps);

/// How many steps the cones of `lines` take to tell apart all the lines
/// they ever will (at most 256): `whole_steps` for neighbourhood_keys(),
/// the larger of the two sides of a diff, so that both take as many.
int whole_cone_steps(const norm::Module& m, const LineSeq& lines);

/// Both of the above from one def-use graph and one run of the cones, as
/// the diff of a unit needs them: `whole_steps()` steps the cones until they
/// tell apart all they ever will, keeping the levels it passes;
/// `keys(whole)` goes on from there. The values equal whole_cone_steps()
/// and neighbourhood_keys(m, lines, steps, whole).
///
///   ConeKeys b(base, lb, 4), h(head, lh, 4);
///   int whole = std::max(b.whole_steps(), h.whole_steps());
///   align_levels(b.keys(whole), h.keys(whole), ...);
///
/// Contract: keys() is called once, with `whole` >= whole_steps() when
/// whole_steps() ran; the object is spent after it.
class ConeKeys {
 public:
  ConeKeys(const norm::Module& m, const LineSeq& lines, int steps);
  ~ConeKeys();
  ConeKeys(const ConeKeys&) = delete;
  ConeKeys& operator=(const ConeKeys&) = delete;
  int whole_steps();
  std::vector<std::vector<uint64_t>> keys(int whole_steps);

 private:
  struct State;
  std::unique_ptr<State> s_;
  int whole_ = -1;
};

}  // namespace ksnap::diff

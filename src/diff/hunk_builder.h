// The structural diff's hunk builder: one unit's final alignment in, the
// unit's hunks, line counts and change signature out.
//
// Worked example, context 1. BASE lines b0..b3, HEAD lines h0..h3, aligned
// (b0,h0) (b1,h1) (b3,h3); b2 and h2 are left, and the gap pairs them
// (edit_pairs {(2,2)}: the same op, one operand changed). The edit script is
//   = b0/h0   = b1/h1   - b2   + h2   = b3/h3
// one hunk with one context line each side: ` b1`, `- b2`, `+ h2`, ` b3`;
// `+ h2` is spelled in BASE's names (respell.h) and both changed lines get
// word highlights against each other. Every changed line also feeds the
// change signature: its kind and its shape with digit runs masked, so that
// two changes differing only in constants (tile sizes) share a signature.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "diff/align.h"
#include "diff/line_keys.h"
#include "diff/respell.h"
#include "ksnap/diff/result.h"
#include "ksnap/support/hash.h"

namespace ksnap::diff {

class HunkBuilder {
 public:
  /// Hunks go to `out` (hunks, lines_added, lines_removed) with `context`
  /// unchanged lines around each run of changes.
  HunkBuilder(const HeadSpeller& speller, uint32_t context, StageDiff* out)
      : speller_(speller), context_(context), out_(out) {}

  /// Appends the hunks of one unit. `B`, `H`: its lines; `m`: the aligned
  /// pairs (increasing); `hidden`: pairs matched out of place, shown as
  /// nothing; `edit_pairs`: unaligned pairs that get word highlights.
  void emit(const std::string& unit, const LineSeq& B, const LineSeq& H,
            const std::vector<Match>& m, const std::vector<std::pair<uint32_t, uint32_t>>& hidden,
            const std::vector<std::pair<uint32_t, uint32_t>>& edit_pairs);

  /// Changed lines emitted so far (all units, all passes).
  size_t changes() const { return changes_; }
  /// The change signature of the lines so far (StageDiff::change_signature:
  /// never 0 when changes() > 0; 0 when there are none).
  uint64_t signature() const { return changes_ ? signature_.digest() | 1 : 0; }

 private:
  enum class Op : uint8_t { kEqual, kDel, kIns };
  struct Edit {
    Op op;
    uint32_t b;  // base line index (kEqual, kDel)
    uint32_t h;  // head line index (kEqual, kIns)
  };
  void make_hunk(const std::string& unit, const LineSeq& B, const LineSeq& H,
                 const std::vector<Edit>& script, size_t start, size_t end,
                 const std::unordered_map<uint32_t, uint32_t>& pb,
                 const std::unordered_map<uint32_t, uint32_t>& ph);
  void note_change(char kind, std::string_view shape);

  const HeadSpeller& speller_;
  uint32_t context_;
  StageDiff* out_;
  size_t changes_ = 0;
  Hasher signature_;
};

}  // namespace ksnap::diff

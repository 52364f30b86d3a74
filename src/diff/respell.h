// Spelling HEAD's lines with BASE's names: the structural diff's printer.
//
// The structural diff learns which HEAD symbol is which BASE symbol (the
// correspondence `map`, HEAD id -> BASE id or -1). A changed HEAD line is
// shown in BASE's names, so that only what really changed differs.
//
// Worked example (LLVM IR): HEAD's value %15 is BASE's %x; HEAD's block 21
// is BASE's .lr.ph; HEAD's %x has no counterpart, and BASE's %x is shown for
// HEAD's %15, so HEAD's own %x must not read as BASE's:
//   HEAD's own text   %x = add i32 %15, 1        br label %21
//   shown             %h_x = add i32 %x, 1       br label %.lr.ph
// Each respelled symbol is a Substitution (where it sits in the shown text
// and in HEAD's own), so highlights computed on the shown text map back onto
// HEAD's own text (map_spans).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "diff/claimed_names.h"
#include "ksnap/diff/result.h"
#include "ksnap/normalize/normalize.h"

namespace ksnap::diff {

/// Where a respelled symbol sits: [out, out + out_len) of the shown text is
/// [head, head + head_len) of HEAD's own text.
struct Substitution {
  uint32_t out, out_len, head, head_len;
};

/// `occ` (an occurrence of the symbol named `own`) spelled with `name`
/// instead, keeping what the occurrence adds around the name: LLVM blocks are
/// named `21` but used as `%21`.
std::string respell(std::string_view occ, std::string_view own, std::string_view name);

/// A HEAD-only name that cannot be read as a BASE name: `h_` after the
/// sigil or opening quote (`%x` -> `%h_x`, `"45"` -> `"h_45"`, `21` -> `h_21`,
/// `@.str.2` -> `@h_.str.2`).
std::string head_mark(std::string_view name);

/// Byte ranges of the shown text mapped onto HEAD's own text.
std::vector<Span> map_spans(const std::vector<Span>& spans, const std::vector<Substitution>& subs);

/// A line of HEAD with its symbols spelled by BASE's names, and where each
/// respelled symbol sits in the result and in HEAD's own text.
struct Respelled {
  std::string text;
  std::vector<Substitution> subs;
};

/// Spells HEAD's lines by the correspondence as it stands: `map` and
/// `claimed` are the differ's, read at each call (they change unit by unit).
class HeadSpeller {
 public:
  HeadSpeller(const norm::Module& base, const norm::Module& head, const std::vector<int32_t>& map,
              const ClaimedNames& claimed)
      : base_(base), head_(head), map_(map), claimed_(claimed) {}

  /// HEAD's line `l` with each symbol that corresponds to a BASE symbol
  /// spelled by BASE's name, keeping the occurrence's own sigil and quotes
  /// (`%21` with BASE block `.lr.ph` -> `%.lr.ph`; the label `21:` ->
  /// `.lr.ph:`). A HEAD symbol without a BASE counterpart whose own name BASE
  /// shows for another symbol gets an `h_` prefix (`%h_.lr.ph6`), so the line
  /// never names a different BASE symbol. So does a name that is no symbol
  /// (values under --keep-values) where a symbol of this unit is shown by
  /// that name: LLVM values and blocks share names, and `%15 = call ...`
  /// next to `br label %15` (HEAD's block 10, BASE's 15) would name two
  /// things; it reads `%h_15 = call ...`.
  Respelled renamed(const norm::Line& l) const;

 private:
  /// `own` or its other LLVM spelling is a BASE name a HEAD symbol is shown
  /// by: values and blocks share one namespace, and a block named `21` is
  /// used as `%21`, so HEAD's block 21 beside a value shown as BASE's `%21`
  /// must read `h_21:` / `%h_21` (issue 19: `+ %21 = shl`, `+ br label %21`).
  bool claimed_as_any(std::string_view own) const;

  /// Appends [from, to) of `text` (no symbol in it) to `r`, marking each
  /// `%name` / `@name` outside strings that a symbol of this unit is shown as.
  void append_unnamed(std::string_view text, size_t from, size_t to, Respelled* r) const;

  const norm::Module& base_;
  const norm::Module& head_;
  const std::vector<int32_t>& map_;  // head symbol -> base symbol
  const ClaimedNames& claimed_;
};

}  // namespace ksnap::diff

// Internal: syntax-highlighting runs for the HTML report, produced by ksnap's
// own IR lexer (ir/lexer.h), never by a JavaScript highlighter.
//
// A line becomes a flat list of (length, class) runs covering the whole line;
// lengths are in UTF-16 code units (what JavaScript string indices count), so
// the page can slice the text without decoding UTF-8 itself.
//
//   "%0 = tt.load %p : tensor<256xf32>"   (MLIR)
//   -> [2,v, 3,0, 7,o, 1,0, 2,v, 3,0, 6,t, 1,0, 8,t, 1,0]
//      %0   " = "  tt.load  " " %p  " : " tensor "<" 256xf32 ">"
//   (class 0 = plain: whitespace and punctuation)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ksnap/diff/result.h"
#include "ksnap/ir/lexer.h"

namespace ksnap::render::html {

/// Token classes of the report; the CSS class of class c is "t" + kTokenClassNames[c]
/// (class 0 has no CSS class).
enum class TokenClass : uint8_t {
  kPlain,      ///< Whitespace, punctuation.
  kKeyword,    ///< Bare words that are neither op nor type (`public`, attribute names).
  kOp,         ///< The op / instruction of a line: `tt.load`, `store`, `ld.global.v2.b32`.
  kType,       ///< `i32`, `f16`, `tensor`, `ptr`, `128x64xf16`.
  kValue,      ///< `%x_3`, `%12`, `%r5`.
  kBlock,      ///< `^bb3`.
  kSymbol,     ///< `@add_kernel`.
  kAlias,      ///< `#blocked1`, `#3`.
  kBang,       ///< `!tt.ptr`, `!12`.
  kLabel,      ///< `$L__BB0_2`, label definitions `bb3:`.
  kDirective,  ///< `.reg`, `.visible`.
  kNumber,     ///< Integers and floats.
  kString,     ///< `"..."`.
  kComment,    ///< `// ...`, `; ...`.
  kError,      ///< Text the lexer rejected (shown, never dropped).
};
inline constexpr int kTokenClassCount = 15;

/// Short CSS names by class index: "", "k", "o", "t", "v", ...
extern const char* const kTokenClassNames[kTokenClassCount];

/// The class of one token. `first_word` is true for the first bare word of a
/// line's instruction (after a result list `%a, %b =` or a PTX guard `@%p`).
TokenClass token_class(ir::TokenKind kind, std::string_view text, bool first_word);

/// Highlighting runs of one line (no '\n' inside): flat [len, class, len,
/// class, ...] in UTF-16 units, adjacent runs of one class merged, covering
/// the whole line. A lexer error does not stop it: the rejected text is
/// classed kError (an unterminated `/*` comment: kComment) and lexing goes on.
std::vector<uint32_t> token_runs(const std::string& line, ir::Dialect dialect);

/// Byte length of the UTF-8 sequence starting at s[i] (1 to 4), or 0 when the
/// bytes there are not valid UTF-8 (a stray or truncated byte).
size_t utf8_sequence(std::string_view s, size_t i);

/// UTF-16 length of UTF-8 text; an invalid byte counts one unit (it is shown
/// as one U+FFFD, see html_data.cc).
uint32_t utf16_length(std::string_view utf8);

/// Runs as compact text for the data island: per run its class letter ('_'
/// for plain) then its length in decimal: [2,v, 3,0, 7,o] -> "v2_3o7".
std::string runs_text(const std::vector<uint32_t>& runs);

/// DiffLine::highlights (byte offsets) as flat [begin, end, ...] UTF-16
/// offsets; spans out of range or overlapping the previous one are dropped.
std::vector<uint32_t> utf16_spans(const std::string& line, const std::vector<diff::Span>& spans);

}  // namespace ksnap::render::html

// ksnap IR lexer: one dialect-agnostic tokenizer for the text that GPU
// compilers print: MLIR (any dialect: tt., ttg., ttng., amdgpu, Intel's, ...),
// LLVM IR, PTX, and tolerant of AMDGCN assembly and SPIR-V text.
//
// The lexer is one `switch (*cur_++)` over a NUL-terminated buffer. A token is
// a kind plus a std::string_view into that buffer: no allocation per token.
// Line and column are computed only when an error is reported.
//
//   %x_3 = tt.addptr %x, %offsets_1 : tensor<256x!tt.ptr<f32>> loc(#loc24)
//   ^^^^ kValueId  ^^^^^^^^ kBareId  ...  kPunct '<' ... kAttrAlias "#loc24"
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ksnap/support/status.h"

namespace ksnap::ir {

/// Which grammar's lexical rules apply. They differ in what `%`, `!`, `#`,
/// `$`, `//` and `;` introduce.
enum class Dialect : uint8_t {
  kMlir,    ///< TTIR, TTGIR and any MLIR text (also Triton's `.source`).
  kLlvm,    ///< LLVM IR (`.llir`).
  kPtx,     ///< NVIDIA PTX.
  kAmdgcn,  ///< AMDGPU assembly (`.amdgcn`).
  kSpirv,   ///< SPIR-V text (`.spv` / `.spvdis`).
  kSass,    ///< NVIDIA SASS (`nvdisasm` / `cuobjdump -sass` text): lexed by PTX rules.
};

const char* dialect_name(Dialect d);

/// Dialect for a Triton cache stage file extension ("ttir", "ttgir", "source",
/// "llir", "ptx", "amdgcn", "spv", "sass"); nullopt-like false return for unknown.
bool dialect_for_stage(std::string_view stage, Dialect* out);

enum class TokenKind : uint8_t {
  kEof,         ///< The NUL sentinel at the end of the buffer.
  kNewline,     ///< '\n' (lines matter to every consumer).
  kBareId,      ///< Keywords, op names, types, mnemonics: `tt.load`, `i32`, `ld.global.v2.b32`;
                ///< also MLIR shape prefixes `256xi32`, `128x64xf16` (digits glued to letters).
  kValueId,     ///< MLIR `%x_3`, `%0#1`; LLVM `%12`, `%"q"`; PTX registers `%r12`, `%rd3`, `%tid.x`.
  kBlockId,     ///< MLIR `^bb3`.
  kSymbolRef,   ///< `@add_kernel`, LLVM globals `@llvm.nvvm...`.
  kHashId,      ///< MLIR attribute aliases `#blocked1`, `#loc3`; LLVM attribute groups `#3`.
  kBangId,      ///< MLIR type aliases / dialect types `!tt.ptr`; LLVM metadata `!12`, `!dbg`.
  kDollarId,    ///< PTX labels `$L__BB0_2`; inline-asm operands `$0`.
  kLabelDef,    ///< At the start of a line only: LLVM `bb3:` / `7:` / `.lr.ph:` /
                ///< `for.body-lr:` / `"45":`, PTX `$L__BB0_2:`, asm `.LBB0_1:` (the label
                ///< token includes ':'). Not in MLIR.
  kDirective,   ///< PTX/asm `.reg`, `.loc`, `.visible` (leading '.').
  kInteger,     ///< `42`, `-1`, `0x1F`.
  kFloat,       ///< `1.0e+00`, `-2.5`, PTX `0f3F800000` / `0d3FF0...`; LLVM's `0x7FF...`
                ///< and `0xH3C00` hex floats are kInteger.
  kString,      ///< `"..."` including quotes; escapes kept verbatim.
  kComment,     ///< `// ...` (MLIR, PTX, AMDGCN) or `; ...` (LLVM, AMDGCN, SPIR-V) to end of
                ///< line, without '\n'; PTX/AMDGCN `/* ... */` (may span lines).
  kPunct,       ///< One punctuation char or `->`, `::`, `...`, `<=`, `>=`.
  kTypeList,    ///< Only with Lexer::fold_type_lists(): `float, float, float` (one LLVM
                ///< type name, at least twice, after `{ `) as one token; see there.
  kError,       ///< Malformed input; see Lexer::error().
};

const char* token_kind_name(TokenKind k);

struct Token {
  TokenKind kind = TokenKind::kEof;
  std::string_view text;
};

/// Tokenizes a NUL-terminated buffer. `begin[size]` must be '\0'.
/// After a kError token, error_message() describes it; lexing may continue
/// after it. Never reads past the sentinel.
///
/// Errors: unterminated string (a newline or the end comes before the closing
/// quote), unterminated `/*` comment, a NUL byte before the end, a control
/// byte, a byte that is not part of valid UTF-8 text. UTF-8 text outside
/// strings and comments (rare; e.g. in a name) is a kBareId.
class Lexer {
 public:
  Lexer(const char* begin, size_t size, Dialect dialect);

  /// Next token; kEof forever at the end.
  Token next();

  /// The rest of the current line's tokens, written to out[0..cap): the
  /// same tokens as calling next(), one call per line instead of per token.
  /// Returns true when the line ended: *count tokens were written and *end
  /// is the kNewline, kEof or kError token that ended it. Returns false when
  /// `cap` tokens filled `out` first (*count == cap): call again with more
  /// room to go on with the same line.
  bool next_line(Token* out, size_t cap, size_t* count, Token* end);

  /// Byte offset of the next unread char.
  size_t offset() const { return static_cast<size_t>(cur_ - begin_); }
  /// Goes on at `p` (at or after the next unread char, at most the end),
  /// passing over the bytes before it unlexed: for a caller that checked
  /// they hold nothing it needs, no error, no newline and brackets that
  /// pair up among themselves (so the bracket state is what lexing them
  /// would leave).
  void skip_to(const char* p) { cur_ = p; }
  const char* begin() const { return begin_; }
  Dialect dialect() const { return dialect_; }

  /// Message for the last kError token ("unterminated string", ...), and the
  /// offset where it starts.
  std::string_view error_message() const { return error_message_; }
  size_t error_offset() const { return error_offset_; }

  /// Also check that brackets pair up: `(` `[` `{`, and `<` `>` when
  /// `angles` (MLIR types, LLVM vectors, PTX `%r<N>`; not in assembly, where
  /// `<<` is an operator; `<=` / `>=` never count). A closing bracket that
  /// closes nothing or the wrong one is a kError token at it; at the end of
  /// the buffer a bracket still open is a kError (empty text) whose
  /// error_offset() is that bracket, then kEof.
  void check_brackets(bool angles) {
    brackets_on_ = true;
    angles_ = angles;
  }
  /// LLVM IR only: a run of one type name repeated with `, ` between
  /// (at least twice) right after `{ ` is one kTypeList token instead of
  /// its names and commas. Triton's LLVM IR spells a tensor's registers as
  /// such a struct (`{ float, float, ... }`, 64 or 128 times) on every
  /// extractvalue / insertvalue / asm call: about half of its bytes. The
  /// names are LLVM's own type keywords (`half` `bfloat` `float` `double`
  /// `fp128` `ptr` `iN`), so a consumer that treats them as plain text can
  /// treat the run the same way (Engine::text_list). Off by default.
  void fold_type_lists() { fold_lists_ = true; }
  /// `{` nesting after the tokens read so far (with check_brackets).
  uint32_t brace_depth() const { return brace_depth_; }
  /// Newlines consumed inside tokens so far (multi-line `/* */` comments),
  /// for callers that count lines by kNewline tokens.
  uint32_t inner_newlines() const { return inner_newlines_; }

 private:
  Token make(TokenKind kind, const char* start) {
    at_line_start_ = kind == TokenKind::kNewline;
    return Token{kind, std::string_view(start, static_cast<size_t>(cur_ - start))};
  }
  Token error(const char* start, std::string_view message);

  /// make() ending at `end`: lex_token's cursor, kept in a register.
  Token make_at(const char* end, TokenKind kind, const char* start) {
    at_line_start_ = kind == TokenKind::kNewline;
    return Token{kind, std::string_view(start, static_cast<size_t>(end - start))};
  }
  /// Calls helper `f`, which reads and moves cur_, from lex_token(cur).
  template <typename F, typename... A>
  Token call(const char*& cur, F f, A... a) {
    cur_ = cur;
    Token t = (this->*f)(a...);
    cur = cur_;
    return t;
  }
  /// The body of next(), inlined into next_line(): lexes from `cur` and
  /// moves it past the token (cur_ is only synced around helper calls).
  Token lex_token(const char*& cur);
  void open_bracket(char c, const char* at) {
    if (c == '{') ++brace_depth_;
    open_.push_back(Open{c, static_cast<uint32_t>(at - begin_)});
  }
  /// False (and the error prepared) when `c` does not close the innermost.
  bool close_bracket(char c, const char* at) {
    char want = c == ')' ? '(' : c == ']' ? '[' : c == '}' ? '{' : '<';
    if (open_.empty() || open_.back().c != want) return false;
    open_.pop_back();
    if (c == '}') --brace_depth_;
    return true;
  }
  Token bracket_error(const char* at);
  Token unclosed_error();
  Token lex_number(const char* start);
  Token lex_string(const char* start);
  Token lex_line_comment(const char* start);
  Token lex_utf8(const char* start);
  /// At a line's start in LLVM IR: when the name from the char before cur_
  /// on ends in ':' it is a label (cur_ moves past the ':'); else nothing moves.
  bool llvm_label(const char*& cur);
  /// With fold_lists_: `name` [start, cur) is followed by `, name, ...`
  /// and preceded by `{ `: the end of the run; else `cur`.
  const char* type_list_end(const char* start, const char* cur) const;

  const char* begin_;
  const char* cur_;
  const char* end_;
  Dialect dialect_;
  bool at_line_start_ = true;  ///< No token yet on this line (label definitions).
  bool brackets_on_ = false;
  bool angles_ = false;
  bool fold_lists_ = false;
  struct Open {
    char c;
    uint32_t off;
  };
  std::vector<Open> open_;  ///< Open brackets, innermost last.
  uint32_t brace_depth_ = 0;
  uint32_t inner_newlines_ = 0;
  std::string error_text_;  ///< Storage for messages built on the spot.
  std::string_view error_message_;
  size_t error_offset_ = 0;
};

}  // namespace ksnap::ir

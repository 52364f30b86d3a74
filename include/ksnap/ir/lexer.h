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
#include <string_view>

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
};

const char* dialect_name(Dialect d);

/// Dialect for a Triton cache stage file extension ("ttir", "ttgir", "source",
/// "llir", "ptx", "amdgcn", "spv"); nullopt-like false return for unknown.
bool dialect_for_stage(std::string_view stage, Dialect* out);

enum class TokenKind : uint8_t {
  kEof,         ///< The NUL sentinel at the end of the buffer.
  kNewline,     ///< '\n' (lines matter to every consumer).
  kBareId,      ///< Keywords, op names, types, mnemonics: `tt.load`, `i32`, `ld.global.v2.b32`.
  kValueId,     ///< MLIR `%x_3`, `%0#1`; LLVM `%12`, `%"q"`; PTX registers `%r12`, `%rd3`, `%tid.x`.
  kBlockId,     ///< MLIR `^bb3`.
  kSymbolRef,   ///< `@add_kernel`, LLVM globals `@llvm.nvvm...`.
  kHashId,      ///< MLIR attribute aliases `#blocked1`, `#loc3`; LLVM attribute groups `#3`.
  kBangId,      ///< MLIR type aliases / dialect types `!tt.ptr`; LLVM metadata `!12`, `!dbg`.
  kDollarId,    ///< PTX labels `$L__BB0_2`; inline-asm operands `$0`.
  kLabelDef,    ///< LLVM `bb3:` / `7:`, PTX `$L__BB0_2:` (the label token includes ':').
  kDirective,   ///< PTX/asm `.reg`, `.loc`, `.visible` (leading '.').
  kInteger,     ///< `42`, `-1`, `0x1F`.
  kFloat,       ///< `1.0e+00`, `0x7FF...` style floats in LLVM are kInteger/kBareId.
  kString,      ///< `"..."` including quotes; escapes kept verbatim.
  kComment,     ///< `// ...` (MLIR, PTX) or `; ...` (LLVM) to end of line, without '\n'.
  kPunct,       ///< One punctuation char or `->`, `::`, `...`.
  kError,       ///< Malformed input; see Lexer::error().
};

const char* token_kind_name(TokenKind k);

struct Token {
  TokenKind kind = TokenKind::kEof;
  std::string_view text;
};

/// Tokenizes a NUL-terminated buffer. `begin[size]` must be '\0'.
/// After a kError token, error() describes it; lexing may continue after it.
class Lexer {
 public:
  Lexer(const char* begin, size_t size, Dialect dialect);

  /// Next token; kEof forever at the end.
  Token next();

  /// Byte offset of the next unread char.
  size_t offset() const { return static_cast<size_t>(cur_ - begin_); }
  const char* begin() const { return begin_; }
  Dialect dialect() const { return dialect_; }

  /// Message for the last kError token ("unterminated string", ...), and the
  /// offset where it starts.
  std::string_view error_message() const { return error_message_; }
  size_t error_offset() const { return error_offset_; }

 private:
  Token make(TokenKind kind, const char* start) {
    return Token{kind, std::string_view(start, static_cast<size_t>(cur_ - start))};
  }
  Token error(const char* start, std::string_view message);

  const char* begin_;
  const char* cur_;
  const char* end_;
  Dialect dialect_;
  std::string_view error_message_;
  size_t error_offset_ = 0;
};

}  // namespace ksnap::ir

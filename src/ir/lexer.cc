// The ksnap IR lexer. Worked example (LLVM IR):
//
//   %15 = getelementptr float, ptr addrspace(1) %0, i64 %14, !dbg !12 ; c
//   kValueId "%15", kPunct "=", kBareId "getelementptr", kBareId "float",
//   kPunct ",", kBareId "ptr", kBareId "addrspace", kPunct "(", kInteger "1",
//   kPunct ")", kValueId "%0", ..., kBangId "!dbg", kBangId "!12",
//   kComment "; c", kNewline
//
// The same bytes as PTX would lex `;` as kPunct and `!` as kPunct: the few
// places where the grammars disagree are the `dialect_` tests below.
#include "ksnap/ir/lexer.h"

#include <cstring>

namespace ksnap::ir {
namespace {

enum : uint8_t {
  kIdStart = 1,   // [A-Za-z_]
  kIdChar = 2,    // [A-Za-z0-9_.$]
  kDigit = 4,     // [0-9]
  kHex = 8,       // [0-9A-Fa-f]
  kSuffix = 16,   // MLIR/LLVM name chars: [A-Za-z0-9_.$-]
};

struct CharTable {
  uint8_t bits[256] = {};
  constexpr CharTable() {
    for (int c = 'a'; c <= 'z'; ++c) bits[c] |= kIdStart | kIdChar | kSuffix;
    for (int c = 'A'; c <= 'Z'; ++c) bits[c] |= kIdStart | kIdChar | kSuffix;
    for (int c = '0'; c <= '9'; ++c) bits[c] |= kIdChar | kDigit | kHex | kSuffix;
    for (int c = 'a'; c <= 'f'; ++c) bits[c] |= kHex;
    for (int c = 'A'; c <= 'F'; ++c) bits[c] |= kHex;
    bits[static_cast<uint8_t>('_')] |= kIdStart | kIdChar | kSuffix;
    bits[static_cast<uint8_t>('.')] |= kIdChar | kSuffix;
    bits[static_cast<uint8_t>('$')] |= kIdChar | kSuffix;
    bits[static_cast<uint8_t>('-')] |= kSuffix;
  }
};
constexpr CharTable kChars;

inline bool is(char c, uint8_t cls) { return kChars.bits[static_cast<uint8_t>(c)] & cls; }

/// Past the run of name chars at `p`: [A-Za-z0-9_.$] (kIdChar), with '-' too
/// when `Dash` (kSuffix); stops at the NUL sentinel. (A 16-byte SSE2 scan
/// was measured slower here: names are short, docs/benchmarks.md.)
template <bool Dash>
inline const char* skip_name(const char* p) {
  constexpr uint8_t cls = Dash ? kSuffix : kIdChar;
  while (is(*p, cls)) ++p;
  return p;
}

// Length of the valid UTF-8 sequence at `p` (2-4), or 0 when invalid. Reads
// at most up to the first byte that is not a continuation byte, so it never
// passes the NUL sentinel.
int utf8_length(const unsigned char* p) {
  unsigned char c = p[0];
  int n;
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c >= 0xE0 && c <= 0xEF) n = 3;
  else if (c >= 0xF0 && c <= 0xF4) n = 4;
  else return 0;
  for (int i = 1; i < n; ++i) {
    if ((p[i] & 0xC0) != 0x80) return 0;
  }
  if (c == 0xE0 && p[1] < 0xA0) return 0;  // overlong
  if (c == 0xED && p[1] > 0x9F) return 0;  // surrogate
  if (c == 0xF0 && p[1] < 0x90) return 0;  // overlong
  if (c == 0xF4 && p[1] > 0x8F) return 0;  // > U+10FFFF
  return n;
}

}  // namespace

const char* dialect_name(Dialect d) {
  switch (d) {
    case Dialect::kMlir: return "mlir";
    case Dialect::kLlvm: return "llvm";
    case Dialect::kPtx: return "ptx";
    case Dialect::kAmdgcn: return "amdgcn";
    case Dialect::kSpirv: return "spirv";
    case Dialect::kSass: return "sass";
  }
  return "?";
}

bool dialect_for_stage(std::string_view stage, Dialect* out) {
  struct Entry {
    std::string_view stage;
    Dialect dialect;
  };
  static constexpr Entry kStages[] = {
      {"ttir", Dialect::kMlir},     {"ttgir", Dialect::kMlir},  {"source", Dialect::kMlir},
      {"mlir", Dialect::kMlir},     {"llir", Dialect::kLlvm},   {"ll", Dialect::kLlvm},
      {"ptx", Dialect::kPtx},       {"amdgcn", Dialect::kAmdgcn}, {"spv", Dialect::kSpirv},
      {"spvdis", Dialect::kSpirv}, {"spirv", Dialect::kSpirv},  {"sass", Dialect::kSass},
  };
  for (const Entry& e : kStages) {
    if (e.stage == stage) {
      *out = e.dialect;
      return true;
    }
  }
  return false;
}

const char* token_kind_name(TokenKind k) {
  switch (k) {
    case TokenKind::kEof: return "eof";
    case TokenKind::kNewline: return "newline";
    case TokenKind::kBareId: return "bare-id";
    case TokenKind::kValueId: return "value-id";
    case TokenKind::kBlockId: return "block-id";
    case TokenKind::kSymbolRef: return "symbol-ref";
    case TokenKind::kHashId: return "hash-id";
    case TokenKind::kBangId: return "bang-id";
    case TokenKind::kDollarId: return "dollar-id";
    case TokenKind::kLabelDef: return "label-def";
    case TokenKind::kDirective: return "directive";
    case TokenKind::kInteger: return "integer";
    case TokenKind::kFloat: return "float";
    case TokenKind::kString: return "string";
    case TokenKind::kComment: return "comment";
    case TokenKind::kPunct: return "punct";
    case TokenKind::kTypeList: return "type-list";
    case TokenKind::kError: return "error";
  }
  return "?";
}

Lexer::Lexer(const char* begin, size_t size, Dialect dialect)
    : begin_(begin),
      cur_(begin),
      end_(begin + size),
      // SASS tokens are PTX's: `/* */` and `//` comments, `;` ends an
      // instruction, `@P0` guards, `.L_x_3:` labels.
      dialect_(dialect == Dialect::kSass ? Dialect::kPtx : dialect) {}

Token Lexer::error(const char* start, std::string_view message) {
  error_message_ = message;
  error_offset_ = static_cast<size_t>(start - begin_);
  return make(TokenKind::kError, start);
}

__attribute__((always_inline)) inline Token Lexer::lex_token(const char*& cur) {
  while (*cur == ' ') ++cur;  // the common separator, before the dispatch
  while (true) {
    const char* start = cur;
    char c = *cur++;
    // The two commonest tokens before the switch: a name not at a line's
    // start (where it may be a label) and a comma (`{ float, float, ...}`).
    if (is(c, kIdStart) && !at_line_start_) {
      cur = skip_name<false>(cur);
      if (*cur == ',' && fold_lists_) {
        const char* e = type_list_end(start, cur);
        if (e != cur) {
          cur = e;
          return make_at(cur, TokenKind::kTypeList, start);
        }
      }
      return make_at(cur, TokenKind::kBareId, start);
    }
    if (c == ',') return make_at(cur, TokenKind::kPunct, start);
    // at_line_start_ is read by the few cases that define labels; make_at()
    // clears it for every token but a newline.
    switch (c) {
      case '\0':
        if (start == end_) {
          cur = start;  // kEof forever; never step past the sentinel
          if (brackets_on_ && !open_.empty()) return call(cur, &Lexer::unclosed_error);
          return make_at(cur, TokenKind::kEof, start);
        }
        return call(cur, &Lexer::error, start, std::string_view("NUL byte in text (binary data?)"));
      case ' ':
      case '\t':
      case '\r':
      case '\f':
      case '\v':
        while (*cur == ' ' || *cur == '\t' || *cur == '\r') ++cur;
        continue;
      case '\n':
        return make_at(cur, TokenKind::kNewline, start);
      case '%':
        if (*cur == '"' && dialect_ != Dialect::kPtx) {  // LLVM %"quoted name"
          Token s = call(cur, &Lexer::lex_string, cur);
          if (s.kind == TokenKind::kError) return s;
          return make_at(cur, TokenKind::kValueId, start);
        }
        if (dialect_ == Dialect::kPtx) {
          if (!is(*cur, kIdChar)) return make_at(cur, TokenKind::kPunct, start);
          cur = skip_name<false>(cur);
          return make_at(cur, TokenKind::kValueId, start);
        }
        if (!is(*cur, kSuffix)) return make_at(cur, TokenKind::kPunct, start);
        cur = skip_name<true>(cur);
        if (dialect_ == Dialect::kMlir && *cur == '#' && is(cur[1], kDigit)) {
          ++cur;  // %0#1: result 1 of %0
          while (is(*cur, kDigit)) ++cur;
        }
        return make_at(cur, TokenKind::kValueId, start);
      case '^':
        if (dialect_ == Dialect::kMlir && is(*cur, kSuffix)) {
          cur = skip_name<true>(cur);
          return make_at(cur, TokenKind::kBlockId, start);
        }
        return make_at(cur, TokenKind::kPunct, start);
      case '@':
        if (dialect_ == Dialect::kPtx) return make_at(cur, TokenKind::kPunct, start);  // @%p1 guard
        if (*cur == '"') {
          Token s = call(cur, &Lexer::lex_string, cur);
          if (s.kind == TokenKind::kError) return s;
          return make_at(cur, TokenKind::kSymbolRef, start);
        }
        if (!is(*cur, kSuffix)) return make_at(cur, TokenKind::kPunct, start);
        cur = skip_name<true>(cur);
        return make_at(cur, TokenKind::kSymbolRef, start);
      case '#':
        if (!is(*cur, kSuffix)) return make_at(cur, TokenKind::kPunct, start);
        while (is(*cur, kIdChar) || (*cur == '-' && dialect_ == Dialect::kMlir)) ++cur;
        return make_at(cur, TokenKind::kHashId, start);
      case '!':
        if ((dialect_ == Dialect::kMlir || dialect_ == Dialect::kLlvm) &&
            (is(*cur, kSuffix) || *cur == '\\')) {
          while (is(*cur, kSuffix) || *cur == '\\') ++cur;
          return make_at(cur, TokenKind::kBangId, start);
        }
        return make_at(cur, TokenKind::kPunct, start);
      case '$':
        if (!is(*cur, kIdChar)) return make_at(cur, TokenKind::kPunct, start);
        while (is(*cur, kIdChar)) ++cur;
        if (at_line_start_ && *cur == ':' && dialect_ != Dialect::kMlir) {
          ++cur;
          return make_at(cur, TokenKind::kLabelDef, start);
        }
        return make_at(cur, TokenKind::kDollarId, start);
      case '.':
        if (at_line_start_ && dialect_ == Dialect::kLlvm && llvm_label(cur)) {  // `.lr.ph:`
          return make_at(cur, TokenKind::kLabelDef, start);
        }
        if (cur[0] == '.' && cur[1] == '.') {
          cur += 2;
          return make_at(cur, TokenKind::kPunct, start);
        }
        if (is(*cur, kIdStart) || *cur == '$') {
          cur = skip_name<false>(cur);
          if (at_line_start_ && *cur == ':' &&
              (dialect_ == Dialect::kPtx || dialect_ == Dialect::kAmdgcn)) {
            ++cur;
            return make_at(cur, TokenKind::kLabelDef, start);
          }
          return make_at(cur, TokenKind::kDirective, start);
        }
        if (is(*cur, kDigit)) return call(cur, &Lexer::lex_number, start);
        return make_at(cur, TokenKind::kPunct, start);
      case ';':
        if (dialect_ == Dialect::kLlvm || dialect_ == Dialect::kAmdgcn ||
            dialect_ == Dialect::kSpirv) {
          return call(cur, &Lexer::lex_line_comment, start);
        }
        return make_at(cur, TokenKind::kPunct, start);
      case '/':
        if (*cur == '/' && dialect_ != Dialect::kLlvm && dialect_ != Dialect::kSpirv) {
          return call(cur, &Lexer::lex_line_comment, start);
        }
        if (*cur == '*' && (dialect_ == Dialect::kPtx || dialect_ == Dialect::kAmdgcn)) {
          ++cur;
          while (true) {
            if (*cur == '*' && cur[1] == '/') {
              cur += 2;
              return make_at(cur, TokenKind::kComment, start);
            }
            if (*cur == '\0' && cur == end_)
              return call(cur, &Lexer::error, start, std::string_view("unterminated /* comment"));
            inner_newlines_ += *cur == '\n';
            ++cur;
          }
        }
        return make_at(cur, TokenKind::kPunct, start);
      case '"':
        if (at_line_start_ && dialect_ == Dialect::kLlvm) {  // a quoted label `"45":`
          Token str = call(cur, &Lexer::lex_string, start);
          if (str.kind == TokenKind::kString && *cur == ':' && cur[1] != ':') {
            ++cur;
            return make_at(cur, TokenKind::kLabelDef, start);
          }
          return str;
        }
        return call(cur, &Lexer::lex_string, start);
      case '-':
        if (at_line_start_ && dialect_ == Dialect::kLlvm && llvm_label(cur)) {
          return make_at(cur, TokenKind::kLabelDef, start);
        }
        if (*cur == '>') {
          ++cur;
          return make_at(cur, TokenKind::kPunct, start);
        }
        if (is(*cur, kDigit)) return call(cur, &Lexer::lex_number, start);
        return make_at(cur, TokenKind::kPunct, start);
      case ':':
        if (*cur == ':') ++cur;
        return make_at(cur, TokenKind::kPunct, start);
      case '<':
      case '>':
        if (*cur == '=') {
          ++cur;
        } else if (brackets_on_ && angles_) {
          if (c == '<') {
            open_bracket(c, start);
          } else if (!close_bracket(c, start)) {
            return call(cur, &Lexer::bracket_error, start);
          }
        }
        return make_at(cur, TokenKind::kPunct, start);
      case '0': case '1': case '2': case '3': case '4':
      case '5': case '6': case '7': case '8': case '9':
        if (at_line_start_ && dialect_ == Dialect::kLlvm) {  // numbered LLVM label "7:"
          const char* p = cur;
          while (is(*p, kDigit)) ++p;
          if (*p == ':') {
            cur = p + 1;
            return make_at(cur, TokenKind::kLabelDef, start);
          }
        }
        return call(cur, &Lexer::lex_number, start);
      case '(': case '{': case '[':
        if (brackets_on_) open_bracket(c, start);
        return make_at(cur, TokenKind::kPunct, start);
      case ')': case '}': case ']':
        if (brackets_on_ && !close_bracket(c, start))
          return call(cur, &Lexer::bracket_error, start);
        return make_at(cur, TokenKind::kPunct, start);
      case ',': case '=':
      case '*': case '+': case '?': case '|': case '&': case '~': case '`': case '\'':
      case '\\':
        return make_at(cur, TokenKind::kPunct, start);
      default:
        break;
    }
    if (is(c, kIdStart)) {
      // LLVM labels may hold '-' (`for.body-lr:`): looked for at a line's start.
      if (at_line_start_ && dialect_ == Dialect::kLlvm && llvm_label(cur)) {
        return make_at(cur, TokenKind::kLabelDef, start);
      }
      cur = skip_name<false>(cur);
      if (at_line_start_ && *cur == ':' && cur[1] != ':' &&
          (dialect_ == Dialect::kLlvm || dialect_ == Dialect::kPtx ||
           dialect_ == Dialect::kAmdgcn)) {
        ++cur;
        return make_at(cur, TokenKind::kLabelDef, start);
      }
      return make_at(cur, TokenKind::kBareId, start);
    }
    unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x80) return call(cur, &Lexer::lex_utf8, start);
    if (u < 0x20 || u == 0x7F)
      return call(cur, &Lexer::error, start, std::string_view("stray control byte (binary data?)"));
    return make_at(cur, TokenKind::kPunct, start);  // any other printable ASCII char
  }
}

Token Lexer::next() {
  const char* cur = cur_;
  Token t = lex_token(cur);
  cur_ = cur;
  return t;
}

bool Lexer::llvm_label(const char*& cur) {
  // `cur` is one past the label's first char; LLVM label names are
  // [-a-zA-Z$._0-9]+ followed by ':' (not '::').
  const char* p = skip_name<true>(cur);
  if (*p != ':' || p[1] == ':') return false;
  cur = p + 1;
  return true;
}

namespace {
/// An LLVM type keyword that a struct type lists: `half` `bfloat` `float`
/// `double` `fp128` `ptr` `i1` .. `i<digits>`.
bool llvm_list_type(std::string_view t) {
  if (t.size() >= 2 && t[0] == 'i') {
    for (size_t k = 1; k < t.size(); ++k) {
      if (t[k] < '0' || t[k] > '9') return false;
    }
    return true;
  }
  return t == "float" || t == "half" || t == "bfloat" || t == "double" || t == "ptr" ||
         t == "fp128";
}
}  // namespace

const char* Lexer::type_list_end(const char* start, const char* cur) const {
  // `start - 2` is in the buffer: a name not at a line's start follows a
  // token, and `start[-1] == ' '` comes first.
  if (start - begin_ < 2 || start[-1] != ' ' || start[-2] != '{') return cur;
  const size_t n = static_cast<size_t>(cur - start);
  if (!llvm_list_type(std::string_view(start, n))) return cur;
  // The run after the first name is `, T` repeated: text periodic with
  // period u = n + 2. Its first unit is checked byte by byte (the compare
  // stops at the first byte that differs, so never past the NUL sentinel);
  // after it the run goes on while a byte equals the one u before (64 or 8
  // at a time while they are in the buffer, whose end_ is readable).
  const size_t u = n + 2;
  if (cur[0] != ',' || cur[1] != ' ') return cur;
  for (size_t k = 0; k < n; ++k) {
    if (cur[2 + k] != start[k]) return cur;
  }
  const char* q = cur + u;
  // 64 bytes a compare first (memcmp is libc's vector code; runs are
  // 400-1000 bytes), then 8, then 1 where they differ.
  while (end_ - q >= 64 && std::memcmp(q, q - u, 64) == 0) q += 64;
  while (end_ - q >= 8) {
    uint64_t a, b;
    std::memcpy(&a, q, 8);
    std::memcpy(&b, q - u, 8);
    if (a != b) break;
    q += 8;
  }
  while (*q == q[-static_cast<ptrdiff_t>(u)] && q < end_) ++q;
  // Whole units only, and the last one's name must end there (`float,
  // floaty` stops before `, floaty`).
  const char* e = cur + (static_cast<size_t>(q - cur) / u) * u;
  if (is(*e, kIdChar)) e -= u;
  return e;
}

bool Lexer::next_line(Token* __restrict out, size_t cap, size_t* count, Token* end) {
  // The cursor lives in a register for the whole line: kept in cur_ (which
  // the stores to `out` might alias), it made a store and a reload on the
  // path from each token to the next.
  const char* cur = cur_;
  size_t n = 0;
  bool ended = false;
  while (n < cap) {
    Token t = lex_token(cur);
    if (t.kind == TokenKind::kNewline || t.kind == TokenKind::kEof || t.kind == TokenKind::kError) {
      *end = t;
      ended = true;
      break;
    }
    // Member by member: a whole-struct copy is built on the stack with a
    // one-byte store and read back with one 16-byte load, which cannot be
    // store-forwarded (a stall per token: a fifth of `ksnap diff`'s time).
    out[n].kind = t.kind;
    out[n].text = t.text;
    ++n;
  }
  cur_ = cur;
  *count = n;
  return ended;
}

namespace {
/// "line:col" of `offset` (errors only: O(offset)).
std::string line_col(const char* begin, size_t offset) {
  size_t line = 1, col = 1;
  for (size_t i = 0; i < offset; ++i) {
    if (begin[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return std::to_string(line) + ":" + std::to_string(col);
}
}  // namespace

Token Lexer::bracket_error(const char* at) {
  char c = *at;
  if (open_.empty()) {
    error_text_ = std::string("unbalanced '") + c + "': nothing is open here";
  } else {
    error_text_ = std::string("'") + c + "' does not close the '" + open_.back().c +
                  "' opened at line " + line_col(begin_, open_.back().off);
  }
  return error(at, error_text_);
}

Token Lexer::unclosed_error() {
  Open o = open_.back();
  open_.clear();
  error_text_ = std::string("'") + o.c + "' is never closed (the file ends first; truncated?)";
  error_message_ = error_text_;
  error_offset_ = o.off;
  return make(TokenKind::kError, cur_);  // empty text at the end
}

Token Lexer::lex_number(const char* start) {
  // `start` is at '-', '.' or a digit; cur_ is one past it.
  cur_ = start;
  if (*cur_ == '-') ++cur_;
  TokenKind kind = TokenKind::kInteger;
  if (cur_[0] == '0' && (cur_[1] == 'x' || cur_[1] == 'X')) {
    cur_ += 2;
    // LLVM hex floats: 0xK..., 0xL..., 0xM..., 0xH..., 0xR...
    if ((*cur_ == 'K' || *cur_ == 'L' || *cur_ == 'M' || *cur_ == 'H' || *cur_ == 'R') &&
        is(cur_[1], kHex)) {
      ++cur_;
    }
    while (is(*cur_, kHex)) ++cur_;
  } else if (dialect_ == Dialect::kPtx && cur_[0] == '0' &&
             (cur_[1] == 'f' || cur_[1] == 'F' || cur_[1] == 'd' || cur_[1] == 'D') &&
             is(cur_[2], kHex)) {
    cur_ += 2;  // PTX 0f3F800000 / 0d3FF0000000000000
    while (is(*cur_, kHex)) ++cur_;
    kind = TokenKind::kFloat;
  } else {
    while (is(*cur_, kDigit)) ++cur_;
    if (*cur_ == '.' && is(cur_[1], kDigit)) {
      kind = TokenKind::kFloat;
      ++cur_;
      while (is(*cur_, kDigit)) ++cur_;
    } else if (*cur_ == '.' && !is(cur_[1], kIdStart)) {
      kind = TokenKind::kFloat;  // "1." as LLVM prints none, but MLIR accepts
      ++cur_;
    }
    if ((*cur_ == 'e' || *cur_ == 'E') &&
        (is(cur_[1], kDigit) || ((cur_[1] == '+' || cur_[1] == '-') && is(cur_[2], kDigit)))) {
      kind = TokenKind::kFloat;
      cur_ += 2;
      while (is(*cur_, kDigit)) ++cur_;
    }
  }
  // Digits glued to letters: MLIR shapes `256xi32`, `128x64xf16`, suffixes.
  if (is(*cur_, kIdStart)) {
    while (is(*cur_, kIdChar)) ++cur_;
    return make(TokenKind::kBareId, start);
  }
  return make(kind, start);
}

Token Lexer::lex_string(const char* start) {
  // `start` is at the opening quote.
  cur_ = start + 1;
  while (true) {
    const char* q = cur_;
    // Fast scan to the next char that needs a decision.
    while (*q != '"' && *q != '\\' && *q != '\n' && *q != '\0') ++q;
    cur_ = q;
    switch (*cur_) {
      case '"':
        ++cur_;
        return make(TokenKind::kString, start);
      case '\\':
        if (cur_[1] == '\n' || (cur_[1] == '\0' && cur_ + 1 == end_)) {
          ++cur_;
          return error(start, "unterminated string");
        }
        cur_ += 2;
        continue;
      case '\n':
        return error(start, "unterminated string (the line ends before the closing quote)");
      default:  // '\0'
        if (cur_ == end_) return error(start, "unterminated string (the file ends inside it)");
        ++cur_;
        return error(cur_ - 1, "NUL byte in a string (binary data?)");
    }
  }
}

Token Lexer::lex_line_comment(const char* start) {
  const char* nl = static_cast<const char*>(
      std::memchr(cur_, '\n', static_cast<size_t>(end_ - cur_)));
  cur_ = nl ? nl : end_;
  return make(TokenKind::kComment, start);
}

Token Lexer::lex_utf8(const char* start) {
  cur_ = start;
  while (true) {
    unsigned char u = static_cast<unsigned char>(*cur_);
    if (u >= 0x80) {
      int n = utf8_length(reinterpret_cast<const unsigned char*>(cur_));
      if (n == 0) {
        if (cur_ == start) {
          ++cur_;
          return error(start, "stray byte that is not UTF-8 text (binary data?)");
        }
        break;
      }
      cur_ += n;
    } else if (is(*cur_, kIdChar)) {
      ++cur_;
    } else {
      break;
    }
  }
  return make(TokenKind::kBareId, start);
}

}  // namespace ksnap::ir

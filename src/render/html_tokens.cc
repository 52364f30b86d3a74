// Syntax-highlighting runs from ksnap's IR lexer; see html_tokens.h.
//
// Worked example (PTX, a guarded branch):
//   "@%p1 bra $L__BB0_2;"
//   lexer:  '@' punct, %p1 value, "bra" bare, $L__BB0_2 dollar, ';' punct
//   runs:   [1,0, 3,v, 1,0, 3,o, 1,0, 9,l, 1,0]   ("bra" is the instruction: class o)
#include "render/html_tokens.h"

#include <cctype>

namespace ksnap::render::html {

const char* const kTokenClassNames[kTokenClassCount] = {"",  "k", "o", "t", "v", "b", "s", "a",
                                                        "m", "l", "d", "n", "q", "c", "e"};

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

/// i32, f16, bf16, si8, f8E4M3FN, 256xi32, 128x64xf16, tensor, ptr, ...
bool is_type_word(std::string_view w) {
  static constexpr std::string_view kTypes[] = {
      "tensor", "vector",  "memref", "ptr",   "index", "void",     "label",
      "half",   "float",   "double", "token", "none",  "metadata", "x86_fp80",
      "fp128",  "complex", "tuple",  "tf32",  "bf16",  "opaque"};
  for (std::string_view t : kTypes)
    if (w == t) return true;
  if (w.empty()) return false;
  if (is_digit(w[0])) return w.find('x') != std::string_view::npos;  // MLIR shape prefix
  size_t p = 0;
  if (w.size() > 2 && (w.substr(0, 2) == "si" || w.substr(0, 2) == "ui"))
    p = 2;
  else if (w[0] == 'i' || w[0] == 'f' || w[0] == 'u' || w[0] == 's' || w[0] == 'b')
    p = 1;
  else
    return false;
  if (p >= w.size() || !is_digit(w[p])) return false;
  for (size_t i = p; i < w.size(); ++i)
    if (!is_alnum(w[i])) return false;
  return true;
}

/// Bare words that lead a line without being its op.
bool is_never_op(std::string_view w) {
  static constexpr std::string_view kWords[] = {"loc",     "attributes", "define",
                                                "declare", "target",     "source_filename"};
  for (std::string_view k : kWords)
    if (w == k) return true;
  return false;
}

void push_run(std::vector<uint32_t>* runs, uint32_t len, TokenClass c) {
  if (len == 0) return;
  uint32_t cls = static_cast<uint32_t>(c);
  if (!runs->empty() && runs->back() == cls) {
    (*runs)[runs->size() - 2] += len;
    return;
  }
  runs->push_back(len);
  runs->push_back(cls);
}

}  // namespace

TokenClass token_class(ir::TokenKind kind, std::string_view text, bool first_word) {
  using ir::TokenKind;
  switch (kind) {
    case TokenKind::kBareId:
      if (is_type_word(text)) return TokenClass::kType;
      if (first_word && !is_never_op(text)) return TokenClass::kOp;
      return TokenClass::kKeyword;
    case TokenKind::kValueId:
      return TokenClass::kValue;
    case TokenKind::kBlockId:
      return TokenClass::kBlock;
    case TokenKind::kSymbolRef:
      return TokenClass::kSymbol;
    case TokenKind::kHashId:
      return TokenClass::kAlias;
    case TokenKind::kBangId:
      return TokenClass::kBang;
    case TokenKind::kDollarId:
    case TokenKind::kLabelDef:
      return TokenClass::kLabel;
    case TokenKind::kDirective:
      return TokenClass::kDirective;
    case TokenKind::kInteger:
    case TokenKind::kFloat:
      return TokenClass::kNumber;
    case TokenKind::kString:
      return TokenClass::kString;
    case TokenKind::kComment:
      return TokenClass::kComment;
    case TokenKind::kError:
      return text.substr(0, 2) == "/*" ? TokenClass::kComment : TokenClass::kError;
    case TokenKind::kTypeList:
      return TokenClass::kType;
    case TokenKind::kPunct:
    case TokenKind::kNewline:
    case TokenKind::kEof:
      return TokenClass::kPlain;
  }
  return TokenClass::kPlain;
}

size_t utf8_sequence(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  size_t n = c >= 0xC2 && c <= 0xDF   ? 2
             : c >= 0xE0 && c <= 0xEF ? 3
             : c >= 0xF0 && c <= 0xF4 ? 4
                                      : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  return n;
}

uint32_t utf16_length(std::string_view s) {
  uint32_t n = 0;
  for (size_t i = 0; i < s.size();) {
    size_t len = utf8_sequence(s, i);
    n += len == 4 ? 2 : 1;  // outside the BMP: a surrogate pair
    i += len ? len : 1;
  }
  return n;
}

std::string runs_text(const std::vector<uint32_t>& runs) {
  std::string out;
  out.reserve(runs.size() * 2);
  for (size_t i = 0; i + 1 < runs.size(); i += 2) {
    out += runs[i + 1] ? kTokenClassNames[runs[i + 1]][0] : '_';
    out += std::to_string(runs[i]);
  }
  return out;
}

std::vector<uint32_t> token_runs(const std::string& line, ir::Dialect dialect) {
  std::vector<uint32_t> runs;
  const char* base = line.c_str();  // NUL-terminated, as the lexer needs
  ir::Lexer lex(base, line.size(), dialect);
  size_t done = 0;  // bytes of the line already covered by runs
  bool want_op = true;
  while (true) {
    ir::Token t = lex.next();
    if (t.kind == ir::TokenKind::kEof) break;
    size_t start = static_cast<size_t>(t.text.data() - base);
    if (start > done)
      push_run(&runs, utf16_length({base + done, start - done}), TokenClass::kPlain);
    TokenClass c = token_class(t.kind, t.text, want_op);
    // An instruction's op comes after its results (`%a, %b =`, `%r:2 =`) or a PTX guard (`@%p1`).
    if (t.kind != ir::TokenKind::kValueId && t.kind != ir::TokenKind::kPunct &&
        t.kind != ir::TokenKind::kInteger)
      want_op = false;
    push_run(&runs, utf16_length(t.text), c);
    done = start + t.text.size();
  }
  if (done < line.size())
    push_run(&runs, utf16_length({base + done, line.size() - done}), TokenClass::kPlain);
  return runs;
}

std::vector<uint32_t> utf16_spans(const std::string& line, const std::vector<diff::Span>& spans) {
  std::vector<uint32_t> out;
  uint32_t prev_end = 0;  // bytes
  uint32_t prev_u16 = 0;  // UTF-16 offset of prev_end
  for (const diff::Span& s : spans) {
    if (s.begin < prev_end || s.end <= s.begin || s.end > line.size()) continue;
    uint32_t b =
        prev_u16 + utf16_length(std::string_view(line).substr(prev_end, s.begin - prev_end));
    uint32_t e = b + utf16_length(std::string_view(line).substr(s.begin, s.end - s.begin));
    out.push_back(b);
    out.push_back(e);
    prev_end = s.end;
    prev_u16 = e;
  }
  return out;
}

}  // namespace ksnap::render::html

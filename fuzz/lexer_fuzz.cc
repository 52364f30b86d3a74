// libFuzzer target for the IR lexer. The first byte picks the dialect; the
// rest is the text. Checks: the lexer ends, every token lies inside the
// buffer, tokens never overlap or go backwards, only kEof (and the
// end-of-file "never closed" error) is empty. Bracket checking is on.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "ksnap/ir/lexer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ksnap::ir;
  if (size == 0) return 0;
  Dialect d = static_cast<Dialect>(data[0] % 5);
  std::string text(reinterpret_cast<const char*>(data + 1), size - 1);  // + NUL sentinel
  Lexer lx(text.c_str(), text.size(), d);
  lx.check_brackets(d == Dialect::kMlir || d == Dialect::kLlvm || d == Dialect::kPtx);
  const char* begin = text.c_str();
  const char* end = begin + text.size();
  const char* last_end = begin;
  for (size_t n = 0;; ++n) {
    Token t = lx.next();
    if (t.text.data() < last_end || t.text.data() + t.text.size() > end) abort();
    if (t.kind == TokenKind::kEof) {
      if (lx.offset() != text.size() || !t.text.empty()) abort();
      break;
    }
    if (t.text.empty() && t.kind != TokenKind::kError) abort();  // unclosed bracket at the end
    if (t.kind == TokenKind::kError && lx.error_message().empty()) abort();
    last_end = t.text.data() + t.text.size();
    if (n > text.size() + 1) abort();  // more tokens than bytes: no progress
  }
  return 0;
}

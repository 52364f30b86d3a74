// libFuzzer target for the IR lexer. The first byte picks the dialect; the
// rest is the text. Checks: the lexer ends, every token lies inside the
// buffer, tokens never overlap or go backwards, only kEof (and the
// end-of-file "never closed" error) is empty. Bracket checking is on.
// next_line() (the normalizer's path, which keeps its own cursor) gives the
// same tokens, errors and offsets as next(), with lines cut into pieces of
// 1 to 4 tokens so that its "out of room" return is taken too. LLVM IR is
// lexed with fold_type_lists() when the first byte's next bit is set, and
// then also checked against a lexer without it: the same tokens, except
// that a kTypeList token stands for exactly the names and `,` tokens that
// lexer gives over the same bytes (alternating, the names all equal).
#include <cstdint>
#include <cstdlib>
#include <string>

#include "ksnap/ir/lexer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ksnap::ir;
  if (size == 0) return 0;
  Dialect d = static_cast<Dialect>(data[0] % 5);
  const bool fold = d == Dialect::kLlvm && (data[0] / 5) % 2 == 1;
  std::string text(reinterpret_cast<const char*>(data + 1), size - 1);  // + NUL sentinel
  Lexer lx(text.c_str(), text.size(), d);
  lx.check_brackets(d == Dialect::kMlir || d == Dialect::kLlvm || d == Dialect::kPtx);
  if (fold) lx.fold_type_lists();
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

  Lexer by_token(text.c_str(), text.size(), d), by_line(text.c_str(), text.size(), d);
  by_token.check_brackets(d == Dialect::kMlir || d == Dialect::kLlvm || d == Dialect::kPtx);
  by_line.check_brackets(d == Dialect::kMlir || d == Dialect::kLlvm || d == Dialect::kPtx);
  if (fold) {
    by_token.fold_type_lists();
    by_line.fold_type_lists();
  }
  auto same = [](const Token& a, const Token& b) {
    return a.kind == b.kind && a.text.data() == b.text.data() && a.text.size() == b.text.size();
  };
  Token buf[4];
  for (size_t round = 0;; ++round) {
    size_t cap = 1 + round % 4, count = 0;
    Token end_tok;
    bool ended = by_line.next_line(buf, cap, &count, &end_tok);
    if (count > cap || (!ended && count != cap)) abort();
    for (size_t i = 0; i < count; ++i) {
      if (!same(buf[i], by_token.next())) abort();
    }
    if (!ended) {
      if (by_line.offset() != by_token.offset()) abort();
      continue;
    }
    if (!same(end_tok, by_token.next())) abort();
    if (by_line.offset() != by_token.offset()) abort();
    if (end_tok.kind == TokenKind::kError &&
        (by_line.error_message() != by_token.error_message() ||
         by_line.error_offset() != by_token.error_offset())) {
      abort();
    }
    if (by_line.brace_depth() != by_token.brace_depth() ||
        by_line.inner_newlines() != by_token.inner_newlines()) {
      abort();
    }
    if (end_tok.kind == TokenKind::kEof) break;
    if (round > 2 * text.size() + 4) abort();  // no progress
  }

  if (!fold) return 0;
  Lexer folded(text.c_str(), text.size(), d), plain(text.c_str(), text.size(), d);
  folded.check_brackets(true);
  plain.check_brackets(true);
  folded.fold_type_lists();
  for (size_t n = 0;; ++n) {
    Token f = folded.next();
    if (f.kind != TokenKind::kTypeList) {
      if (!same(f, plain.next())) abort();
      if (f.kind == TokenKind::kEof) break;
      continue;
    }
    // `T, T, ..., T`: at least two names, all spelled alike, commas between.
    const char* stop = f.text.data() + f.text.size();
    Token first = plain.next();
    if (first.kind != TokenKind::kBareId || first.text.data() != f.text.data()) abort();
    size_t names = 1;
    while (plain.offset() < static_cast<size_t>(stop - begin)) {
      Token comma = plain.next(), name = plain.next();
      if (comma.kind != TokenKind::kPunct || comma.text != ",") abort();
      if (name.kind != TokenKind::kBareId || name.text != first.text) abort();
      ++names;
    }
    if (names < 2 || plain.offset() != static_cast<size_t>(stop - begin)) abort();
    if (n > text.size() + 1) abort();
  }
  return 0;
}

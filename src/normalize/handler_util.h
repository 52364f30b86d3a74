// Small token predicates shared by the dialect handlers.
#pragma once

#include <charconv>
#include <cstdint>
#include <span>
#include <string_view>

#include "ksnap/ir/lexer.h"
#include "ksnap/support/figures.h"

namespace ksnap::norm::detail {

using TokenSpan = std::span<const ir::Token>;

inline bool is_punct(const ir::Token& t, char c) {
  return t.kind == ir::TokenKind::kPunct && t.text.size() == 1 && t.text[0] == c;
}
inline bool is_bare(const ir::Token& t, std::string_view s) {
  return t.kind == ir::TokenKind::kBareId && t.text == s;
}
/// The byte right after the token (the NUL sentinel at the end: safe).
inline char char_after(const ir::Token& t) { return t.text.data()[t.text.size()]; }

/// Past `lit` at `p` in a NUL-terminated buffer, or nullptr; reads no
/// further than the first byte that differs (the sentinel differs from every
/// byte of `lit`). For the checks of lines passed over unlexed.
inline const char* skip_literal(const char* p, const char* lit) {
  for (; *lit; ++p, ++lit) {
    if (*p != *lit) return nullptr;
  }
  return p;
}

/// Decimal integer value of `s` (optional '-'), or `fallback`.
inline int64_t parse_int(std::string_view s, int64_t fallback = -1) {
  int64_t v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return (r.ec == std::errc() && r.ptr == s.data() + s.size()) ? v : fallback;
}

/// A count from the IR (`%r<14>`, `smem[4096]`, `R12`, `SHI_REGISTERS=10`),
/// clamped to [0, kMaxFigure] so that sums and products of counts cannot
/// overflow: `%r<99999999999999999999>` counts kMaxFigure, `-3` counts 0,
/// and text that is not a number counts `fallback`.
inline int64_t parse_count(std::string_view s, int64_t fallback = 0) {
  if (s.empty()) return fallback;
  int64_t v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ptr != s.data() + s.size()) return fallback;
  if (r.ec == std::errc::result_out_of_range) return s[0] == '-' ? 0 : kMaxFigure;
  if (r.ec != std::errc()) return fallback;
  return v < 0 ? 0 : v > kMaxFigure ? kMaxFigure : v;
}

/// `@name` / `@"name"` -> `name`.
inline std::string_view symbol_name(std::string_view s) {
  if (!s.empty() && s[0] == '@') s.remove_prefix(1);
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  return s;
}

/// Index of `c` in `s` from `from`, or npos: a plain loop, as the texts are
/// a few bytes long (std::string_view::find calls memchr).
inline size_t find_char(std::string_view s, char c, size_t from = 0) {
  for (size_t i = from; i < s.size(); ++i) {
    if (s[i] == c) return i;
  }
  return std::string_view::npos;
}

/// All digits (and non-empty) after the first char: `!12`, `#3`, `%7`.
inline bool numbered(std::string_view s) {
  if (s.size() < 2) return false;
  for (size_t i = 1; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  return true;
}

/// Index of the token closing the bracket opened at toks[open] (same line),
/// or toks.size() - 1 when it stays open.
inline size_t match_close(TokenSpan toks, size_t open, char o, char c) {
  int depth = 0;
  for (size_t i = open; i < toks.size(); ++i) {
    if (is_punct(toks[i], o)) ++depth;
    else if (is_punct(toks[i], c) && --depth == 0) return i;
  }
  return toks.size() - 1;
}

}  // namespace ksnap::norm::detail

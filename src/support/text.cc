#include "ksnap/support/text.h"

#include <cstdint>

namespace ksnap {

namespace {

/// Length of the well-formed UTF-8 sequence starting at s[i], or 0 when the
/// byte at i does not start one (RFC 3629 table; no overlongs/surrogates).
size_t utf8_seq_len(std::string_view s, size_t i) {
  auto at = [&](size_t k) -> uint8_t { return static_cast<uint8_t>(s[k]); };
  uint8_t c = at(i);
  if (c < 0x80) return 1;
  size_t n = s.size() - i;
  auto cont = [&](size_t k) { return k < n && (at(i + k) & 0xC0) == 0x80; };
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (n < 3 || !cont(1) || !cont(2)) return 0;
    uint8_t c1 = at(i + 1);
    if (c == 0xE0 && c1 < 0xA0) return 0;  // overlong
    if (c == 0xED && c1 > 0x9F) return 0;  // surrogate
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (n < 4 || !cont(1) || !cont(2) || !cont(3)) return 0;
    uint8_t c1 = at(i + 1);
    if (c == 0xF0 && c1 < 0x90) return 0;  // overlong
    if (c == 0xF4 && c1 > 0x8F) return 0;  // > U+10FFFF
    return 4;
  }
  return 0;
}

void append_hex_byte(std::string* out, uint8_t b) {
  static const char kHex[] = "0123456789abcdef";
  out->append("\\x");
  out->push_back(kHex[b >> 4]);
  out->push_back(kHex[b & 15]);
}

}  // namespace

bool is_valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8_seq_len(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string to_valid_utf8(std::string_view s) {
  if (is_valid_utf8(s)) return std::string(s);
  std::string out;
  out.reserve(s.size() + 16);
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8_seq_len(s, i);
    if (n == 0) {
      append_hex_byte(&out, static_cast<uint8_t>(s[i]));
      ++i;
    } else {
      out.append(s, i, n);
      i += n;
    }
  }
  return out;
}

std::string escape_control(std::string_view s, bool keep_tab) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    uint8_t c = static_cast<uint8_t>(s[i]);
    size_t n = utf8_seq_len(s, i);
    if (n == 0) {
      append_hex_byte(&out, c);
      ++i;
      continue;
    }
    if (n == 1) {
      if ((c < 0x20 && !(keep_tab && c == '\t')) || c == 0x7F) append_hex_byte(&out, c);
      else out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    if (n == 2 && c == 0xC2 && static_cast<uint8_t>(s[i + 1]) < 0xA0) {
      // C1 control U+0080..U+009F (CSI is U+009B).
      static const char kHex[] = "0123456789abcdef";
      uint8_t cp = static_cast<uint8_t>(s[i + 1]);
      out.append("\\u00");
      out.push_back(kHex[cp >> 4]);
      out.push_back(kHex[cp & 15]);
      i += 2;
      continue;
    }
    out.append(s, i, n);
    i += n;
  }
  return out;
}

}  // namespace ksnap

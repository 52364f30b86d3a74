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

/// `\uNNNN` (lowercase hex) for a code point of the BMP.
void append_u_escape(std::string* out, char32_t cp) {
  static const char kHex[] = "0123456789abcdef";
  out->append("\\u");
  for (int shift = 12; shift >= 0; shift -= 4) out->push_back(kHex[(cp >> shift) & 15]);
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

bool is_invisible_control(char32_t c) {
  return (c >= 0x80 && c <= 0x9F)          // C1 controls (CSI is U+009B)
         || c == 0x061C                    // ARABIC LETTER MARK
         || c == 0x200E || c == 0x200F     // LRM, RLM
         || (c >= 0x202A && c <= 0x202E)   // LRE RLE PDF LRO RLO
         || (c >= 0x2066 && c <= 0x2069);  // LRI RLI FSI PDI
}

size_t invisible_control_at(std::string_view s, size_t i, char32_t* cp) {
  if (i >= s.size()) return 0;
  auto at = [&](size_t k) -> uint8_t { return static_cast<uint8_t>(s[i + k]); };
  size_t n = utf8_seq_len(s, i);
  char32_t c;
  if (n == 2) {
    c = (char32_t(at(0) & 0x1F) << 6) | (at(1) & 0x3F);
  } else if (n == 3) {
    c = (char32_t(at(0) & 0x0F) << 12) | (char32_t(at(1) & 0x3F) << 6) | (at(2) & 0x3F);
  } else {
    return 0;
  }
  if (!is_invisible_control(c)) return 0;
  if (cp) *cp = c;
  return n;
}

std::string escape_invisible(std::string_view s) {
  std::string out;
  size_t done = 0;
  char32_t cp;
  for (size_t i = 0; i < s.size();) {
    size_t n = invisible_control_at(s, i, &cp);
    if (n == 0) {
      ++i;
      continue;
    }
    out.append(s, done, i - done);
    append_u_escape(&out, cp);
    i += n;
    done = i;
  }
  if (done == 0) return std::string(s);
  out.append(s, done, s.size() - done);
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
      if ((c < 0x20 && !(keep_tab && c == '\t')) || c == 0x7F)
        append_hex_byte(&out, c);
      else
        out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    char32_t cp;
    if (invisible_control_at(s, i, &cp)) {  // C1 or bidi control: shown, never obeyed
      append_u_escape(&out, cp);
      i += n;
      continue;
    }
    out.append(s, i, n);
    i += n;
  }
  return out;
}

}  // namespace ksnap

#include "ksnap/support/text.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <vector>

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


namespace {

std::string lower_ascii(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string did_you_mean(const std::string& value, const std::vector<std::string>& candidates) {
  const std::string v = lower_ascii(value);
  if (v.empty()) return "";
  std::string best;
  size_t best_score = SIZE_MAX;
  for (const std::string& c : candidates) {
    std::string lc = lower_ascii(c);
    size_t score;
    if (lc == v) score = 0;
    else if (lc.rfind(v, 0) == 0 || v.rfind(lc, 0) == 0) score = 1 + (lc.size() > v.size() ? lc.size() - v.size() : v.size() - lc.size()) / 8;
    else if (lc.find(v) != std::string::npos) score = 3;
    else {
      size_t d = edit_distance(v, lc);
      if (d > std::max<size_t>(2, lc.size() / 3)) continue;
      score = 3 + d;
    }
    if (score < best_score) {
      best_score = score;
      best = c;
    }
  }
  return best;
}


}  // namespace ksnap

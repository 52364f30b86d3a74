// JSON text writer; see json_out.h.
#include "render/json_out.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "ksnap/support/text.h"

namespace ksnap::render {

JsonOut& JsonOut::num(int64_t v) {
  char buf[24];
  auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  text.append(buf, end);
  return *this;
}

JsonOut& JsonOut::real(double v) {
  if (!std::isfinite(v)) return raw("null");
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return raw(buf);
}

JsonOut& JsonOut::str(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string repaired;
  if (!is_valid_utf8(s)) {
    repaired = to_valid_utf8(s);
    s = repaired;
  }
  text += '"';
  for (size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    unsigned char c = static_cast<unsigned char>(ch);
    if (c >= 0xC2) {  // a C1 or bidi control (support/text.h) is written \uNNNN
      char32_t cp;
      if (size_t n = invisible_control_at(s, i, &cp)) {
        text += "\\u";
        for (int shift = 12; shift >= 0; shift -= 4) text += kHex[(cp >> shift) & 15];
        i += n - 1;
        continue;
      }
    }
    if (c == '"') {
      text += "\\\"";
    } else if (c == '\\') {
      text += "\\\\";
    } else if (c == '\n') {
      text += "\\n";
    } else if (c == '\t') {
      text += "\\t";
    } else if (c < 0x20 || c == 0x7F) {
      text += "\\u00";
      text += kHex[c >> 4];
      text += kHex[c & 15];
    } else {
      text += ch;
    }
  }
  text += '"';
  return *this;
}

JsonOut& JsonOut::value(std::string_view json_text) {
  // Controls can stand raw only inside the text's strings, where \uNNNN
  // means the same: escape_invisible keeps the value and hides nothing.
  if (!json_text.empty() && is_valid_utf8(json_text) && nlohmann::json::accept(json_text))
    return raw(escape_invisible(json_text));
  return str(json_text);
}

JsonOut& JsonOut::strs(const std::vector<std::string>& v) {
  text += '[';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) text += ',';
    str(v[i]);
  }
  text += ']';
  return *this;
}

std::vector<diff::Span> repair_spans(std::string_view s, const std::vector<diff::Span>& spans) {
  if (is_valid_utf8(s)) return spans;
  // Offset in the repaired text of every byte offset of s (size + 1 entries).
  std::vector<uint32_t> at(s.size() + 1, 0);
  uint32_t out = 0;
  for (size_t i = 0; i < s.size();) {
    std::string_view rest = s.substr(i);
    size_t n = 1;
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
      if (n == 0 || n > rest.size() || !is_valid_utf8(rest.substr(0, n))) n = 0;
    }
    if (n == 0) {  // an invalid byte: `\xNN`
      at[i] = out;
      out += 4;
      ++i;
      continue;
    }
    for (size_t k = 0; k < n; ++k) at[i + k] = out + static_cast<uint32_t>(k);
    out += static_cast<uint32_t>(n);
    i += n;
  }
  at[s.size()] = out;
  std::vector<diff::Span> moved;
  for (const diff::Span& sp : spans)
    if (sp.begin < sp.end && sp.end <= s.size()) moved.push_back({at[sp.begin], at[sp.end]});
  return moved;
}

}  // namespace ksnap::render

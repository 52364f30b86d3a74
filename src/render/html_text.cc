// Escaping for the HTML report; see html_text.h.
//
// Worked example: an LLVM IR line holding a string with "</script>" in it,
//   @s = constant [10 x i8] c"</script>\00"
// goes into the data island as  "@s = constant [10 x i8] c\"<\/script>\\00\""
// (JSON.parse gives the line back unchanged), and a kernel name with '<' in
// it goes into the summary as "&lt;".
#include "render/html_text.h"

#include "ksnap/support/text.h"

namespace ksnap::render::html {

std::string escape_html(std::string_view s) {
  // Bytes that are not UTF-8, control and bidi characters from data are
  // shown (`\xff`, `\x1b`, `\u202e`), never sent raw; newlines stay.
  std::string shown;
  for (size_t b = 0;;) {
    size_t e = s.find('\n', b);
    shown += escape_control(s.substr(b, e == std::string_view::npos ? e : e - b));
    if (e == std::string_view::npos) break;
    shown += '\n';
    b = e + 1;
  }
  s = shown;
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string script_safe_json(std::string_view json) {
  std::string out;
  out.reserve(json.size() + json.size() / 64);
  for (size_t i = 0; i < json.size(); ++i) {
    char c = json[i];
    if (c == '\\' && i + 1 < json.size()) {
      // An escape: a C0, C1 or bidi control (json::dump spells them \u202e)
      // becomes the visible text `\u202e` in the page; others stay.
      bool hidden = false;
      if (json[i + 1] == 'u' && i + 6 <= json.size()) {
        std::string_view hex = json.substr(i + 2, 4);
        char32_t cp = 0;
        bool ok = true;
        for (char h : hex) {
          int d = h >= '0' && h <= '9'   ? h - '0'
                  : h >= 'a' && h <= 'f' ? h - 'a' + 10
                  : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                         : -1;
          ok = ok && d >= 0;
          cp = cp * 16 + (d < 0 ? 0 : d);
        }
        hidden = ok && (cp < 0x20 || cp == 0x7F || is_invisible_control(cp));
      }
      out += hidden ? std::string_view("\\\\u") : json.substr(i, 2);
      ++i;
    } else if (c == '<' && i + 1 < json.size() && json[i + 1] == '/') {
      out += "<\\/";
      ++i;
    } else if (c == '<' && json.substr(i, 4) == "<!--") {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace ksnap::render::html

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
  std::string repaired;
  if (!is_valid_utf8(s)) {  // bytes that are not UTF-8 are shown as \xNN, never sent raw
    repaired = to_valid_utf8(s);
    s = repaired;
  }
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
    if (c == '<' && i + 1 < json.size() && json[i + 1] == '/') {
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

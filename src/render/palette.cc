// Terminal colors and diff lines; see palette.h.
#include "render/palette.h"

#include "ksnap/report/report.h"
#include "ksnap/support/text.h"

namespace ksnap::render {

Palette palette(bool color) {
  Palette p;
  if (!color) return p;
  p.bold = "\x1b[1m";
  p.dim = "\x1b[2m";
  p.red = "\x1b[31m";
  p.green = "\x1b[32m";
  p.cyan = "\x1b[36m";
  p.yellow = "\x1b[33m";
  p.red_hl = "\x1b[1;97;41m";
  p.green_hl = "\x1b[1;97;42m";
  p.reset = "\x1b[0m";
  return p;
}

void append_diff_line(std::string* out, const diff::DiffLine& l, bool head_names, const Palette& p) {
  const std::string& text = report::shown_text(l, head_names);
  const auto& spans = report::shown_highlights(l, head_names);
  const char* color = l.kind == diff::LineKind::kAdded     ? p.green
                      : l.kind == diff::LineKind::kRemoved ? p.red
                                                           : "";
  const char* hl = l.kind == diff::LineKind::kAdded ? p.green_hl : p.red_hl;
  out->append(color);
  out->append(l.kind == diff::LineKind::kAdded     ? "+ "
              : l.kind == diff::LineKind::kRemoved ? "- "
                                                   : "  ");
  std::string_view t = text;
  size_t pos = 0;
  if (*hl && l.kind != diff::LineKind::kContext) {
    for (const diff::Span& s : spans) {
      if (s.begin < pos || s.end > t.size() || s.begin >= s.end) continue;
      out->append(escape_control(t.substr(pos, s.begin - pos)));
      out->append(hl);
      out->append(escape_control(t.substr(s.begin, s.end - s.begin)));
      out->append(p.reset);
      out->append(color);
      pos = s.end;
    }
  }
  out->append(escape_control(t.substr(pos)));
  if (*color) out->append(p.reset);
  out->append("\n");
}

size_t display_width(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace ksnap::render

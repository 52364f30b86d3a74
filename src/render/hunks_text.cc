// The hunks of one stage diff as terminal text; see render.h.
#include <string>

#include "ksnap/render/render.h"
#include "ksnap/support/text.h"
#include "render/palette.h"
#include "render/text_blocks.h"

namespace ksnap::render {

std::string render_hunks(const diff::StageDiff& s, const WriteOptions& w, size_t max_lines) {
  const Palette p = palette(w.color);
  std::string out;
  size_t shown = 0, cut = 0;
  for (const diff::Hunk& h : s.hunks) {
    if (shown >= max_lines) {
      cut += h.lines.size();
      continue;
    }
    out += p.cyan;
    out += escape_control(hunk_header(h));
    out += p.reset;
    out += "\n";
    for (const diff::DiffLine& l : h.lines) {
      if (shown >= max_lines) {
        ++cut;
        continue;
      }
      append_diff_line(&out, l, false, p);
      ++shown;
    }
  }
  if (cut)
    out += std::string(p.dim) + "  … " + std::to_string(cut) + " more lines" + p.reset + "\n";
  return out;
}

}  // namespace ksnap::render

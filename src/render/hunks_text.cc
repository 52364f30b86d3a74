// The hunks of one stage diff as terminal text; see render.h.
#include <string>

#include "ksnap/render/render.h"
#include "ksnap/support/text.h"
#include "render/palette.h"
#include "render/text_blocks.h"

namespace ksnap::render {

std::string render_hunks(const report::HunkCut& cut, const WriteOptions& w) {
  const Palette p = palette(w.color);
  std::string out;
  for (const report::HunkView& hv : cut.hunks) {
    out += p.cyan;
    out += escape_control(hunk_header(*hv.hunk));
    out += p.reset;
    out += "\n";
    for (size_t i = 0; i < hv.lines; ++i) append_diff_line(&out, hv.hunk->lines[i], false, p);
  }
  if (cut.lines_cut)
    out += std::string(p.dim) + "  … " + std::to_string(cut.lines_cut) + " more lines" + p.reset +
           "\n";
  return out;
}

}  // namespace ksnap::render

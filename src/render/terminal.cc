// Terminal renderer: summary table, headline, ranked resource deltas, then
// one block per group of identical changes with the representative's hunks.
#include "ksnap/render/render.h"
#include "render/common.h"
#include "render/text_blocks.h"
#include "render/verdicts.h"

namespace ksnap::render {

std::string render_terminal(const diff::DiffResult& r, const RenderOptions& o) {
  Palette p = palette(o.color);
  std::string out;
  out += p.bold;
  out += "ksnap diff " + r.base_name + " → " + r.head_name;
  out += p.reset;
  out += "\n\n" + summary_table(r) + "\n" + headline(r) + "\n";
  for (const auto& w : r.warnings) out += std::string(p.yellow) + "note: " + w + p.reset + "\n";

  // Variants only on one side.
  std::string added, removed;
  for (const auto& v : r.variants) {
    if (v.pairing == diff::Pairing::kAdded) added += "  + " + v.name() + " " + variant_label(v) + "\n";
    if (v.pairing == diff::Pairing::kRemoved)
      removed += "  - " + v.name() + " " + variant_label(v) + "\n";
  }
  if (!removed.empty()) out += std::string("\n") + p.bold + "Removed variants" + p.reset + "\n" + removed;
  if (!added.empty()) out += std::string("\n") + p.bold + "Added variants" + p.reset + "\n" + added;
  // Paired variants whose options differ.
  std::string opts;
  for (const auto& v : r.variants) {
    if (v.option_changes.empty()) continue;
    opts += "  " + v.name() + " " + variant_label(v) + ": ";
    for (size_t k = 0; k < v.option_changes.size(); ++k) {
      const auto& c = v.option_changes[k];
      if (k) opts += ", ";
      opts += c.name + ": " + (c.base.empty() ? "–" : c.base) + " → " +
              (c.head.empty() ? "–" : c.head);
    }
    opts += std::string("  (") + diff::pairing_name(v.pairing) + ")\n";
  }
  if (!opts.empty()) out += std::string("\n") + p.bold + "Option changes" + p.reset + "\n" + opts;
  std::string res = resource_ranking(r, 10);
  if (!res.empty()) out += std::string("\n") + p.bold + "Resource changes" + p.reset + "\n" + res;
  if (o.verdicts) {
    out += std::string("\n") + p.bold + "Benchmark verdicts" + p.reset + " (" +
           verdict_counts_text(*o.verdicts) + ")\n" + verdict_lines(*o.verdicts, 40);
  }

  size_t shown = 0;
  for (const auto& g : r.groups) {
    if (shown++ == o.max_groups) {
      out += "\n… " + std::to_string(r.groups.size() - o.max_groups) + " more groups not shown\n";
      break;
    }
    const diff::VariantDiff& rep = r.variants[g.variants.front()];
    const diff::StageDiff* s = rep.stage(g.stage);
    out += "\n";
    out += p.bold;
    out += "━━ " + g.name() + " · " + g.stage + " · " + std::to_string(g.variants.size()) +
           (g.variants.size() == 1 ? " variant" : " variants") + " · +" +
           std::to_string(g.lines_added) + " −" + std::to_string(g.lines_removed) + " lines" +
           (g.unstable ? " · unstable" : "") + " ━━";
    out += p.reset;
    out += "\n";
    out += group_variants_text(r, g, o.max_variants_listed);
    if (s && !s->op_deltas.empty()) out += "  ops: " + op_delta_text(s->op_deltas) + "\n";
    if (s) {
      std::string rt = resource_text(s->resources);
      if (!rt.empty()) out += "  ir figures: " + rt + "\n";
      std::vector<int32_t> pb, ph;
      stage_py_lines(*s, &pb, &ph);
      if (!ph.empty() || !pb.empty())
        out += "  python lines: " + py_lines_text(ph.empty() ? pb : ph) + "\n";
    }
    if (o.show_diffs && s) {
      size_t cut = 0;
      out += hunks_text(*s, p, o.max_lines_per_group, &cut);
      if (cut) out += std::string(p.dim) + "  … " + std::to_string(cut) + " more lines" + p.reset + "\n";
    }
  }
  return out;
}

}  // namespace ksnap::render

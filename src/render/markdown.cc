// Markdown renderer for GitHub job summaries and PR comments: summary table,
// one collapsible <details> per group, capped at RenderOptions::max_bytes
// with a note of what was cut.
#include "ksnap/render/render.h"
#include "render/common.h"
#include "render/text_blocks.h"
#include "render/verdicts.h"

namespace ksnap::render {

namespace {

std::string escape_md(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|' || c == '<' || c == '>' || c == '*' || c == '_' || c == '`') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string render_markdown(const diff::DiffResult& r, const RenderOptions& o) {
  std::string out;
  out += "## ksnap: IR changes `" + r.base_name + "` → `" + r.head_name + "`\n\n";
  out += "**" + headline(r) + "**\n\n";
  out += "| stage | unchanged | changed | added | removed |\n|---|---:|---:|---:|---:|\n";
  for (const auto& s : r.summary)
    out += "| " + s.stage + " | " + std::to_string(s.unchanged) + " | " +
           std::to_string(s.changed) + " | " + std::to_string(s.added) + " | " +
           std::to_string(s.removed) + " |\n";
  for (const auto& w : r.warnings) out += "\n> note: " + w + "\n";
  std::string res = resource_ranking(r, 10);
  if (!res.empty()) out += "\n**Resource changes**\n\n```\n" + res + "```\n";
  if (o.verdicts)
    out += "\n**Benchmark verdicts:** " + verdict_counts_text(*o.verdicts) + "\n\n```\n" +
           verdict_lines(*o.verdicts, 30) + "```\n";

  std::string lists;
  for (const auto& v : r.variants) {
    if (v.pairing == diff::Pairing::kAdded) lists += "- added: `" + v.name() + " " + variant_label(v) + "`\n";
    if (v.pairing == diff::Pairing::kRemoved)
      lists += "- removed: `" + v.name() + " " + variant_label(v) + "`\n";
    if (!v.option_changes.empty()) {
      lists += "- options of `" + v.name() + " " + variant_label(v) + "`: ";
      for (size_t k = 0; k < v.option_changes.size(); ++k) {
        const auto& c = v.option_changes[k];
        if (k) lists += ", ";
        lists += "`" + c.name + ": " + (c.base.empty() ? "–" : c.base) + " → " +
                 (c.head.empty() ? "–" : c.head) + "`";
      }
      lists += "\n";
    }
  }
  if (!lists.empty()) out += "\n" + lists;

  size_t cut_groups = 0;
  Palette plain = palette(false);
  for (size_t gi = 0; gi < r.groups.size(); ++gi) {
    const auto& g = r.groups[gi];
    const diff::VariantDiff& rep = r.variants[g.variants.front()];
    const diff::StageDiff* s = rep.stage(g.stage);
    std::string block = "\n<details><summary><b>" + escape_md(g.name()) + "</b> · " + g.stage +
                        " · " + std::to_string(g.variants.size()) +
                        (g.variants.size() == 1 ? " variant" : " variants") + " · +" +
                        std::to_string(g.lines_added) + " −" + std::to_string(g.lines_removed) +
                        (g.unstable ? " · unstable" : "") + "</summary>\n\n";
    block += "Variants:\n\n```\n" + group_variants_text(r, g, o.max_variants_listed) + "```\n\n";
    if (s && !s->op_deltas.empty()) block += "Ops: `" + op_delta_text(s->op_deltas) + "`\n\n";
    if (s) {
      std::vector<int32_t> pb, ph;
      stage_py_lines(*s, &pb, &ph);
      if (!ph.empty() || !pb.empty())
        block += "Python lines: " + py_lines_text(ph.empty() ? pb : ph) + "\n\n";
      if (o.show_diffs) {
        size_t cut = 0;
        block += "```diff\n" + hunks_text(*s, plain, o.max_lines_per_group, &cut);
        if (cut) block += "… " + std::to_string(cut) + " more lines\n";
        block += "```\n";
      }
    }
    block += "</details>\n";
    if (gi >= o.max_groups || out.size() + block.size() > o.max_bytes - 400) {
      cut_groups = r.groups.size() - gi;
      break;
    }
    out += block;
  }
  if (cut_groups)
    out += "\n> " + std::to_string(cut_groups) + " of " + std::to_string(r.groups.size()) +
           " change groups not shown to stay under " + std::to_string(o.max_bytes) +
           " bytes; the full report is in the JSON/HTML output.\n";
  return out;
}

}  // namespace ksnap::render

#include "render/text_blocks.h"

#include <algorithm>
#include <cstdio>

#include "render/common.h"

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

std::string summary_table(const diff::DiffResult& r) {
  std::string out;
  char buf[160];
  // The unstable column (known compiler nondeterminism) only when there is one.
  const bool unstable = r.unstable_stage_count() > 0;
  std::snprintf(buf, sizeof buf, "%-8s %10s %8s %6s %8s%s\n", "stage", "unchanged", "changed",
                "added", "removed", unstable ? " unstable" : "");
  out += buf;
  for (const auto& s : r.summary) {
    std::snprintf(buf, sizeof buf, "%-8s %10u %8u %6u %8u", s.stage.c_str(), s.unchanged,
                  s.changed, s.added, s.removed);
    out += buf;
    if (unstable) out += (std::snprintf(buf, sizeof buf, " %8u", s.unstable), buf);
    out += "\n";
  }
  return out;
}

std::string headline(const diff::DiffResult& r) {
  Totals t = totals(r);
  if (t.changed_stages == 0)
    return "No IR changed: " + std::to_string(t.stages) + " kernel-stages of " +
           std::to_string(t.variants) + " variants are identical after normalization.";
  std::string s = std::to_string(t.changed_stages) + " of " + std::to_string(t.stages) +
                  " kernel-stages changed, in " + std::to_string(t.changed_variants) + " of " +
                  std::to_string(t.variants) + " variants of " +
                  std::to_string(t.kernels_changed) + " kernel" +
                  (t.kernels_changed == 1 ? "" : "s");
  if (t.added || t.removed)
    s += " (" + std::to_string(t.added) + " variants added, " + std::to_string(t.removed) +
         " removed)";
  s += "; " + std::to_string(r.groups.size()) + " distinct change" +
       (r.groups.size() == 1 ? "" : "s") + ".";
  if (size_t u = r.unstable_stage_count())
    s.append(" ").append(std::to_string(u)).append(
        " of the changed kernel-stages are known unstable (compiler nondeterminism), not "
        "changes of this build.");
  return s;
}

namespace {

void append_highlighted(std::string* out, const diff::DiffLine& l, const char* base_color,
                        const char* hl, const char* reset) {
  if (!*hl || l.highlights.empty()) {
    out->append(l.text);
    return;
  }
  size_t pos = 0;
  for (const auto& s : l.highlights) {
    if (s.begin < pos || s.end > l.text.size()) continue;
    out->append(l.text, pos, s.begin - pos);
    out->append(hl);
    out->append(l.text, s.begin, s.end - s.begin);
    out->append(reset);
    out->append(base_color);
    pos = s.end;
  }
  out->append(l.text, pos, std::string::npos);
}

}  // namespace

std::string hunks_text(const diff::StageDiff& s, const Palette& p, size_t max_lines, size_t* cut) {
  std::string out;
  size_t shown = 0;
  for (const auto& h : s.hunks) {
    if (shown >= max_lines) {
      *cut += h.lines.size();
      continue;
    }
    out += p.cyan;
    out += "@@ -" + std::to_string(h.base_start) + "," + std::to_string(h.base_count) + " +" +
           std::to_string(h.head_start) + "," + std::to_string(h.head_count) + " @@";
    if (!h.unit.empty()) out += " " + h.unit;
    std::string py = py_lines_text(h.py_lines_head.empty() ? h.py_lines_base : h.py_lines_head);
    if (!py.empty()) out += "  (python line " + py + ")";
    out += p.reset;
    out += "\n";
    for (const auto& l : h.lines) {
      if (shown >= max_lines) {
        ++*cut;
        continue;
      }
      ++shown;
      switch (l.kind) {
        case diff::LineKind::kContext:
          out += "  ";
          out += l.text;
          break;
        case diff::LineKind::kRemoved:
          out += p.red;
          out += "- ";
          append_highlighted(&out, l, p.red, p.red_hl, p.reset);
          out += p.reset;
          break;
        case diff::LineKind::kAdded:
          out += p.green;
          out += "+ ";
          append_highlighted(&out, l, p.green, p.green_hl, p.reset);
          out += p.reset;
          break;
      }
      out += "\n";
    }
  }
  return out;
}

std::string group_variants_text(const diff::DiffResult& r, const diff::ChangeGroup& g,
                                size_t max) {
  std::string out;
  for (size_t k = 0; k < g.variants.size(); ++k) {
    if (k == max) {
      out += "    … and " + std::to_string(g.variants.size() - max) + " more\n";
      break;
    }
    out += "    " + variant_label(r.variants[g.variants[k]]) + "\n";
  }
  return out;
}

std::string resource_ranking(const diff::DiffResult& r, size_t max_rows) {
  struct Row {
    int64_t mag;
    std::string text;
  };
  std::vector<Row> rows;
  for (const auto& v : r.variants) {
    for (const auto& [k, p] : v.resources) {
      if (p.first < 0 || p.second < 0 || p.first == p.second) continue;
      rows.push_back({std::llabs(p.second - p.first),
                      v.name() + " " + variant_label(v) + ": " + k + " " +
                          std::to_string(p.first) + " → " + std::to_string(p.second) + " (" +
                          signed_text(p.second - p.first) + ")"});
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.mag > b.mag; });
  std::string out;
  for (size_t i = 0; i < rows.size() && i < max_rows; ++i) out += "  " + rows[i].text + "\n";
  if (rows.size() > max_rows) out += "  … " + std::to_string(rows.size() - max_rows) + " more\n";
  return out;
}

}  // namespace ksnap::render

// The HTML report's data island; see html_data.h.
//
// Worked example: a group whose representative has one hunk
//   @@ -12,3 +12,3 @@ @matmul_kernel
//     %a = tt.load %p            (context, py 85)
//   - %b = arith.addf %a, %a     (removed, py 86, highlight "addf")
//   + %b = arith.mulf %a, %a     (added, py 86, highlight "mulf")
// becomes
//   ["@matmul_kernel",12,3,12,3,[86],[86],
//    [[0,"%a = tt.load %p",12,12,85,[2,4,3,0,7,2,1,0,2,4],[]],
//     [2,"%b = arith.addf %a, %a",13,0,86,[...],[11,15]],
//     [1,"%b = arith.mulf %a, %a",0,13,86,[...],[11,15]]]]
#include "render/html_data.h"

#include <algorithm>
#include <map>
#include <set>

#include "ksnap/ir/lexer.h"
#include "render/common.h"
#include "render/html_tokens.h"

namespace ksnap::render::html {

namespace {

using nlohmann::json;

int line_kind(diff::LineKind k) {
  switch (k) {
    case diff::LineKind::kContext: return 0;
    case diff::LineKind::kAdded: return 1;
    case diff::LineKind::kRemoved: return 2;
  }
  return 0;
}

char status_char(diff::ChangeStatus s) {
  switch (s) {
    case diff::ChangeStatus::kUnchanged: return 'u';
    case diff::ChangeStatus::kChanged: return 'c';
    case diff::ChangeStatus::kAdded: return 'a';
    case diff::ChangeStatus::kRemoved: return 'r';
  }
  return '.';
}

/// Figures as [[name, base, head], ...]; only those that differ when `changed_only`.
json figure_rows(const std::map<std::string, diff::FigurePair>& figs, bool changed_only) {
  json out = json::array();
  for (const auto& [name, p] : figs)
    if (!changed_only || p.first != p.second) out.push_back({name, p.first, p.second});
  return out;
}

json hunk_json(const diff::Hunk& h, bool have_dialect, ir::Dialect d, size_t* budget,
               size_t* cut) {
  json lines = json::array();
  for (const diff::DiffLine& l : h.lines) {
    if (*budget == 0) {
      ++*cut;
      continue;
    }
    --*budget;
    json runs = have_dialect ? json(token_runs(l.text, d)) : json::array({utf16_length(l.text), 0});
    lines.push_back({line_kind(l.kind), l.text, l.base_line, l.head_line, l.py_line, runs,
                     utf16_spans(l.text, l.highlights)});
  }
  return json::array({h.unit, h.base_start, h.base_count, h.head_start, h.head_count,
                      h.py_lines_base, h.py_lines_head, lines});
}

json group_json(const diff::DiffResult& r, const diff::ChangeGroup& g,
                const std::map<std::string, size_t>& kernel_index,
                const std::vector<std::string>& stages, const DataLimits& limits) {
  json j;
  j["k"] = kernel_index.at(g.kernel);
  j["s"] = std::find(stages.begin(), stages.end(), g.stage) - stages.begin();
  j["v"] = g.variants;
  j["a"] = g.lines_added;
  j["r"] = g.lines_removed;
  j["w"] = g.weight;
  const diff::StageDiff* s = g.variants.empty() ? nullptr : r.variants[g.variants[0]].stage(g.stage);
  json ops = json::array(), hunks = json::array();
  std::set<int32_t> py;
  size_t cut = 0;
  if (s) {
    std::vector<std::pair<std::string, int64_t>> od(s->op_deltas.begin(), s->op_deltas.end());
    std::stable_sort(od.begin(), od.end(), [](const auto& a, const auto& b) {
      return std::llabs(a.second) > std::llabs(b.second);
    });
    for (const auto& [op, delta] : od) ops.push_back({op, delta});
    std::vector<int32_t> pb, ph;
    stage_py_lines(*s, &pb, &ph);
    py.insert(ph.begin(), ph.end());
    py.insert(pb.begin(), pb.end());
    ir::Dialect d;
    bool have_dialect = ir::dialect_for_stage(g.stage, &d);
    size_t budget = limits.max_lines_per_group;
    for (const diff::Hunk& h : s->hunks) hunks.push_back(hunk_json(h, have_dialect, d, &budget, &cut));
  }
  j["ops"] = ops;
  j["res"] = s ? figure_rows(s->resources, true) : json::array();
  j["py"] = std::vector<int32_t>(py.begin(), py.end());
  j["h"] = hunks;
  if (cut) j["cut"] = cut;
  return j;
}

}  // namespace

std::vector<std::string> stage_order(const diff::DiffResult& r) {
  std::vector<std::string> out;
  auto add = [&out](const std::string& s) {
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  };
  for (const auto& s : r.summary) add(s.stage);
  for (const auto& v : r.variants)
    for (const auto& s : v.stages) add(s.stage);
  return out;
}

std::string status_chars(const diff::VariantDiff& v, const std::vector<std::string>& stages) {
  std::string out(stages.size(), '.');
  for (size_t i = 0; i < stages.size(); ++i)
    if (const diff::StageDiff* s = v.stage(stages[i])) out[i] = status_char(s->status);
  return out;
}

json report_data(const diff::DiffResult& r, const DataLimits& limits) {
  std::vector<std::string> stages = stage_order(r);
  std::set<std::string> kernel_set;
  for (const auto& v : r.variants) kernel_set.insert(v.kernel);
  for (const auto& g : r.groups) kernel_set.insert(g.kernel);
  std::vector<std::string> kernels(kernel_set.begin(), kernel_set.end());
  std::map<std::string, size_t> kernel_index;
  for (size_t i = 0; i < kernels.size(); ++i) kernel_index[kernels[i]] = i;

  json root;
  root["schema"] = "ksnap-html-data";
  root["version"] = 1;
  root["base"] = r.base_name;
  root["head"] = r.head_name;
  root["stages"] = stages;
  root["kernels"] = kernels;
  root["classes"] = std::vector<std::string>(kTokenClassNames, kTokenClassNames + kTokenClassCount);

  json variants = json::array();
  for (const auto& v : r.variants) {
    json jv;
    jv["k"] = kernel_index.at(v.kernel);
    jv["l"] = variant_label(v);
    jv["p"] = diff::pairing_name(v.pairing);
    jv["s"] = status_chars(v, stages);
    if (v.changed()) {
      json groups = json::array(), lines = json::array();
      for (const auto& name : stages) {
        const diff::StageDiff* s = v.stage(name);
        groups.push_back(s ? s->group : -1);
        lines.push_back({s ? s->lines_added : 0, s ? s->lines_removed : 0});
      }
      jv["g"] = groups;
      jv["n"] = lines;
    }
    if (!v.resources.empty()) jv["r"] = figure_rows(v.resources, false);
    if (!v.option_changes.empty()) {
      json oc = json::array();
      for (const auto& c : v.option_changes) oc.push_back({c.name, c.base, c.head});
      jv["o"] = oc;
    }
    variants.push_back(std::move(jv));
  }
  root["variants"] = std::move(variants);

  json groups = json::array();
  for (const auto& g : r.groups) groups.push_back(group_json(r, g, kernel_index, stages, limits));
  root["groups"] = std::move(groups);
  return root;
}

}  // namespace ksnap::render::html

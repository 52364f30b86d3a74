// The HTML report's data island; see html_data.h.
//
// Worked example: a group whose representative has one hunk
//   @@ -12,3 +12,3 @@ @matmul_kernel
//     %a = tt.load %p            (context, py 85)
//   - %b = arith.addf %a, %a     (removed, py 86, highlight "addf")
//   + %b = arith.mulf %a, %a     (added, py 86, highlight "mulf")
// becomes
//   ["@matmul_kernel",12,3,12,3,[86],[86],
//    [[0,"%a = tt.load %p",12,12,85,"v2_3o7_1v2",[]],
//     [2,"%b = arith.addf %a, %a",13,0,86,"v2_3o10_1v2_2v2",[11,15]],
//     [1,"%b = arith.mulf %a, %a",0,13,86,"v2_3o10_1v2_2v2",[11,15]]]]
#include "render/html_data.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

#include "ksnap/ir/lexer.h"
#include "render/common.h"
#include "render/html_tokens.h"

namespace ksnap::render::html {

namespace {

/// Appends JSON to one string; the caller places ',' ':' '[' '{' itself.
class JsonOut {
 public:
  std::string text;

  JsonOut& raw(std::string_view s) {
    text += s;
    return *this;
  }
  JsonOut& num(int64_t v) {
    char buf[24];
    auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
    text.append(buf, end);
    return *this;
  }
  /// A JSON string; invalid UTF-8 bytes become U+FFFD, one per byte.
  JsonOut& str(std::string_view s) {
    static constexpr char kHex[] = "0123456789abcdef";
    text += '"';
    for (size_t i = 0; i < s.size();) {
      unsigned char c = static_cast<unsigned char>(s[i]);
      if (c >= 0x80) {
        size_t n = utf8_sequence(s, i);
        if (n)
          text.append(s, i, n);
        else
          text += "\\ufffd";
        i += n ? n : 1;
        continue;
      }
      if (c == '"')
        text += "\\\"";
      else if (c == '\\')
        text += "\\\\";
      else if (c == '\n')
        text += "\\n";
      else if (c == '\t')
        text += "\\t";
      else if (c < 0x20 || c == 0x7F) {
        text += "\\u00";
        text += kHex[c >> 4];
        text += kHex[c & 15];
      } else {
        text += static_cast<char>(c);
      }
      ++i;
    }
    text += '"';
    return *this;
  }
  template <typename T>
  JsonOut& nums(const std::vector<T>& v) {
    text += '[';
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) text += ',';
      num(static_cast<int64_t>(v[i]));
    }
    text += ']';
    return *this;
  }
  JsonOut& strs(const std::vector<std::string>& v) {
    text += '[';
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) text += ',';
      str(v[i]);
    }
    text += ']';
    return *this;
  }
  /// "key": (with a leading comma unless first)
  JsonOut& key(std::string_view k, bool first = false) {
    if (!first) text += ',';
    str(k);
    text += ':';
    return *this;
  }
};

int line_kind(diff::LineKind k) {
  switch (k) {
    case diff::LineKind::kContext:
      return 0;
    case diff::LineKind::kAdded:
      return 1;
    case diff::LineKind::kRemoved:
      return 2;
  }
  return 0;
}

char status_char(diff::ChangeStatus s) {
  switch (s) {
    case diff::ChangeStatus::kUnchanged:
      return 'u';
    case diff::ChangeStatus::kChanged:
      return 'c';
    case diff::ChangeStatus::kAdded:
      return 'a';
    case diff::ChangeStatus::kRemoved:
      return 'r';
  }
  return '.';
}

/// Figures as [[name, base, head], ...]; only those that differ when `changed_only`.
void figure_rows(JsonOut* o, const std::map<std::string, diff::FigurePair>& figs,
                 bool changed_only) {
  o->raw("[");
  bool first = true;
  for (const auto& [name, p] : figs) {
    if (changed_only && p.first == p.second) continue;
    o->raw(first ? "[" : ",[").str(name).raw(",").num(p.first).raw(",").num(p.second).raw("]");
    first = false;
  }
  o->raw("]");
}

void hunk_json(JsonOut* o, const diff::Hunk& h, const ir::Dialect* dialect, size_t* budget,
               size_t* cut) {
  o->raw("[").str(h.unit).raw(",").num(h.base_start).raw(",").num(h.base_count).raw(",");
  o->num(h.head_start).raw(",").num(h.head_count).raw(",").nums(h.py_lines_base).raw(",");
  o->nums(h.py_lines_head).raw(",[");
  bool first = true;
  for (const diff::DiffLine& l : h.lines) {
    if (*budget == 0) {
      ++*cut;
      continue;
    }
    --*budget;
    o->raw(first ? "[" : ",[").num(line_kind(l.kind)).raw(",").str(l.text).raw(",");
    o->num(l.base_line).raw(",").num(l.head_line).raw(",").num(l.py_line).raw(",");
    std::vector<uint32_t> runs =
        dialect ? token_runs(l.text, *dialect) : std::vector<uint32_t>{utf16_length(l.text), 0};
    o->str(runs_text(runs)).raw(",").nums(utf16_spans(l.text, l.highlights)).raw("]");
    first = false;
  }
  o->raw("]]");
}

void group_json(JsonOut* o, const diff::DiffResult& r, const diff::ChangeGroup& g,
                const std::map<std::string, size_t>& kernel_index,
                const std::vector<std::string>& stages, const DataLimits& limits) {
  o->raw("{").key("k", true).num(static_cast<int64_t>(kernel_index.at(g.kernel)));
  o->key("s").num(std::find(stages.begin(), stages.end(), g.stage) - stages.begin());
  o->key("v").nums(g.variants);
  o->key("a")
      .num(g.lines_added)
      .key("r")
      .num(g.lines_removed)
      .key("w")
      .num(static_cast<int64_t>(g.weight));
  const diff::StageDiff* s =
      g.variants.empty() ? nullptr : r.variants[g.variants[0]].stage(g.stage);
  o->key("ops").raw("[");
  std::set<int32_t> py;
  if (s) {
    std::vector<std::pair<std::string, int64_t>> od(s->op_deltas.begin(), s->op_deltas.end());
    std::stable_sort(od.begin(), od.end(), [](const auto& a, const auto& b) {
      return std::llabs(a.second) > std::llabs(b.second);
    });
    for (size_t i = 0; i < od.size(); ++i)
      o->raw(i ? ",[" : "[").str(od[i].first).raw(",").num(od[i].second).raw("]");
    std::vector<int32_t> pb, ph;
    stage_py_lines(*s, &pb, &ph);
    py.insert(ph.begin(), ph.end());
    py.insert(pb.begin(), pb.end());
  }
  o->raw("]").key("res");
  if (s)
    figure_rows(o, s->resources, true);
  else
    o->raw("[]");
  o->key("py").nums(std::vector<int32_t>(py.begin(), py.end()));
  o->key("h").raw("[");
  size_t cut = 0;
  if (s) {
    ir::Dialect d;
    bool have_dialect = ir::dialect_for_stage(g.stage, &d);
    size_t budget = limits.max_lines_per_group;
    for (size_t i = 0; i < s->hunks.size(); ++i) {
      if (i) o->raw(",");
      hunk_json(o, s->hunks[i], have_dialect ? &d : nullptr, &budget, &cut);
    }
  }
  o->raw("]");
  if (cut) o->key("cut").num(static_cast<int64_t>(cut));
  o->raw("}");
}

void variant_json(JsonOut* o, const diff::VariantDiff& v, size_t kernel,
                  const std::vector<std::string>& stages) {
  o->raw("{").key("k", true).num(static_cast<int64_t>(kernel));
  o->key("l").str(variant_label(v)).key("p").str(diff::pairing_name(v.pairing));
  o->key("s").str(status_chars(v, stages));
  if (v.changed()) {
    std::vector<int32_t> groups;
    std::string lines = "[";
    for (size_t i = 0; i < stages.size(); ++i) {
      const diff::StageDiff* s = v.stage(stages[i]);
      groups.push_back(s ? s->group : -1);
      lines += (i ? ",[" : "[") + std::to_string(s ? s->lines_added : 0) + "," +
               std::to_string(s ? s->lines_removed : 0) + "]";
    }
    o->key("g").nums(groups).key("n").raw(lines).raw("]");
  }
  if (!v.resources.empty()) {
    o->key("r");
    figure_rows(o, v.resources, false);
  }
  if (!v.option_changes.empty()) {
    o->key("o").raw("[");
    for (size_t i = 0; i < v.option_changes.size(); ++i) {
      const auto& c = v.option_changes[i];
      o->raw(i ? ",[" : "[").str(c.name).raw(",").str(c.base).raw(",").str(c.head).raw("]");
    }
    o->raw("]");
  }
  o->raw("}");
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

std::string report_data(const diff::DiffResult& r, const DataLimits& limits) {
  std::vector<std::string> stages = stage_order(r);
  std::set<std::string> kernel_set;
  for (const auto& v : r.variants) kernel_set.insert(v.kernel);
  for (const auto& g : r.groups) kernel_set.insert(g.kernel);
  std::vector<std::string> kernels(kernel_set.begin(), kernel_set.end());
  std::map<std::string, size_t> kernel_index;
  for (size_t i = 0; i < kernels.size(); ++i) kernel_index[kernels[i]] = i;

  JsonOut o;
  o.raw("{").key("schema", true).str("ksnap-html-data").key("version").num(1);
  o.key("base").str(r.base_name).key("head").str(r.head_name);
  o.key("stages").strs(stages).key("kernels").strs(kernels);
  o.key("classes").strs(
      std::vector<std::string>(kTokenClassNames, kTokenClassNames + kTokenClassCount));
  o.key("variants").raw("[");
  for (size_t i = 0; i < r.variants.size(); ++i) {
    if (i) o.raw(",");
    variant_json(&o, r.variants[i], kernel_index.at(r.variants[i].kernel), stages);
  }
  o.raw("]").key("groups").raw("[");
  for (size_t i = 0; i < r.groups.size(); ++i) {
    if (i) o.raw(",");
    group_json(&o, r, r.groups[i], kernel_index, stages, limits);
  }
  o.raw("]}");
  return std::move(o.text);
}

}  // namespace ksnap::render::html

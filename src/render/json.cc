// JSON renderer: the full result (schema in docs/diff-json.md).
#include <cmath>
#include <nlohmann/json.hpp>

#include "ksnap/render/render.h"
#include "ksnap/support/hash.h"
#include "ksnap/support/json.h"
#include "render/common.h"

namespace ksnap::render {

namespace {

using nlohmann::json;

json json_value(const std::string& text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? json(text) : j;
}

json object_of(const std::map<std::string, std::string>& kv) {
  json o = json::object();
  for (const auto& [k, v] : kv) o[k] = json_value(v);
  return o;
}

json figures(const std::map<std::string, diff::FigurePair>& r) {
  json o = json::object();
  for (const auto& [k, p] : r) {
    json e;
    e["base"] = p.first >= 0 ? json(p.first) : json(nullptr);
    e["head"] = p.second >= 0 ? json(p.second) : json(nullptr);
    e["delta"] = p.first >= 0 && p.second >= 0 ? json(p.second - p.first) : json(nullptr);
    o[k] = e;
  }
  return o;
}

json hunk_json(const diff::Hunk& h) {
  json j;
  j["unit"] = h.unit;
  j["base_start"] = h.base_start;
  j["base_count"] = h.base_count;
  j["head_start"] = h.head_start;
  j["head_count"] = h.head_count;
  j["py_lines_base"] = h.py_lines_base;
  j["py_lines_head"] = h.py_lines_head;
  json lines = json::array();
  for (const auto& l : h.lines) {
    json e;
    e["kind"] = l.kind == diff::LineKind::kContext ? " " : l.kind == diff::LineKind::kAdded ? "+" : "-";
    e["text"] = l.text;
    if (l.base_line) e["base_line"] = l.base_line;
    if (l.head_line) e["head_line"] = l.head_line;
    if (l.py_line >= 0) e["py_line"] = l.py_line;
    if (!l.highlights.empty()) {
      json hl = json::array();
      for (const auto& s : l.highlights) hl.push_back({s.begin, s.end});
      e["highlights"] = hl;
    }
    lines.push_back(e);
  }
  j["lines"] = lines;
  return j;
}

}  // namespace

std::string render_json(const diff::DiffResult& r, const RenderOptions& o) {
  json root;
  root["schema"] = "ksnap-diff";
  root["schema_version"] = 1;
  root["base"] = {{"name", r.base_name}, {"root", r.base_root}};
  root["head"] = {{"name", r.head_name}, {"root", r.head_root}};
  root["changed"] = r.any_change();
  root["changed_stages"] = r.changed_stage_count();
  root["real_change"] = r.any_real_change();           // unstable-only changes aside
  root["unstable_stages"] = r.unstable_stage_count();  // changed but known unstable
  json summary = json::array();
  for (const auto& s : r.summary)
    summary.push_back({{"stage", s.stage},
                       {"unchanged", s.unchanged},
                       {"changed", s.changed},
                       {"added", s.added},
                       {"removed", s.removed},
                       {"unstable", s.unstable}});
  root["summary"] = summary;
  json variants = json::array();
  for (const auto& v : r.variants) {
    json jv;
    jv["kernel"] = v.kernel;
    jv["source"] = v.source;
    if (!v.head_source.empty()) jv["head_source"] = v.head_source;
    jv["label"] = v.name();
    jv["id"] = v.id;
    jv["head_id"] = v.head_id;
    jv["signature"] = v.signature;
    jv["constexprs"] = object_of(v.constexprs);
    jv["options"] = object_of(v.options);
    jv["pairing"] = diff::pairing_name(v.pairing);
    jv["changed"] = v.changed();
    json oc = json::array();
    for (const auto& c : v.option_changes)
      oc.push_back({{"name", c.name},
                    {"base", c.base.empty() ? json(nullptr) : json_value(c.base)},
                    {"head", c.head.empty() ? json(nullptr) : json_value(c.head)}});
    jv["option_changes"] = oc;
    jv["resources"] = figures(v.resources);
    if (!v.benchmark_script.empty() || !v.benchmark_points.empty())
      jv["benchmark"] = {{"script", v.benchmark_script}, {"points", v.benchmark_points}};
    json stages = json::object();
    for (const auto& s : v.stages) {
      json js;
      js["status"] = diff::status_name(s.status);
      if (s.unstable) js["unstable"] = true;
      js["lines_added"] = s.lines_added;
      js["lines_removed"] = s.lines_removed;
      js["op_deltas"] = s.op_deltas;
      js["resources"] = figures(s.resources);
      if (s.group >= 0) js["group"] = s.group;
      if (s.base_hash) js["base_hash"] = hex64(s.base_hash);
      if (s.head_hash) js["head_hash"] = hex64(s.head_hash);
      if (!s.base_path.empty()) js["base_path"] = s.base_path;
      if (!s.head_path.empty()) js["head_path"] = s.head_path;
      json hunks = json::array();
      for (const auto& h : s.hunks) hunks.push_back(hunk_json(h));
      js["hunks"] = hunks;
      stages[s.stage] = js;
    }
    jv["stages"] = stages;
    if (!v.binaries.empty()) {  // compared by hash and size only (result.h)
      json bins = json::object();
      auto size = [](int64_t n) { return n < 0 ? json(nullptr) : json(n); };
      for (const auto& b : v.binaries) {
        json jb = {{"status", diff::status_name(b.status)},
                   {"bytes", {{"base", size(b.bytes.first)}, {"head", size(b.bytes.second)}}}};
        if (b.base_hash) jb["base_hash"] = hex64(b.base_hash);
        if (b.head_hash) jb["head_hash"] = hex64(b.head_hash);
        bins[b.stage] = jb;
      }
      jv["binaries"] = bins;
    }
    variants.push_back(jv);
  }
  root["variants"] = variants;
  json groups = json::array();
  for (const auto& g : r.groups) {
    json ids = json::array();
    for (size_t i : g.variants) ids.push_back(i);
    groups.push_back({{"kernel", g.kernel},
                      {"source", g.source},
                      {"label", g.name()},
                      {"stage", g.stage},
                      {"signature", hex64(g.signature)},
                      {"variants", ids},
                      {"count", g.variants.size()},
                      {"unstable", g.unstable},
                      {"lines_added", g.lines_added},
                      {"lines_removed", g.lines_removed}});
  }
  root["groups"] = groups;
  root["warnings"] = r.warnings;
  if (o.verdicts) {
    json pts = json::array();
    for (const auto& p : o.verdicts->points) {
      auto num = [](double x) { return std::isfinite(x) ? json(x) : json(nullptr); };
      json vs = json::array();
      for (const auto& id : p.variant_ids) vs.push_back(id);
      pts.push_back({{"point", p.perf.label},
                     {"verdict", perf::verdict_id(p.kind)},
                     {"change", perf::perf_change_name(p.perf.change)},
                     {"method", perf::test_method_name(p.perf.method)},
                     {"ratio", num(p.perf.ratio)},
                     {"ci", {num(p.perf.ci_lo), num(p.perf.ci_hi)}},
                     {"p_value", num(p.perf.p_value)},
                     {"p_adjusted", num(p.perf.p_adjusted)},
                     {"n_base", p.perf.n_base},
                     {"n_head", p.perf.n_head},
                     {"attribution", perf::match_rule_name(p.attribution.rule)},
                     {"point_ir", perf::point_ir_name(p.attribution.ir)},
                     {"variants", vs},
                     {"text", perf::describe(p, o.verdicts->options)}});
    }
    json counts = json::object();
    for (size_t k = 0; k < perf::kVerdictKindCount; ++k)
      counts[perf::verdict_id(static_cast<perf::VerdictKind>(k))] = o.verdicts->counts[k];
    root["bench_verdicts"] = {{"counts", counts}, {"points", pts}};
  }
  return ::ksnap::json::dump(std::move(root), 1) + "\n";  // UTF-8-safe, never throws
}

std::string render_stat(const diff::DiffResult& r, const RenderOptions& o) {
  std::string out;
  const char* red = o.color ? "\x1b[31m" : "";
  const char* green = o.color ? "\x1b[32m" : "";
  const char* reset = o.color ? "\x1b[0m" : "";
  size_t max_total = 1;
  std::vector<std::pair<std::string, std::pair<size_t, size_t>>> rows;
  size_t width = 0;
  for (const auto& v : r.variants) {
    size_t a = 0, d = 0;
    std::string detail;
    for (const auto& s : v.stages) {
      if (s.status == diff::ChangeStatus::kUnchanged) continue;
      a += s.lines_added;
      d += s.lines_removed;
      if (!detail.empty()) detail += " ";
      detail += s.stage;
      if (s.status != diff::ChangeStatus::kChanged) detail += std::string("(") + diff::status_name(s.status) + ")";
      if (s.unstable) detail += "(unstable)";
    }
    if (!v.changed()) continue;
    std::string name = v.name() + variant_label(v) + (detail.empty() ? "" : "  " + detail);
    width = std::max(width, name.size());
    max_total = std::max(max_total, a + d);
    rows.push_back({name, {a, d}});
  }
  size_t files = 0, ins = 0, del = 0;
  for (const auto& [name, ad] : rows) {
    // The bar is 40 columns for the largest change, split in proportion.
    const size_t bar = 40;
    size_t total = ad.first + ad.second;
    size_t scaled = total * bar / max_total;
    if (total && scaled == 0) scaled = 1;
    size_t plus = total ? ad.first * scaled / total : 0;
    size_t minus = scaled - plus;
    std::string pad(width - name.size(), ' ');
    out += " " + name + pad + " | " + std::to_string(total) + " " + green + std::string(plus, '+') +
           reset + red + std::string(minus, '-') + reset + "\n";
    ++files;
    ins += ad.first;
    del += ad.second;
  }
  out += " " + std::to_string(files) + " variant" + (files == 1 ? "" : "s") + " changed, " +
         std::to_string(ins) + " insertions(+), " + std::to_string(del) + " deletions(-)\n";
  return out;
}

}  // namespace ksnap::render

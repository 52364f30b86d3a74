// JSON writer of the report model: the schema of docs/diff-json.md (version
// 2). A group's hunks are written once, in the group; variants refer to their
// groups by index, so the size grows with the number of distinct changes,
// not with the number of variants they touch.
//
// Layout of the text: one top-level key per line, and one element per line in
// the arrays that grow (variants, groups, hunk lines), so that the file greps
// and diffs well without the size of full indentation.
#include "render/json.h"

#include <algorithm>

#include "ksnap/ir/lexer.h"
#include "ksnap/support/hash.h"
#include "ksnap/support/text.h"
#include "render/html_tokens.h"
#include "render/json_out.h"

namespace ksnap::render {

namespace {

using report::Report;

const char* kind_text(diff::LineKind k) {
  switch (k) {
    case diff::LineKind::kContext:
      return " ";
    case diff::LineKind::kAdded:
      return "+";
    case diff::LineKind::kRemoved:
      return "-";
  }
  return " ";
}

void figure_object(JsonOut* o, const std::map<std::string, diff::FigurePair>& figs) {
  o->raw("{");
  bool first = true;
  for (const auto& [k, p] : figs) {
    o->key(k, first).raw("{").key("base", true);
    p.first >= 0 ? o->num(p.first) : o->raw("null");
    o->key("head");
    p.second >= 0 ? o->num(p.second) : o->raw("null");
    o->key("delta");
    p.first >= 0 && p.second >= 0 ? o->num(p.second - p.first) : o->raw("null");
    o->raw("}");
    first = false;
  }
  o->raw("}");
}

void figure_change(JsonOut* o, const Report& rep, const report::FigureChange& f) {
  o->raw("{").key("variant", true).num(static_cast<int64_t>(f.variant));
  o->key("kernel").str(rep.variant_kernels[f.variant]);
  o->key("config").str(rep.variant_labels[f.variant]);
  o->key("from").str(f.from).key("name").str(f.name);
  o->key("base").num(f.base).key("head").num(f.head).key("delta").num(f.head - f.base).raw("}");
}

/// A diff line as [kind, text, base_line, head_line, py_line, highlights]
/// (+ tokens for the HTML page): 400,000 lines must stay small.
void line_json(JsonOut* o, const diff::DiffLine& l, bool head_names, const ir::Dialect* tokens) {
  const std::string& text = report::shown_text(l, head_names);
  const auto& spans = report::shown_highlights(l, head_names);
  o->raw("[").str(kind_text(l.kind)).raw(",").str(text).raw(",").num(l.base_line).raw(",");
  o->num(l.head_line).raw(",").num(l.py_line).raw(",[");
  if (!spans.empty()) {
    bool first = true;
    for (const diff::Span& s : repair_spans(text, spans)) {
      o->raw(first ? "[" : ",[").num(s.begin).raw(",").num(s.end).raw("]");
      first = false;
    }
  }
  o->raw("]");
  if (tokens) {
    const bool valid = is_valid_utf8(text);
    o->raw(",").str(html::runs_text(html::token_runs(valid ? text : to_valid_utf8(text), *tokens)));
  }
  o->raw("]");
}

void hunk_json(JsonOut* o, const report::HunkView& hv, bool head_names, const ir::Dialect* tokens) {
  const diff::Hunk& h = *hv.hunk;
  o->raw("{").key("unit", true).str(h.unit);
  o->key("base_start").num(h.base_start).key("base_count").num(h.base_count);
  o->key("head_start").num(h.head_start).key("head_count").num(h.head_count);
  o->key("py_lines_base").nums(h.py_lines_base).key("py_lines_head").nums(h.py_lines_head);
  o->key("lines").raw("[");
  for (size_t i = 0; i < hv.lines; ++i) {
    o->raw(i ? ",\n  " : "\n  ");
    line_json(o, h.lines[i], head_names, tokens);
  }
  o->raw("]}");
}

void group_json(JsonOut* o, const Report& rep, size_t gi, bool tokens) {
  const report::GroupView& g = rep.groups[gi];
  o->raw("{").key("id", true).num(static_cast<int64_t>(gi));
  o->key("kernel").str(g.name).key("source").str(g.source).key("label").str(g.kernel);
  o->key("stage").str(g.stage);
  o->key("signature").str(hex64(g.signature));
  o->key("variants").nums(g.variants).key("count").num(static_cast<int64_t>(g.variants.size()));
  o->key("variants_listed").num(static_cast<int64_t>(g.variants_listed));
  o->key("lines_added").num(g.lines_added).key("lines_removed").num(g.lines_removed);
  o->key("weight").num(static_cast<int64_t>(g.weight));
  o->key("root_cause").boolean(g.root_cause).key("unstable").boolean(g.unstable);
  o->key("ops").raw("[");
  for (size_t i = 0; i < g.ops.size(); ++i)
    o->raw(i ? ",[" : "[").str(g.ops[i].first).raw(",").num(g.ops[i].second).raw("]");
  o->raw("]").key("figures").raw("[");
  for (size_t i = 0; i < g.figures.size(); ++i) {
    if (i) o->raw(",");
    figure_change(o, rep, g.figures[i]);
  }
  o->raw("]").key("py_lines").nums(g.py_lines);
  if (!g.fallback.empty()) o->key("fallback").str(g.fallback);
  if (g.binary) {
    o->key("binary").raw("{").key("base", true).num(g.bytes.first);
    o->key("head").num(g.bytes.second).raw("}");
  }
  o->key("shown").boolean(g.shown);
  o->key("lines_total").num(static_cast<int64_t>(g.lines_total));
  o->key("lines_cut").num(static_cast<int64_t>(g.lines_cut));
  ir::Dialect d;
  bool lexable = tokens && ir::dialect_for_stage(g.stage, &d);
  o->key("hunks").raw("[");
  for (size_t i = 0; i < g.hunks.size(); ++i) {
    if (i) o->raw(",\n ");
    hunk_json(o, g.hunks[i], rep.options.head_names, lexable ? &d : nullptr);
  }
  o->raw("]}");
}

/// A variant's stage; counts, deltas and figures only when there are any
/// (an unchanged stage is {"status":"unchanged", paths and hashes}).
/// `path` relative to `root` when it lies under it ("cache/ab12/k.ttgir").
std::string_view under(std::string_view path, const std::string& root) {
  if (root.empty() || path.size() <= root.size() + 1 || path.substr(0, root.size()) != root)
    return path;
  size_t at = root.size();
  if (root.back() != '/') {
    if (path[at] != '/') return path;
    ++at;
  }
  return path.substr(at);
}

void stage_json(JsonOut* o, const diff::StageDiff& s, int32_t group, const diff::DiffResult& r) {
  o->raw("{").key("status", true).str(diff::status_name(s.status));
  if (s.unstable) o->key("unstable").boolean(true);
  if (s.lines_added || s.lines_removed)
    o->key("lines_added").num(s.lines_added).key("lines_removed").num(s.lines_removed);
  if (!s.op_deltas.empty()) {
    o->key("op_deltas").raw("{");
    bool first = true;
    for (const auto& [op, d] : s.op_deltas) {
      o->key(op, first).num(d);
      first = false;
    }
    o->raw("}");
  }
  if (!s.resources.empty()) {
    o->key("resources");
    figure_object(o, s.resources);
  }
  if (!s.stats.empty()) {
    o->key("statistics");
    figure_object(o, s.stats);
  }
  if (group >= 0) o->key("group").num(group);
  if (s.base_hash) o->key("base_hash").str(hex64(s.base_hash));
  if (s.head_hash) o->key("head_hash").str(hex64(s.head_hash));
  if (!s.base_path.empty()) o->key("base_path").str(under(s.base_path, r.base_root));
  if (!s.head_path.empty()) o->key("head_path").str(under(s.head_path, r.head_root));
  if (!s.fallback.empty()) o->key("fallback").str(s.fallback);
  if (s.binary) {
    o->key("binary").boolean(true).key("bytes").raw("{").key("base", true).num(s.bytes.first);
    o->key("head").num(s.bytes.second).raw("}");
  }
  o->raw("}");
}

void variant_json(JsonOut* o, const Report& rep, size_t vi) {
  const diff::VariantDiff& v = rep.result->variants[vi];
  const capture::VariantKey& key = v.key;
  o->raw("{").key("kernel", true).str(key.kernel).key("label").str(rep.variant_kernels[vi]);
  o->key("source").str(v.source);
  if (!v.head_source.empty()) o->key("head_source").str(v.head_source);
  o->key("config").str(rep.variant_labels[vi]);
  o->key("id").str(key.id()).key("head_id").str(v.head_id).key("signature").str(key.signature);
  for (const auto* kv : {&key.constexprs, &key.options}) {
    o->key(kv == &key.constexprs ? "constexprs" : "options").raw("{");
    bool first = true;
    for (const auto& [k, val] : *kv) {
      o->key(k, first).value(val);
      first = false;
    }
    o->raw("}");
  }
  o->key("pairing").str(diff::pairing_name(v.pairing)).key("changed").boolean(v.changed());
  if (v.pairing == diff::Pairing::kNotRebuilt) o->key("not_rebuilt").str(v.not_rebuilt);
  o->key("option_changes").raw("[");
  for (size_t i = 0; i < v.option_changes.size(); ++i) {
    const auto& c = v.option_changes[i];
    o->raw(i ? ",{" : "{").key("name", true).str(c.name).key("base");
    c.base.empty() ? o->raw("null") : o->value(c.base);
    o->key("head");
    c.head.empty() ? o->raw("null") : o->value(c.head);
    o->raw("}");
  }
  o->raw("]").key("resources");
  figure_object(o, v.resources);
  if (!v.resource_sources.empty()) {
    o->key("resource_sources").raw("{");
    bool first = true;
    for (const auto& [k, src] : v.resource_sources) {
      o->key(k, first).str(src);
      first = false;
    }
    o->raw("}");
  }
  if (!v.occupancy_unit.empty()) o->key("occupancy_unit").str(v.occupancy_unit);
  if (!v.resource_error.empty()) o->key("resource_error").str(v.resource_error);
  if (const diff::StageDiff* f = rep.first_changed[vi]) {
    o->key("first_changed_stage").str(f->stage);
    o->key("first_changed_layer").str(diff::layer_name(diff::stage_layer(f->stage)));
  } else {
    o->key("first_changed_stage").raw("null").key("first_changed_layer").raw("null");
  }
  if (!v.benchmark_script.empty() || !v.benchmark_points.empty()) {
    o->key("benchmark").raw("{").key("script", true).str(v.benchmark_script);
    o->key("points").strs(v.benchmark_points).raw("}");
  }
  if (!v.binaries.empty()) {  // cubin / hsaco / ...: hash and size only, not IR
    o->key("binaries").raw("{");
    for (size_t j = 0; j < v.binaries.size(); ++j) {
      const diff::StageDiff& b = v.binaries[j];
      o->key(b.stage, j == 0).raw("{").key("status", true).str(diff::status_name(b.status));
      o->key("bytes").raw("{").key("base", true);
      b.bytes.first >= 0 ? o->num(b.bytes.first) : o->raw("null");
      o->key("head");
      b.bytes.second >= 0 ? o->num(b.bytes.second) : o->raw("null");
      o->raw("}");
      if (b.base_hash) o->key("base_hash").str(hex64(b.base_hash));
      if (b.head_hash) o->key("head_hash").str(hex64(b.head_hash));
      o->raw("}");
    }
    o->raw("}");
  }
  o->key("stages").raw("{");
  for (size_t j = 0; j < v.stages.size(); ++j) {
    o->key(v.stages[j].stage, j == 0);
    stage_json(o, v.stages[j], rep.stage_groups[vi][j], *rep.result);
  }
  o->raw("}}");
}

void statistics_json(JsonOut* o, const Report& rep) {
  o->raw("[");
  for (size_t i = 0; i < rep.statistics.size(); ++i) {
    const auto& s = rep.statistics[i];
    o->raw(i ? ",\n " : "\n ").raw("{").key("stage", true).str(s.stage);
    o->key("affected").num(static_cast<int64_t>(s.affected));
    o->key("total").num(static_cast<int64_t>(s.total)).key("rows").raw("[");
    for (size_t k = 0; k < s.rows.size(); ++k) {
      const auto& row = s.rows[k];
      o->raw(k ? ",{" : "{").key("name", true).str(row.name);
      o->key("helped").num(static_cast<int64_t>(row.helped));
      o->key("hurt").num(static_cast<int64_t>(row.hurt));
      o->key("counted").num(static_cast<int64_t>(row.counted));
      o->key("base").num(row.base).key("head").num(row.head).key("percent");
      auto p = row.percent();
      p ? o->real(*p) : o->raw("null");
      o->raw("}");
    }
    o->raw("]}");
  }
  o->raw("]");
}

/// The resource deltas that lead the report (report::ResourceDelta).
void resource_deltas_json(JsonOut* o, const Report& rep) {
  o->raw("[");
  for (size_t i = 0; i < rep.resource_deltas.size(); ++i) {
    const report::ResourceDelta& d = rep.resource_deltas[i];
    o->raw(i ? ",\n {" : "\n {").key("figure", true).str(d.figure).key("title").str(d.title);
    o->key("higher_is_better").boolean(d.higher_is_better);
    if (!d.unit.empty()) o->key("unit").str(d.unit);
    o->key("total").num(static_cast<int64_t>(d.total));
    o->key("affected").num(static_cast<int64_t>(d.hurt + d.helped));
    o->key("hurt").num(static_cast<int64_t>(d.hurt)).key("helped").num(static_cast<int64_t>(d.helped));
    o->key("started").num(static_cast<int64_t>(d.started));
    o->key("stopped").num(static_cast<int64_t>(d.stopped));
    o->key("base").num(d.base).key("head").num(d.head).key("text").str(d.text);
    o->key("rows").raw("[");
    for (size_t j = 0; j < d.rows.size(); ++j) {
      if (j) o->raw(",");
      figure_change(o, rep, d.rows[j]);
    }
    o->raw("]").key("rows_total").num(static_cast<int64_t>(d.rows_total)).raw("}");
  }
  o->raw("]");
}

/// Where changed variants changed first, per layer (report::LayerCount).
void layers_json(JsonOut* o, const Report& rep) {
  o->raw("[");
  for (size_t i = 0; i < rep.first_changed_layers.size(); ++i) {
    const report::LayerCount& c = rep.first_changed_layers[i];
    o->raw(i ? ",{" : "{").key("layer", true).str(diff::layer_name(c.layer));
    o->key("variants").num(static_cast<int64_t>(c.variants)).key("stages").raw("{");
    for (size_t j = 0; j < c.stages.size(); ++j)
      o->key(c.stages[j].first, j == 0).num(static_cast<int64_t>(c.stages[j].second));
    o->raw("}}");
  }
  o->raw("]");
}

void totals_json(JsonOut* o, const report::Totals& t) {
  o->raw("{").key("variants", true).num(static_cast<int64_t>(t.variants));
  const std::pair<const char*, size_t> rows[] = {{"changed_variants", t.changed_variants},
                                                 {"added", t.added},
                                                 {"removed", t.removed},
                                                 {"not_rebuilt", t.not_rebuilt},
                                                 {"stages", t.stages},
                                                 {"changed_stages", t.changed_stages},
                                                 {"unstable_stages", t.unstable_stages},
                                                 {"kernels", t.kernels},
                                                 {"kernels_changed", t.kernels_changed},
                                                 {"groups", t.groups},
                                                 {"unstable_groups", t.unstable_groups}};
  for (const auto& [k, v] : rows) o->key(k).num(static_cast<int64_t>(v));
  o->raw("}");
}

void verdicts_json(JsonOut* o, const Report& rep) {
  const perf::VerdictReport& vr = *rep.verdicts;
  o->raw("{").key("counts", true).raw("{");
  for (size_t k = 0; k < perf::kVerdictKindCount; ++k)
    o->key(perf::verdict_id(static_cast<perf::VerdictKind>(k)), k == 0)
        .num(static_cast<int64_t>(vr.counts[k]));
  o->raw("}").key("points").raw("[");
  for (size_t i = 0; i < rep.verdict_order.size(); ++i) {
    const auto& p = vr.points[rep.verdict_order[i]];
    o->raw(i ? ",\n " : "\n ").raw("{").key("point", true).str(p.perf.label);
    o->key("verdict").str(perf::verdict_id(p.kind));
    o->key("change").str(perf::perf_change_name(p.perf.change));
    o->key("method").str(perf::test_method_name(p.perf.method));
    o->key("ratio").real(p.perf.ratio).key("ci").raw("[").real(p.perf.ci_lo).raw(",");
    o->real(p.perf.ci_hi).raw("]").key("p_value").real(p.perf.p_value);
    o->key("p_adjusted").real(p.perf.p_adjusted);
    o->key("n_base").num(static_cast<int64_t>(p.perf.n_base));
    o->key("n_head").num(static_cast<int64_t>(p.perf.n_head));
    o->key("attribution").str(perf::match_rule_name(p.attribution.rule));
    o->key("point_ir").str(perf::point_ir_name(p.attribution.ir));
    o->key("variants").strs(p.variant_ids).key("text").str(perf::describe(p, vr.options));
    o->raw("}");
  }
  o->raw("]}");
}

}  // namespace

namespace {

/// The report's JSON into `o`, flushed (JsonOut::flush) between list items.
void write_json_into(const Report& rep, bool tokens, JsonOut& o) {
  const diff::DiffResult& r = *rep.result;
  o.raw("{").key("schema", true).str("ksnap-diff").raw(",\n").key("schema_version", true).num(2);
  o.raw(",\n")
      .key("base", true)
      .raw("{")
      .key("name", true)
      .str(r.base_name)
      .key("root")
      .str(r.base_root)
      .raw("}");
  o.raw(",\n")
      .key("head", true)
      .raw("{")
      .key("name", true)
      .str(r.head_name)
      .key("root")
      .str(r.head_root)
      .raw("}");
  o.raw(",\n").key("order", true).str(report::order_name(rep.options.order));
  o.raw(",\n").key("names", true).str(rep.options.head_names ? "head" : "base");
  o.raw(",\n").key("changed", true).boolean(r.any_change());
  o.raw(",\n").key("real_change", true).boolean(rep.any_change());
  o.raw(",\n").key("changed_stages", true).num(static_cast<int64_t>(rep.totals.changed_stages));
  o.raw(",\n").key("unstable_stages", true).num(static_cast<int64_t>(rep.totals.unstable_stages));
  o.raw(",\n").key("headline", true).str(rep.headline);
  o.raw(",\n").key("resource_headline", true).str(rep.resource_headline);
  o.raw(",\n").key("resource_deltas", true);
  resource_deltas_json(&o, rep);
  o.raw(",\n").key("layers_text", true).str(rep.layers_text);
  o.raw(",\n").key("first_changed_layers", true);
  layers_json(&o, rep);
  o.raw(",\n").key("totals", true);
  totals_json(&o, rep.totals);
  o.raw(",\n").key("statistics", true);
  statistics_json(&o, rep);
  o.raw(",\n").key("stages", true).strs(rep.stages);
  o.raw(",\n").key("summary", true).raw("[");
  for (size_t i = 0; i < r.summary.size(); ++i) {
    const auto& s = r.summary[i];
    o.raw(i ? ",{" : "{").key("stage", true).str(s.stage).key("unchanged").num(s.unchanged);
    o.key("changed").num(s.changed).key("added").num(s.added).key("removed").num(s.removed);
    o.key("unstable").num(s.unstable).raw("}");
  }
  o.raw("],\n").key("option_changes", true).raw("[");
  for (size_t i = 0; i < rep.option_changes.size(); ++i) {
    const auto& c = rep.option_changes[i];
    o.raw(i ? ",\n " : "\n ").raw("{").key("name", true).str(c.name).key("base");
    c.base.empty() ? o.raw("null") : o.value(c.base);
    o.key("head");
    c.head.empty() ? o.raw("null") : o.value(c.head);
    o.key("count").num(static_cast<int64_t>(c.variants.size())).key("kernels").strs(c.kernels);
    o.key("variants").nums(c.variants).raw("}");
  }
  o.raw("],\n").key("figure_changes", true).raw("[");
  for (size_t i = 0; i < rep.figure_changes.size(); ++i) {
    o.raw(i ? ",\n " : "\n ");
    figure_change(&o, rep, rep.figure_changes[i]);
  }
  o.raw("],\n")
      .key("figure_changes_total", true)
      .num(static_cast<int64_t>(rep.figure_changes_total));
  o.raw(",\n").key("notes", true).raw("[");
  for (size_t i = 0; i < rep.notes.size(); ++i) {
    o.raw(i ? ",\n " : "\n ")
        .raw("{")
        .key("kind", true)
        .str(report::note_kind_name(rep.notes[i].kind));
    o.key("text").str(rep.notes[i].text).raw("}");
  }
  o.raw("],\n")
      .key("added", true)
      .nums(rep.added)
      .raw(",\n")
      .key("removed", true)
      .nums(rep.removed);
  o.raw(",\n").key("kernels", true).raw("[");
  for (size_t i = 0; i < rep.kernels.size(); ++i) {
    const auto& k = rep.kernels[i];
    o.raw(i ? ",\n " : "\n ").raw("{").key("label", true).str(k.kernel).key("kernel").str(k.name);
    o.key("source").str(k.source).key("variants").num(static_cast<int64_t>(k.variants));
    o.key("changed_variants").num(static_cast<int64_t>(k.changed_variants));
    o.key("changed_stages").num(static_cast<int64_t>(k.changed_stages));
    o.key("lines").num(static_cast<int64_t>(k.lines)).key("groups").nums(k.groups);
    o.key("added").nums(k.added).key("removed").nums(k.removed).raw("}");
  }
  o.raw("],\n").key("groups", true).raw("[");
  for (size_t i = 0; i < rep.groups.size(); ++i) {
    o.raw(i ? ",\n" : "\n");
    group_json(&o, rep, i, tokens);
    o.flush();
  }
  o.raw("],\n").key("groups_shown", true).num(static_cast<int64_t>(rep.groups_shown));
  o.raw(",\n").key("variants", true).raw("[");
  for (size_t i = 0; i < r.variants.size(); ++i) {
    o.raw(i ? ",\n" : "\n");
    variant_json(&o, rep, i);
    o.flush();
  }
  o.raw("],\n").key("warnings", true).strs(r.warnings);
  if (rep.verdicts) {
    o.raw(",\n").key("bench_verdicts", true);
    verdicts_json(&o, rep);
  }
  o.raw("}\n");
}

}  // namespace

std::string write_json(const Report& rep, bool tokens) {
  JsonOut o;
  o.text.reserve(1 << 16);
  write_json_into(rep, tokens, o);
  return std::move(o.text);
}

Status write_json_to(const Report& rep, bool tokens,
                     const std::function<Status(std::string_view)>& write, size_t chunk) {
  JsonOut o;
  o.sink = &write;
  o.chunk = std::max<size_t>(chunk, 1);
  o.text.reserve(std::min<size_t>(o.chunk + (o.chunk >> 2), size_t{1} << 22));
  write_json_into(rep, tokens, o);
  o.flush(/*all=*/true);
  return o.sink_status;
}

std::string render_json(const Report& r, const WriteOptions&) { return write_json(r, false); }

Status render_json_to(const Report& r, const std::function<Status(std::string_view)>& write,
                      size_t chunk) {
  return write_json_to(r, false, write, chunk);
}

}  // namespace ksnap::render

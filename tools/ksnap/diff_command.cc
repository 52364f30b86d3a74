// ksnap diff / show / normalize.
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <thread>

#include "affected.h"
#include "cli_util.h"
#include "commands.h"
#include "diff_inputs.h"
#include "resources.h"
#include "ksnap/build/build.h"
#include "ksnap/build/unstable.h"
#include "ksnap/diff/engine.h"
#include "ksnap/normalize/normalize.h"
#include "ksnap/perf/results_reader.h"
#include "ksnap/report/bench.h"
#include "ksnap/report/report.h"
#include "ksnap/render/render.h"
#include "ksnap/store/resolve.h"
#include "ksnap/store/store.h"
#include "ksnap/support/file.h"
#include "ksnap/support/text.h"
#include "ksnap/support/json.h"

namespace ksnap::cli {

namespace {

struct NormalizeFlags {
  bool keep_values = false, keep_blocks = false, keep_aliases = false, keep_locations = false;
  bool keep_metadata = false, keep_ident = false, keep_comments = false, keep_reg_decls = false;
  bool keep_globals = false;

  void add(CLI::App* c) {
    c->add_flag("--keep-values", keep_values, "Do not rename SSA values / registers");
    c->add_flag("--keep-blocks", keep_blocks, "Do not rename block labels");
    c->add_flag("--keep-aliases", keep_aliases, "Do not identify aliases by their definitions");
    c->add_flag("--keep-locations", keep_locations, "Keep loc(...), !dbg, .loc and debug info");
    c->add_flag("--keep-metadata", keep_metadata, "Keep LLVM metadata / attribute-group numbers");
    c->add_flag("--keep-globals", keep_globals,
                "Keep the names of module-local globals (@assertMessage_3, @.str.2, PTX __unnamed_1)");
    c->add_flag("--keep-ident", keep_ident, "Keep producer / version strings");
    c->add_flag("--keep-comments", keep_comments, "Keep comments");
    c->add_flag("--keep-reg-decls", keep_reg_decls, "Keep PTX .reg declarations in the text");
  }
  norm::NormalizeOptions options() const {
    norm::NormalizeOptions o;
    o.rename_values = !keep_values;
    o.rename_blocks = !keep_blocks;
    o.rename_aliases = !keep_aliases;
    o.drop_locations = !keep_locations;
    o.rename_metadata = !keep_metadata;
    o.rename_globals = !keep_globals;
    o.drop_ident = !keep_ident;
    o.drop_comments = !keep_comments;
    o.drop_reg_decls = !keep_reg_decls;
    return o;
  }
};

bool want_color(const std::string& mode, bool to_file) {
  if (mode == "always") return true;
  if (mode == "never" || to_file) return false;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color && *no_color) return false;
  return stdout_is_tty();
}

struct DiffArgs {
  std::string base, head, format = "terminal", output, color = "auto", stages, kernels;
  std::string order = "pipeline", html_url, base_label, head_label;
  std::string store = store::default_store_path();  // for arguments that are recorded commits
  bool stat = false, name_only = false, exit_code = false, no_diffs = false, quiet = false;
  bool no_pager = false, head_names = false, fail_on_unstable = false, affected = false;
  std::vector<std::string> unstable_from;  // unstable.json files (check-determinism output)
  uint32_t context = 3;
  unsigned jobs = 0;
  size_t max_bytes = 60000, max_groups = 0;
  NormalizeFlags norm;
  // Benchmark-noise verdicts.
  std::vector<std::string> bench_base, bench_head;
  std::string bench_script, bench_correction = "holm";
  double bench_min_effect = 0.01, bench_alpha = 0.05;
};

/// Every --kernel and --stages value must name something in the builds: a
/// typo must not read as "nothing changed".
Status check_filters(const build::Build& base, const build::Build& head,
                     const diff::DiffOptions& opts) {
  std::vector<std::string> kernels, stages;
  for (const auto* b : {&base, &head})
    for (const auto& v : b->variants) {
      kernels.push_back(v.kernel);
      for (const auto& s : v.stages) stages.push_back(s.stage);
      for (const auto& s : v.binaries) stages.push_back(s.stage);  // cubin, hsaco: by hash and size
    }
  for (auto* list : {&kernels, &stages}) {
    std::sort(list->begin(), list->end());
    list->erase(std::unique(list->begin(), list->end()), list->end());
  }
  // Pipeline order for the message; known stages first.
  std::sort(stages.begin(), stages.end(), [](const std::string& x, const std::string& y) {
    int rx = build::stage_rank(x), ry = build::stage_rank(y);
    return rx != ry ? (rx < 0 ? false : ry < 0 ? true : rx < ry) : x < y;
  });
  for (const auto& k : opts.kernels)
    if (!std::binary_search(kernels.begin(), kernels.end(), k)) return unknown_value("kernel", k, kernels);
  for (const auto& s : opts.stages)
    if (std::find(stages.begin(), stages.end(), s) == stages.end())
      return unknown_value("stage", s, stages);
  return Status::ok();
}

/// Reads both sides' benchmark results and decides per point.
Expected<perf::VerdictReport> load_verdicts(const DiffArgs& a, const diff::DiffResult& r) {
  perf::ReadResultsOptions ro;
  ro.script = a.bench_script;
  KSNAP_ASSIGN_OR_RETURN(perf::BenchResults base, perf::read_bench_results(a.bench_base, ro));
  KSNAP_ASSIGN_OR_RETURN(perf::BenchResults head, perf::read_bench_results(a.bench_head, ro));
  perf::CompareOptions co;
  co.alpha = a.bench_alpha;
  co.min_effect = a.bench_min_effect;
  co.correction = a.bench_correction == "none" ? perf::Correction::kNone
                  : a.bench_correction == "bh" ? perf::Correction::kBenjaminiHochberg
                                               : perf::Correction::kHolm;
  return report::bench_verdicts(r, base, head, co);
}

/// Writes the output: to -o FILE atomically, else to stdout, paged on a terminal.
int emit(const DiffArgs& a, const std::string& text) {
  if (!a.output.empty() && a.output != "-") {
    Status s = write_file_atomic(a.output, text);
    return s.is_ok() ? kExitOk : report_error(s);
  }
  return page_output(text, !a.no_pager) == 0 ? kExitOk : kExitError;
}

/// The JSON report in pieces (render_json_to), never held whole (a
/// 100,000-variant report is about 290 MB): to --output through an atomic
/// writer, else to standard output; as one text through the pager only when
/// standard output is a terminal (emit).
int emit_json(const DiffArgs& a, const report::Report& rep) {
  if (!a.output.empty() && a.output != "-") {
    auto w = AtomicFileWriter::open(a.output);
    if (!w) return report_error(w.status());
    Status s = render::render_json_to(rep, [&](std::string_view piece) { return w->write(piece); });
    if (s.is_ok()) s = w->commit();
    return s.is_ok() ? kExitOk : report_error(s);
  }
  if (!a.no_pager && stdout_is_tty()) return emit(a, render::render_json(rep));
  Status s = render::render_json_to(rep, [](std::string_view piece) {
    if (std::fwrite(piece.data(), 1, piece.size(), stdout) == piece.size()) return Status::ok();
    return make_error(ErrorCode::kIoError, "cannot write the report to standard output");
  });
  if (std::fflush(stdout) != 0 && s.is_ok())
    s = make_error(ErrorCode::kIoError, "cannot write the report to standard output");
  return s.is_ok() ? kExitOk : report_error(s);
}

/// Malformed or unreadable IR: the report holds every other stage; the input
/// errors are still errors. Prints each stage's reason to stderr (control
/// characters escaped) and returns whether there was any.
bool print_input_errors(const diff::DiffResult& r) {
  bool any = false;
  for (const auto& v : r.variants)
    for (const auto* list : {&v.stages, &v.binaries})
      for (const auto& s : *list)
        if (s.input_error) {
          std::cerr << "ksnap: " << escape_control(s.fallback) << "\n";
          any = true;
        }
  return any;
}

int run_diff(const DiffArgs& a) {
  render::Format fmt;
  std::string format = a.quiet ? "json" : a.name_only ? "name-only" : a.stat ? "stat" : a.format;
  if (!render::parse_format(format, &fmt))
    return report_error(unknown_value("format", a.format, {"terminal", "markdown", "json", "html", "stat", "name-only"}));
  if (a.color != "auto" && a.color != "always" && a.color != "never")
    return report_error(unknown_value("--color value", a.color, {"auto", "always", "never"}));
  report::Order order;
  if (!report::parse_order(a.order, &order))
    return report_error(unknown_value("order", a.order, {"pipeline", "size", "kernel"}));
  if (a.affected && fmt != render::Format::kTerminal && fmt != render::Format::kJson)
    return report_error(make_error(ErrorCode::kInvalidArgument,
                                   "--affected prints text or --format json"));
  if (a.bench_base.empty() != a.bench_head.empty())
    return report_error(make_error(ErrorCode::kInvalidArgument,
                                   "--bench-base and --bench-head go together"));
  diff::DiffOptions opts;
  opts.normalize = a.norm.options();
  opts.stages = split_csv(a.stages);
  opts.kernels = split_csv(a.kernels);
  opts.kept_context = a.context;  // the most the report can show
  opts.jobs = a.jobs;
  auto inputs = load_diff_inputs(a.base, a.head, a.store);
  if (!inputs) return report_error(inputs.status());
  auto& [base, head] = *inputs;
  for (const std::string& f : a.unstable_from) {
    auto u = build::read_unstable(f);
    if (!u) return report_error(u.status());
    build::mark_unstable(*u, build::UnstableMatch::kIdentity, &base);
    build::mark_unstable(*u, build::UnstableMatch::kIdentity, &head);
  }
  Status filters = check_filters(base, head, opts);
  if (!filters.is_ok()) return report_error(filters);
  Progress progress("comparing kernel-stages", !a.quiet);
  opts.progress = [&progress](size_t done, size_t total) { progress.update(done, total); };
  auto result = diff::diff_builds(std::move(base), std::move(head), opts);  // neither is read again
  progress.finish();
  if (!result) return report_error(result.status());
  if (!a.base_label.empty()) result->base_name = a.base_label;
  if (!a.head_label.empty()) result->head_name = a.head_label;
  if (a.affected) {  // the benchmark points to rerun (affected.h)
    Affected af = affected_points(*result);
    int rc = emit(a, fmt == render::Format::kJson ? render_affected_json(af) : render_affected_text(af));
    if (rc != kExitOk) return rc;
    return a.exit_code && af.changed_variants ? kExitDifferences : kExitOk;
  }
  std::optional<perf::VerdictReport> verdicts;
  if (!a.bench_base.empty()) {
    auto v = load_verdicts(a, *result);
    if (!v) return report_error(v.status());
    verdicts = std::move(*v);
  }
  report::ReportOptions ro = render::default_report_options(fmt);
  ro.order = order;
  ro.head_names = a.head_names;
  ro.show_diffs = ro.show_diffs && !a.no_diffs && !a.quiet;
  if (a.max_groups) ro.max_groups = a.max_groups;
  ro.context = a.context;
  report::Report rep = report::build_report(*result, verdicts ? &*verdicts : nullptr, ro);
  // Known nondeterminism is not a difference unless asked (--fail-on-unstable).
  const bool differs = a.fail_on_unstable ? result->any_change() : rep.any_change();
  const int changed = (a.exit_code || a.quiet) && differs ? kExitDifferences : kExitOk;
  if (a.quiet) return print_input_errors(*result) ? kExitError : changed;
  const bool to_file = !a.output.empty() && a.output != "-";
  render::WriteOptions wo;
  wo.color = want_color(a.color, to_file);
  wo.max_bytes = a.max_bytes;
  wo.html_url = a.html_url;
  wo.width = terminal_width();
  if (fmt == render::Format::kJson) {
    int rc = emit_json(a, rep);
    if (rc != kExitOk) return rc;
    return print_input_errors(*result) ? kExitError : changed;
  }
  std::string text;
  switch (fmt) {
    case render::Format::kTerminal: text = render::render_terminal(rep, wo); break;
    case render::Format::kMarkdown: text = render::render_markdown(rep, wo); break;
    case render::Format::kJson: break;  // emit_json above
    case render::Format::kStat: text = render::render_stat(rep, wo); break;
    case render::Format::kNameOnly: text = render::render_name_only(rep, wo); break;
    case render::Format::kHtml: text = render::render_html(rep, wo); break;
  }
  int rc = emit(a, text);
  if (rc != kExitOk) return rc;
  return print_input_errors(*result) ? kExitError : changed;
}

int run_show(const std::string& path, const std::string& format, const std::string& store) {
  auto b = store::resolve_build(path, store);  // a folder, or a recorded commit (read-only)
  if (!b) return report_error(b.status());
  // Kernels of one name defined in two places are told apart by their source.
  std::vector<build::KernelSource> kernels;
  for (const auto& v : b->variants) kernels.push_back({v.kernel, v.source(), &v});
  const auto labels = build::kernel_labels(kernels);
  auto label_of = [&labels](const build::Variant& v) {
    auto it = labels.find({v.kernel, v.source()});
    return it == labels.end() ? v.kernel : it->second;
  };
  if (format == "json") {
    // Values are JSON text (python_json of parsed JSON); names may be any
    // bytes: json::dump spells them as valid UTF-8 and never throws.
    auto object_of = [](const std::map<std::string, std::string>& kv) {
      nlohmann::json o = nlohmann::json::object();
      for (const auto& [k, text] : kv) o[k] = json::parse_or_string(text);
      return o;
    };
    nlohmann::json out = nlohmann::json::array();
    for (const auto& v : b->variants) {
      nlohmann::json stages = nlohmann::json::array();
      for (const auto& st : v.stages) stages.push_back(st.stage);
      out.push_back({{"kernel", v.kernel},
                     {"label", label_of(v)},
                     {"source", v.source()},
                     {"unstable_stages", v.unstable_stages},
                     {"id", v.id()},
                     {"signature", v.signature},
                     {"constexprs", object_of(v.constexprs)},
                     {"options", object_of(v.options)},
                     {"stages", stages}});
      add_resources(v, &out.back());
    }
    std::cout << json::dump(std::move(out), 1) << "\n";
    return kExitOk;
  }
  const char* kind = b->kind == build::BuildKind::kCapture ? "capture" : "triton cache";
  std::cout << escape_control(b->name) << " (" << kind;
  if (!b->triton_version.empty()) std::cout << ", triton " << escape_control(b->triton_version);
  if (!b->arch.empty()) std::cout << ", " << escape_control(b->arch);
  std::cout << "): " << b->variants.size() << " variants\n";
  for (const auto& v : b->variants) {
    std::cout << "  " << escape_control(label_of(v)) << " " << escape_control(v.constexprs_text())
              << " " << escape_control(v.options_text()) << "  ";
    for (size_t k = 0; k < v.stages.size(); ++k) {
      std::cout << (k ? "," : "") << escape_control(v.stages[k].stage);
      if (v.unstable(v.stages[k].stage)) std::cout << "(unstable)";
    }
    for (const auto& [r, n] : v.resources) std::cout << "  " << escape_control(r) << "=" << n;
    std::cout << "\n";
  }
  return kExitOk;
}

int run_normalize(const std::string& path, const std::string& stage_flag, bool shapes,
                  const NormalizeFlags& nf) {
  std::string stage = stage_flag;
  if (stage.empty()) {
    size_t dot = path.rfind('.');
    stage = dot == std::string::npos ? "" : path.substr(dot + 1);
  }
  ir::Dialect d;
  if (!ir::dialect_for_stage(stage, &d))
    return report_error(make_error(ErrorCode::kInvalidArgument,
                                   "cannot tell the IR kind of '" + path +
                                       "'; pass --stage ttir|ttgir|llir|ptx|amdgcn|spv|sass"));
  auto buf = read_text_file(path);
  if (!buf) return report_error(buf.status());
  auto m = norm::normalize(*buf, d, nf.options());
  if (!m) return report_error(m.status().with_file(path));
  std::move(*buf).release();  // the module holds what it prints
  if (!m->fallback.empty()) std::cerr << "note: " << path << ": " << m->fallback << "\n";
  if (!shapes) {
    // canonical_text() unit by unit: a big file's text is never held whole.
    for (const auto& u : m->units) std::cout << norm::canonical_unit_text(*m, u);
    return kExitOk;
  }
  for (const auto& u : m->units)
    for (const auto& l : u.lines) std::cout << l.shape << "\n";
  return kExitOk;
}

}  // namespace

std::vector<std::string> split_csv(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    if (comma > start) out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

void register_diff_commands(CLI::App& app, Context& ctx) {
  auto a = std::make_shared<DiffArgs>();
  CLI::App* d = app.add_subcommand("diff", "Compare the kernel IR of two builds");
  d->add_option("base", a->base,
                "BASE: capture folder, Triton cache folder, folder of IR files, recorded commit, "
                "or an IR file (then HEAD is one too)")
      ->required();
  d->add_option("head", a->head, "HEAD, the same kinds as BASE")->required();
  d->add_option("--format,-f", a->format, "terminal (default), markdown, json, html, stat, name-only");
  d->add_flag("--stat", a->stat, "One line per changed variant, like git diff --stat");
  d->add_flag("--name-only", a->name_only, "Only the names of the changed variants, one per line");
  d->add_flag("-q,--quiet", a->quiet, "No output; exit 1 when anything changed (implies --exit-code)");
  d->add_option("--output,-o", a->output, "Write the report to this file (atomically)");
  d->add_option("--color", a->color, "auto (default), always, never; --color alone = always")
      ->expected(0, 1)
      ->default_str("always");
  d->add_flag("--no-pager", a->no_pager, "Do not page the output on a terminal ($KSNAP_PAGER, $PAGER, less)");
  d->add_flag("--exit-code", a->exit_code,
              "Exit 1 when any IR changed, known-unstable changes aside (default: always 0)");
  d->add_flag("--fail-on-unstable", a->fail_on_unstable,
              "With --exit-code (or -q): changes of known-unstable variant-stages count too");
  d->add_option("--unstable-from", a->unstable_from,
                "unstable.json of known compiler nondeterminism (check-determinism -f json; "
                "repeatable); captures' own unstable.json and recorded commits need none");
  d->add_option("--stages", a->stages, "Comma-separated stages (default: all but source)");
  d->add_option("--kernel", a->kernels, "Comma-separated kernel names to compare");
  d->add_option("--order", a->order,
                "Order of the changes: pipeline (default: kernels by impact, stages in pipeline "
                "order), size (largest first), kernel (by name)");
  d->add_option("--base-label", a->base_label,
                "Name BASE by this in the report (e.g. its commit; default: the folder's name)");
  d->add_option("--head-label", a->head_label, "Name HEAD by this in the report");
  d->add_flag("--head-names", a->head_names,
              "Show HEAD lines with HEAD's own value and block names (default: BASE's names "
              "where they correspond, so a renumbering is no change; h_ marks a HEAD-only name "
              "BASE uses for another symbol)");
  d->add_option("--context,-U", a->context, "Context lines around changes (default 3)");
  d->add_option("--jobs,-j", a->jobs, "Worker threads (default: one per core)");
  d->add_option("--store", a->store, "History store for commit arguments (default .ksnap/history.db)");
  d->add_option("--max-bytes", a->max_bytes,
                 "Markdown size cap in bytes, the whole comment (default 60000; at least 1024, "
                 "the smallest report that holds its header and headline)")
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            size_t n = 0;
            auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
            if (ec != std::errc() || end != v.data() + v.size() || n < 1024)
              return v + " is not a size of at least 1024 bytes (the smallest report: its "
                     "header and headline alone may take 600)";
            return "";
          },
          "BYTES>=1024"));
  d->add_option("--max-groups", a->max_groups, "Change groups shown in full (terminal, Markdown: 200)");
  d->add_option("--html-url", a->html_url, "Markdown: link to the full HTML report (e.g. a CI artifact)");
  d->add_flag("--no-diffs", a->no_diffs, "Summary and group headers only");
  d->add_flag("--affected", a->affected,
              "List the benchmark points whose variants changed (text, or --format json)");
  a->norm.add(d);
  d->add_option("--bench-base", a->bench_base,
                "Benchmark results of BASE (perf_report CSV or ksnap samples; repeatable)");
  d->add_option("--bench-head", a->bench_head, "Benchmark results of HEAD (repeatable)");
  d->add_option("--bench-script", a->bench_script,
                "Benchmark script that produced the results (for attribution)");
  d->add_option("--bench-correction", a->bench_correction, "holm (default), bh, none")
      ->check(CLI::IsMember({"holm", "bh", "none"}));
  d->add_option("--bench-min-effect", a->bench_min_effect,
                "Smallest relative change reported (default 0.01)");
  d->add_option("--bench-alpha", a->bench_alpha, "Significance level (default 0.05)");
  d->callback([a, &ctx] { ctx.exit_code = run_diff(*a); });

  auto show_path = std::make_shared<std::string>();
  auto show_fmt = std::make_shared<std::string>("terminal");
  auto show_store = std::make_shared<std::string>(store::default_store_path());
  CLI::App* s = app.add_subcommand("show", "List the variants of a build");
  s->add_option("build", *show_path, "Capture folder, Triton cache folder or recorded commit")
      ->required();
  s->add_option("--format,-f", *show_fmt, "terminal or json")
      ->check(CLI::IsMember({"terminal", "json"}));
  s->add_option("--store", *show_store,
                "History store for a commit argument (default .ksnap/history.db)");
  s->callback([show_path, show_fmt, show_store, &ctx] {
    ctx.exit_code = run_show(*show_path, *show_fmt, *show_store);
  });

  auto np = std::make_shared<std::string>();
  auto ns = std::make_shared<std::string>();
  auto shapes = std::make_shared<bool>(false);
  auto nf = std::make_shared<NormalizeFlags>();
  CLI::App* n = app.add_subcommand("normalize", "Print the canonical form of one IR file");
  n->add_option("file", *np, "IR file (.ttir, .ttgir, .llir, .ptx, .amdgcn, .spv)")->required();
  n->add_option("--stage", *ns, "IR kind when the extension does not tell");
  n->add_flag("--shapes", *shapes, "Print line shapes (symbols masked) instead");
  nf->add(n);
  n->callback([np, ns, shapes, nf, &ctx] { ctx.exit_code = run_normalize(*np, *ns, *shapes, *nf); });
}

}  // namespace ksnap::cli

// ksnap diff / show / normalize.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "affected.h"
#include "commands.h"
#include "ksnap/build/build.h"
#include "ksnap/build/unstable.h"
#include "ksnap/diff/engine.h"
#include "ksnap/normalize/normalize.h"
#include "ksnap/perf/results_reader.h"
#include "ksnap/render/bench.h"
#include "ksnap/render/render.h"
#include "ksnap/store/resolve.h"
#include "ksnap/store/store.h"
#include "ksnap/support/file.h"
#include "ksnap/support/json.h"

namespace ksnap::cli {

namespace {

struct NormalizeFlags {
  bool keep_values = false, keep_blocks = false, keep_aliases = false, keep_locations = false;
  bool keep_metadata = false, keep_ident = false, keep_comments = false, keep_reg_decls = false;

  void add(CLI::App* c) {
    c->add_flag("--keep-values", keep_values, "Do not rename SSA values / registers");
    c->add_flag("--keep-blocks", keep_blocks, "Do not rename block labels");
    c->add_flag("--keep-aliases", keep_aliases, "Do not identify aliases by their definitions");
    c->add_flag("--keep-locations", keep_locations, "Keep loc(...), !dbg, .loc and debug info");
    c->add_flag("--keep-metadata", keep_metadata, "Keep LLVM metadata / attribute-group numbers");
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
  return ::isatty(STDOUT_FILENO) != 0;
}

int write_output(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return kExitOk;
  }
  Status s = write_file_atomic(path, text);
  if (!s.is_ok()) return report_error(s);
  return kExitOk;
}

struct DiffArgs {
  std::string base, head, format = "terminal", output, color = "auto", stages, kernels;
  std::string store = store::default_store_path();  // for arguments that are recorded commits
  bool stat = false, exit_code = false, no_diffs = false, fail_on_unstable = false, affected = false;
  std::vector<std::string> unstable_from;  // unstable.json files (check-determinism output)
  uint32_t context = 3;
  unsigned jobs = 0;
  size_t max_bytes = 60000;
  NormalizeFlags norm;
  // Benchmark-noise verdicts.
  std::vector<std::string> bench_base, bench_head;
  std::string bench_script, bench_correction = "holm";
  double bench_min_effect = 0.01, bench_alpha = 0.05;
};

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
  return render::bench_verdicts(r, base, head, co);
}

int run_diff(const DiffArgs& a) {
  render::Format fmt;
  if (!render::parse_format(a.stat ? "stat" : a.format, &fmt))
    return report_error(make_error(ErrorCode::kInvalidArgument,
                                   "unknown --format '" + a.format +
                                       "' (terminal, markdown, json, html, stat)"));
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
  opts.context = a.context;
  opts.jobs = a.jobs;
  // A folder loads as a build; anything else is a commit in the history store.
  // Both builds load concurrently (manifests, metadata, or store reads).
  Expected<build::Build> base = Status();
  std::thread loader([&] { base = store::resolve_build(a.base, a.store); });
  Expected<build::Build> head = store::resolve_build(a.head, a.store);
  loader.join();
  if (!base) return report_error(base.status());
  if (!head) return report_error(head.status());
  for (const std::string& f : a.unstable_from) {
    auto u = build::read_unstable(f);
    if (!u) return report_error(u.status());
    build::mark_unstable(*u, build::UnstableMatch::kIdentity, &*base);
    build::mark_unstable(*u, build::UnstableMatch::kIdentity, &*head);
  }
  auto result = diff::diff_builds(*base, *head, opts);
  if (!result) return report_error(result.status());
  if (a.affected) {  // the benchmark points to rerun (affected.h)
    Affected af = affected_points(*result);
    int rc = write_output(a.output, fmt == render::Format::kJson ? render_affected_json(af)
                                                                  : render_affected_text(af));
    if (rc != kExitOk) return rc;
    return a.exit_code && af.changed_variants ? kExitDifferences : kExitOk;
  }
  render::RenderOptions ro;
  std::optional<perf::VerdictReport> verdicts;
  if (!a.bench_base.empty()) {
    auto v = load_verdicts(a, *result);
    if (!v) return report_error(v.status());
    verdicts = std::move(*v);
    ro.verdicts = &*verdicts;
  }
  ro.color = want_color(a.color, !a.output.empty() && a.output != "-");
  ro.max_bytes = a.max_bytes;
  ro.show_diffs = !a.no_diffs;
  std::string text;
  switch (fmt) {
    case render::Format::kTerminal: text = render::render_terminal(*result, ro); break;
    case render::Format::kMarkdown: text = render::render_markdown(*result, ro); break;
    case render::Format::kJson: text = render::render_json(*result, ro); break;
    case render::Format::kStat: text = render::render_stat(*result, ro); break;
    case render::Format::kHtml: text = render::render_html(*result, ro); break;
  }
  int rc = write_output(a.output, text);
  if (rc != kExitOk) return rc;
  // Malformed or unreadable IR: the report above holds every other stage;
  // the input errors are still errors (stderr, exit 2).
  bool input_error = false;
  for (const auto& v : result->variants)
    for (const auto* list : {&v.stages, &v.binaries})
      for (const auto& s : *list)
        if (s.input_error) {
          std::cerr << "ksnap: " << s.fallback << "\n";
          input_error = true;
        }
  if (input_error) return kExitError;
  // Known nondeterminism is not a difference unless asked (--fail-on-unstable).
  const bool differs = a.fail_on_unstable ? result->any_change() : result->any_real_change();
  return a.exit_code && differs ? kExitDifferences : kExitOk;
}

int run_show(const std::string& path, const std::string& format) {
  auto b = build::load_build(path);
  if (!b) return report_error(b.status());
  if (format == "json") {
    // Values are JSON text (python_json of parsed JSON); names may be any
    // bytes: json::dump spells them as valid UTF-8 and never throws.
    auto object_of = [](const std::map<std::string, std::string>& kv) {
      nlohmann::json o = nlohmann::json::object();
      for (const auto& [k, text] : kv) {
        nlohmann::json val = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
        o[k] = val.is_discarded() ? nlohmann::json(text) : std::move(val);
      }
      return o;
    };
    nlohmann::json out = nlohmann::json::array();
    for (const auto& v : b->variants) {
      nlohmann::json stages = nlohmann::json::array();
      for (const auto& st : v.stages) stages.push_back(st.stage);
      out.push_back({{"kernel", v.kernel},
                     {"id", v.id()},
                     {"signature", v.signature},
                     {"constexprs", object_of(v.constexprs)},
                     {"options", object_of(v.options)},
                     {"stages", stages},
                     {"resources", v.resources}});
    }
    std::cout << json::dump(std::move(out), 1) << "\n";
    return kExitOk;
  }
  const char* kind = b->kind == build::BuildKind::kCapture ? "capture" : "triton cache";
  std::cout << b->name << " (" << kind;
  if (!b->triton_version.empty()) std::cout << ", triton " << b->triton_version;
  if (!b->arch.empty()) std::cout << ", " << b->arch;
  std::cout << "): " << b->variants.size() << " variants\n";
  for (const auto& v : b->variants) {
    std::cout << "  " << v.kernel << " " << v.constexprs_text() << " " << v.options_text() << "  ";
    for (size_t k = 0; k < v.stages.size(); ++k) std::cout << (k ? "," : "") << v.stages[k].stage;
    for (const auto& [r, n] : v.resources) std::cout << "  " << r << "=" << n;
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
  if (!shapes) {
    std::cout << norm::canonical_text(*m);
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
  d->add_option("base", a->base, "BASE build: capture folder, Triton cache folder or recorded commit")
      ->required();
  d->add_option("head", a->head, "HEAD build")->required();
  d->add_option("--format,-f", a->format, "terminal (default), markdown, json, html, stat");
  d->add_flag("--stat", a->stat, "One line per changed variant, like git diff --stat");
  d->add_option("--output,-o", a->output, "Write the report to this file (atomically)");
  d->add_option("--color", a->color, "auto, always, never")->check(CLI::IsMember({"auto", "always", "never"}));
  d->add_flag("--exit-code", a->exit_code,
              "Exit 1 when any IR changed, known-unstable changes aside (default: always 0)");
  d->add_flag("--fail-on-unstable", a->fail_on_unstable,
              "With --exit-code: changes of known-unstable variant-stages count too");
  d->add_option("--unstable-from", a->unstable_from,
                "unstable.json of known compiler nondeterminism (check-determinism -f json; "
                "repeatable); captures' own unstable.json and recorded commits need none");
  d->add_option("--stages", a->stages, "Comma-separated stages (default: all but source)");
  d->add_option("--kernel", a->kernels, "Comma-separated kernel names to compare");
  d->add_option("--context,-U", a->context, "Context lines around changes (default 3)");
  d->add_option("--jobs,-j", a->jobs, "Worker threads (default: one per core)");
  d->add_option("--store", a->store, "History store for commit arguments (default .ksnap/history.db)");
  d->add_option("--max-bytes", a->max_bytes, "Markdown size cap in bytes (default 60000)");
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
  CLI::App* s = app.add_subcommand("show", "List the variants of a build");
  s->add_option("build", *show_path, "Capture folder or Triton cache folder")->required();
  s->add_option("--format,-f", *show_fmt, "terminal or json")
      ->check(CLI::IsMember({"terminal", "json"}));
  s->callback([show_path, show_fmt, &ctx] { ctx.exit_code = run_show(*show_path, *show_fmt); });

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

// ksnap check-determinism A B: which variant-stages two captures of the same
// build compiled differently (compiler nondeterminism; docs/capture.md).
//
//   ksnap check-determinism ci/run1 ci/run2              # text, exit 0
//   ksnap check-determinism ci/run1 ci/run2 -f json -o ci/run1/unstable.json
//   ksnap check-determinism ci/run1 ci/run2 --exit-code  # 1 when anything is unstable
#include <iostream>
#include <memory>
#include <thread>

#include "commands.h"
#include "ksnap/build/build.h"
#include "ksnap/build/unstable.h"
#include "ksnap/diff/determinism.h"
#include "ksnap/support/file.h"
#include "ksnap/support/guarded.h"

namespace ksnap::cli {

namespace {

std::string variant_text(const build::Variant& v) {
  std::string s = v.kernel;
  if (!v.source().empty()) s += " (" + build::source_tail(v, 1) + ")";
  return s + " " + v.constexprs_text() + " " + v.options_text();
}

std::string plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

struct CheckArgs {
  std::string a, b, format = "text", output, stages, kernels;
  bool exit_code = false;
  unsigned jobs = 0;
};

int run_check(const CheckArgs& c) {
  auto load = [](const std::string& path) {
    return guarded([&] { return build::load_build(path); }, "loading '" + path + "'");
  };
  Expected<build::Build> a = Status();
  std::thread loader([&] { a = load(c.a); });  // no exception may leave a thread
  Expected<build::Build> b = load(c.b);
  loader.join();
  if (!a) return report_error(a.status());
  if (!b) return report_error(b.status());
  diff::DiffOptions o;
  o.jobs = c.jobs;
  o.stages = split_csv(c.stages);
  o.kernels = split_csv(c.kernels);
  auto u = diff::check_determinism(*a, *b, o);
  if (!u) return report_error(u.status());
  const std::string text =
      c.format == "json" ? build::unstable_json(*u) : determinism_summary(*u);
  if (c.output.empty() || c.output == "-") {
    std::cout << text;
  } else {
    Status s = write_file_atomic(c.output, text);
    if (!s.is_ok()) return report_error(s);
    if (c.format == "json") std::cerr << determinism_summary(*u);
  }
  const bool stable = u->variants.empty() && u->unpaired.empty();
  return c.exit_code && !stable ? kExitDifferences : kExitOk;
}

}  // namespace

std::string determinism_summary(const build::UnstableReport& u) {
  std::string out;
  std::string runs;
  for (size_t i = 0; i < u.runs.size(); ++i) runs += (i ? ", " : "") + u.runs[i];
  if (u.variants.empty()) {
    out += "Deterministic: " + plural(u.stages_compared, "stage", "stages") + " of " +
           plural(u.variants_compared, "variant", "variants") + " are identical after " +
           "normalization across " + std::to_string(u.runs.size()) + " runs (" + runs + ").\n";
  } else {
    out += plural(u.stage_count(), "unstable variant-stage", "unstable variant-stages") +
           " in " + plural(u.variants.size(), "variant", "variants") + " (of " +
           std::to_string(u.stages_compared) + " stages of " +
           std::to_string(u.variants_compared) + " variants compared across " +
           std::to_string(u.runs.size()) + " runs: " + runs + "):\n";
    for (const build::UnstableVariant& v : u.variants) {
      out += "  " + variant_text(v.variant) + "\n     ";
      for (const build::UnstableStage& s : v.stages)
        out += " " + s.stage + " +" + std::to_string(s.lines_added) + " -" +
               std::to_string(s.lines_removed);
      out += "\n";
    }
  }
  if (!u.unpaired.empty()) {
    out += plural(u.unpaired.size(), "variant", "variants") + " compiled by one run only:\n";
    for (const build::UnpairedVariant& v : u.unpaired)
      out += "  only in " + (v.run < u.runs.size() ? u.runs[v.run] : std::to_string(v.run)) +
             ": " + variant_text(v.variant) + "\n";
  }
  return out;
}

void register_determinism_commands(CLI::App& app, Context& ctx) {
  auto c = std::make_shared<CheckArgs>();
  CLI::App* d = app.add_subcommand(
      "check-determinism",
      "List the variant-stages that two captures of the same build compiled differently "
      "(compiler nondeterminism)");
  d->add_option("a", c->a, "First capture (the reference)")->required();
  d->add_option("b", c->b, "Second capture of the same build, from another process")->required();
  d->add_option("--format,-f", c->format, "text (default) or json (the unstable.json format)")
      ->check(CLI::IsMember({"text", "json"}));
  d->add_option("--output,-o", c->output,
                "Write the report here (atomically); -o A/unstable.json makes A remember it");
  d->add_option("--stages", c->stages, "Comma-separated stages (default: all, source included)");
  d->add_option("--kernel", c->kernels, "Comma-separated kernel names");
  d->add_option("--jobs,-j", c->jobs, "Worker threads (default: one per core)");
  d->add_flag("--exit-code", c->exit_code,
              "Exit 1 when a stage is unstable or a variant is in one capture only");
  d->callback([c, &ctx] { ctx.exit_code = run_check(*c); });
}

}  // namespace ksnap::cli

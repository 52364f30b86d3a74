// ksnap recompile: rebuild every variant a capture recorded, with the
// installed Triton, for any target, without running the benchmark. A thin
// front end of `python -m ksnap_triton recompile` (docs/recompile.md), run
// the way `ksnap capture` runs the plugin (capture_command.cc):
//
//   ksnap recompile ci/main -o ci/main-sm80 --target cuda:80 --jobs 16
//   => execvp("python3", {"python3", "-m", "ksnap_triton", "recompile",
//             "ci/main", "-o", "ci/main-sm80", "--target", "cuda:80", "--jobs", "16"})
//
// The interpreter ($KSNAP_PYTHON, else python3) must have Triton, or
// --python names the one whose Triton compiles (the workers'; the driver
// stays on $KSNAP_PYTHON); no GPU or driver is needed. Exit status: 0 every variant rebuilt; 1 some failed or
// could not be planned (the output capture holds the rest, and
// OUT/recompile.json each failure with the compiler's message); 2 usage or
// input error.
#include <memory>
#include <string>
#include <vector>

#include "commands.h"

namespace ksnap::cli {

namespace {

struct RecompileFlags {
  std::string capture, output, target, shard, build, python;
  unsigned jobs = 0;
  double timeout = 900;
  std::vector<std::string> kernels, trusted_modules;
  bool no_sass = false;

  std::vector<std::string> plugin_args() const {
    std::vector<std::string> a = {"recompile", capture, "-o", output};
    if (!target.empty()) a.insert(a.end(), {"--target", target});
    if (jobs) a.insert(a.end(), {"--jobs", std::to_string(jobs)});
    if (!shard.empty()) a.insert(a.end(), {"--shard", shard});
    if (!build.empty()) a.insert(a.end(), {"--build", build});
    a.insert(a.end(), {"--timeout", std::to_string(timeout)});
    for (const std::string& k : kernels) a.insert(a.end(), {"--kernel", k});
    if (no_sass) a.push_back("--no-sass");
    for (const std::string& m : trusted_modules) a.insert(a.end(), {"--trust-module", m});
    if (!python.empty()) a.insert(a.end(), {"--python", python});
    return a;
  }
};

}  // namespace

void register_recompile_command(CLI::App& app, Context& ctx) {
  auto f = std::make_shared<RecompileFlags>();
  CLI::App* c = app.add_subcommand(
      "recompile",
      "Rebuild every variant a capture recorded with the installed Triton, for any target, in "
      "parallel, without running the program (no GPU needed); writes a normal capture folder");
  c->add_option("capture", f->capture, "Capture folder whose variants carry recompile records")
      ->required();
  c->add_option("-o,--output", f->output, "New capture folder (created)")->required();
  c->add_option("--target", f->target,
                "cuda:90, cuda:80, hip:gfx942, BACKEND:ARCH[:WARP] (default: the capture's)");
  c->add_option("--jobs,-j", f->jobs, "Worker processes (default: one per core)");
  c->add_option("--shard", f->shard, "i/n: only this CI runner's share (join with ksnap merge)");
  c->add_option("--timeout", f->timeout,
                "Seconds one variant may compile before its worker is killed (0: none)");
  c->add_option("--kernel", f->kernels, "Only variants of this kernel (repeatable)");
  c->add_flag("--no-sass", f->no_sass, "Do not disassemble cubins into a sass stage");
  c->add_option("--build", f->build, "Build name in the manifest (default: folder name)");
  c->add_option("--trust-module", f->trusted_modules,
                "A kernel library the capture used: its records may import it and its plain "
                "Python helpers come from the installed module (repeatable; by default only "
                "triton, triton.language and math)");
  c->add_option("--python", f->python,
                "Interpreter whose Triton compiles (default: the plugin's, $KSNAP_PYTHON): "
                "recompile one capture under two Tritons and diff the outputs");
  c->footer(
      "Examples:\n"
      "  ksnap recompile ci/main -o ci/main-sm80 --target cuda:80 --jobs 16\n"
      "  ksnap recompile ci/main -o ci/next --python /opt/triton-next/bin/python3");
  c->callback([f, &ctx] {
    ctx.exit_code = report_error(exec_plugin(f->plugin_args(), PluginInput::kUntrustedCapture));
  });
}

}  // namespace ksnap::cli

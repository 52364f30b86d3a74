// ksnap capture / ksnap merge: thin front ends of the Triton capture plugin.
//
// Both exec the Python package python/ksnap_triton (docs/capture.md), which
// needs no Triton for `merge` and finds the program's Triton for `capture`:
//
//   ksnap capture -o ci/pr -- python3 benchmarks/gemm.py --sizes 512,1024
//   => execvp("python3", {"python3", "-m", "ksnap_triton", "capture", "-o",
//             "ci/pr", "--", "python3", "benchmarks/gemm.py", ...})
//      with PYTHONPATH=<repo>/python:$PYTHONPATH
//
// The interpreter is $KSNAP_PYTHON, else `python3` on PATH. The package
// folder is $KSNAP_PYTHONPATH, else the first of <exe dir>/../python,
// <exe dir>/../../python, <exe dir>/../share/ksnap/python that holds
// ksnap_triton/ (a build folder inside the repository, or an install: the
// .deb and `cmake --install` put a link to the package there). When none
// does, the interpreter's own installed package is used (`pip install
// ksnap/python` into a venv); if it has none, that is the error (exit 2).
// On success the process becomes the plugin and its exit status is ksnap's.
// `merge` (and `recompile`) read captures that may come from a pull request:
// they start the interpreter with an explicit sys.path, without the current
// folder, and keep only PYTHONPATH's absolute entries (docs/hostile-input.md).
//
// With --repeat N (N >= 2) ksnap stays the parent: it runs the plugin N times,
// one process after the other, into OUT, OUT.repeat-2, ..., OUT.repeat-N (each
// with its own, empty Triton cache, so every run compiles every variant
// itself), then compares every run with OUT (diff::check_determinism) and
// writes OUT/unstable.json: the variant-stages compiled differently
// (docs/capture-format.md). The exit status is the program's (the first
// failing run stops the repeats), else 0; 2 when the check cannot be done.
#include <limits.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "ksnap/build/unstable.h"
#include "ksnap/diff/determinism.h"
#include "ksnap/support/file.h"

namespace ksnap::cli {

namespace {

std::string executable_dir() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return ".";
  std::string path(buf, static_cast<size_t>(n));
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

/// The plugin for commands that read untrusted captures (merge, recompile),
/// and the interpreter's installed plugin for capture: `python -c` with this
/// text, then the package folder ("" = the interpreter's installed package;
/// when it has none, that is the error, exit 2), then the plugin's arguments. `-c` puts
/// "" (the current folder) first on sys.path, `-m` its absolute path: a
/// downloaded capture holding json.py would run. The first line drops it
/// before anything is imported (`-P` exists only from Python 3.11; `-I`
/// would also drop the PYTHONPATH that may hold the user's Triton).
constexpr const char* kIsolatedPluginMain =
    "import sys\n"
    "sys.path[:] = [p for p in sys.path if p]\n"
    "d = sys.argv.pop(1)\n"
    "if d:\n"
    "    sys.path.insert(0, d)\n"
    "try:\n"
    "    from ksnap_triton.cli import main\n"
    "except ImportError as e:\n"
    "    sys.stderr.write('ksnap: no ksnap_triton Python package next to the ksnap executable, '\n"
    "                     'and %s cannot import one (%s): install it (pip install "
    "<ksnap>/python, or the ksnap .deb) or set KSNAP_PYTHONPATH\\n' % (sys.executable, e))\n"
    "    sys.exit(2)\n"
    "sys.exit(main(sys.argv[1:]))\n";

/// PYTHONPATH less its empty and relative entries: each means a folder
/// relative to the current one, and `site` imports sitecustomize.py from
/// PYTHONPATH before any code of ours runs.
std::string absolute_pythonpath(const char* value) {
  std::string out;
  std::string v = value ? value : "";
  size_t start = 0;
  while (start <= v.size()) {
    size_t end = v.find(':', start);
    if (end == std::string::npos) end = v.size();
    std::string part = v.substr(start, end - start);
    if (!part.empty() && part[0] == '/') out += (out.empty() ? "" : ":") + part;
    start = end + 1;
  }
  return out;
}

/// The folder that holds the ksnap_triton package (absolute).
Expected<std::string> plugin_dir() {
  if (const char* env = std::getenv("KSNAP_PYTHONPATH"); env && *env) {
    if (!is_directory(std::string(env) + "/ksnap_triton"))
      return make_error(ErrorCode::kNotFound,
                        "KSNAP_PYTHONPATH has no ksnap_triton/ package folder", {env, 0, 0});
    char buf[PATH_MAX];
    if (::realpath(env, buf) == nullptr)
      return make_error(ErrorCode::kNotFound, std::strerror(errno), {env, 0, 0});
    return std::string(buf);
  }
  const std::string dir = executable_dir();
  for (const char* rel : {"/../python", "/../../python", "/../share/ksnap/python"}) {
    std::string candidate = dir + rel;
    if (is_directory(candidate + "/ksnap_triton")) return candidate;
  }
  return make_error(ErrorCode::kNotFound,
                    "cannot find the ksnap_triton Python package next to the ksnap executable; "
                    "set KSNAP_PYTHONPATH to the repository's python/ folder",
                    {dir, 0, 0});
}

}  // namespace

Status exec_plugin(const std::vector<std::string>& args, PluginInput input) {
  Expected<std::string> found = plugin_dir();
  if (const char* pinned = std::getenv("KSNAP_PYTHONPATH"); !found && pinned && *pinned)
    return found.status();
  const char* env_python = std::getenv("KSNAP_PYTHON");
  const std::string python = env_python && *env_python ? env_python : "python3";
  std::vector<std::string> argv = {python, "-m", "ksnap_triton"};
  if (input == PluginInput::kUntrustedCapture) {
    const std::string path = absolute_pythonpath(std::getenv("PYTHONPATH"));
    if (path.empty())
      ::unsetenv("PYTHONPATH");
    else
      ::setenv("PYTHONPATH", path.c_str(), 1);
    argv = {python, "-c", kIsolatedPluginMain, found ? *found : std::string()};
  } else if (found) {
    const char* old_path = std::getenv("PYTHONPATH");
    std::string path = *found;
    if (old_path && *old_path) path += std::string(":") + old_path;
    ::setenv("PYTHONPATH", path.c_str(), 1);
  } else {
    argv = {python, "-c", kIsolatedPluginMain, ""};  // the interpreter's installed plugin
  }
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> c_argv;
  for (std::string& a : argv) c_argv.push_back(a.data());
  c_argv.push_back(nullptr);
  ::execvp(python.c_str(), c_argv.data());
  return make_error(ErrorCode::kUnavailable, "cannot run " + python + ": " + std::strerror(errno) +
                                                 " (set KSNAP_PYTHON to a Python 3 interpreter)");
}

long start_plugin(const std::vector<std::string>& args, PluginInput input) {
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) {
    report_error(
        make_error(ErrorCode::kUnavailable, std::string("cannot fork: ") + std::strerror(errno)));
    return -1;
  }
  if (pid == 0) {
    Status s = exec_plugin(args, input);  // returns only on failure
    report_error(s);
    ::_exit(kExitError);
  }
  return pid;
}

int wait_plugin(long pid) {
  if (pid < 0) return kExitError;
  int st = 0;
  while (::waitpid(static_cast<pid_t>(pid), &st, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

namespace {

struct CaptureFlags {
  std::string output, build, arch;
  bool no_launch = false, no_track_launches = false;
  unsigned repeat = 1;
  std::vector<std::string> program;

  /// The plugin's arguments for a capture into `out` named `name` ("" = default).
  std::vector<std::string> plugin_args(const std::string& out, const std::string& name) const {
    std::vector<std::string> a = {"capture", "-o", out};
    if (!name.empty()) a.insert(a.end(), {"--build", name});
    if (!arch.empty()) a.insert(a.end(), {"--arch", arch});
    if (no_launch) a.push_back("--no-launch");
    if (no_track_launches) a.push_back("--no-track-launches");
    a.push_back("--");
    a.insert(a.end(), program.begin(), program.end());
    return a;
  }
};

int spawn_plugin(const std::vector<std::string>& args) {
  return wait_plugin(start_plugin(args, PluginInput::kUserProgram));
}

std::string strip_slashes(std::string p) {
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

/// Run k (k >= 2) of `capture --repeat` goes beside OUT.
std::string repeat_dir(const std::string& out, unsigned k) {
  return strip_slashes(out) + ".repeat-" + std::to_string(k);
}

/// Compares OUT with every repeat and writes OUT/unstable.json.
int check_repeats(const CaptureFlags& cf) {
  auto first = build::load_build(cf.output);
  if (!first) return report_error(first.status());
  build::UnstableReport all;
  for (unsigned k = 2; k <= cf.repeat; ++k) {
    auto again = build::load_build(repeat_dir(cf.output, k));
    if (!again) return report_error(again.status());
    auto u = diff::check_determinism(*first, *again);
    if (!u) return report_error(u.status());
    diff::merge_unstable(&all, *u);
  }
  const std::string path = strip_slashes(cf.output) + "/unstable.json";
  Status s = write_file_atomic(path, build::unstable_json(all));
  if (!s.is_ok()) return report_error(s);
  std::fprintf(stderr, "ksnap: %s(written to %s)\n", determinism_summary(all).c_str(),
               path.c_str());
  return kExitOk;
}

int run_capture(const CaptureFlags& cf) {
  if (cf.repeat <= 1) return report_error(exec_plugin(cf.plugin_args(cf.output, cf.build)));
  // Every repeat compiles from an empty cache of its own: refuse old ones.
  for (unsigned k = 2; k <= cf.repeat; ++k)
    if (is_directory(repeat_dir(cf.output, k)) || is_regular_file(repeat_dir(cf.output, k)))
      return report_error(
          make_error(ErrorCode::kInvalidArgument,
                     "the folder of repeat " + std::to_string(k) +
                         " already exists (its Triton cache would be reused); remove it first",
                     {repeat_dir(cf.output, k), 0, 0}));
  std::string name = cf.build;
  if (name.empty()) {
    std::string out = strip_slashes(cf.output);
    name = out.substr(out.rfind('/') + 1);
  }
  for (unsigned k = 1; k <= cf.repeat; ++k) {
    std::fprintf(stderr, "ksnap: capture run %u of %u\n", k, cf.repeat);
    int rc = spawn_plugin(cf.plugin_args(k == 1 ? cf.output : repeat_dir(cf.output, k), name));
    if (rc != 0) {
      std::fprintf(stderr, "ksnap: run %u exited with status %d; no determinism check\n", k, rc);
      return rc;
    }
  }
  return check_repeats(cf);
}

struct MergeFlags {
  std::string output, build;
  std::vector<std::string> shards;

  std::vector<std::string> plugin_args() const {
    std::vector<std::string> a = {"merge", output};
    a.insert(a.end(), shards.begin(), shards.end());
    if (!build.empty()) a.insert(a.end(), {"--build", build});
    return a;
  }
};

}  // namespace

void register_capture_commands(CLI::App& app, Context& ctx) {
  auto cf = std::make_shared<CaptureFlags>();
  CLI::App* cap = app.add_subcommand(
      "capture",
      "Run a program unchanged and record every Triton kernel variant it compiles "
      "(IR of every stage, binaries, JIT key, constexprs, options) into a capture folder");
  cap->add_option("-o,--output", cf->output, "Capture folder (created; shards may share it)")
      ->required();
  cap->add_option("--build", cf->build, "Build name in the manifest (default: folder name)");
  cap->add_flag("--no-launch", cf->no_launch,
                "Compile and record only: kernels never run, so results the program checks "
                "are wrong");
  cap->add_option("--arch", cf->arch,
                  "Compile for another target (sm_80, sm90a, gfx942); implies --no-launch");
  cap->add_flag("--no-track-launches", cf->no_track_launches,
                "Do not follow launches (no 'launched' flags, no benchmark points after compile)");
  cap->add_option("program", cf->program, "-- PROGRAM [ARGS...]: the command to run")->required();
  cap->footer("Example: ksnap capture -o ci/pr -- python3 benchmarks/gemm.py --sizes 512");
  cap->add_option("--repeat", cf->repeat,
                  "Run the program N times (OUT, OUT.repeat-2, ...) and record in "
                  "OUT/unstable.json which variant-stages compiled differently")
      ->check(CLI::Range(1, 16));
  cap->callback([cf, &ctx] { ctx.exit_code = run_capture(*cf); });

  auto mf = std::make_shared<MergeFlags>();
  CLI::App* merge = app.add_subcommand(
      "merge", "Join shard captures (and OUT's own per-process shards) into OUT/manifest.json");
  merge->add_option("output", mf->output, "Capture folder to merge into")->required();
  merge->add_option("shards", mf->shards, "Other capture folders (copied in, de-duplicated)");
  merge->add_option("--build", mf->build, "Build name in the manifest");
  merge->callback([mf, &ctx] {
    ctx.exit_code = report_error(exec_plugin(mf->plugin_args(), PluginInput::kUntrustedCapture));
  });
}

}  // namespace ksnap::cli

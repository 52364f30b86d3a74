// Whole-build diff speed on a 10,000-variant pair.
//
// The pair is built by replicating the shared corpus: replica k of each of
// the 19 variants gets the extra constexpr REPLICA=k (so identities stay
// unique) and hard links to the real files. BASE replicas use the `base`
// build's files; HEAD replicas use the `noise` build's (every file differs
// byte-wise, cosmetically: the worst case, as every file must be normalized),
// except every 25th replica, which uses `no_licm` (real changes to diff).
// Prints the wall time of `ksnap diff` on --jobs 1 and 2 and, on the same
// pair, of `diff -r` and `git diff --no-index --stat`. Then records BASE in a
// history store and diffs the recorded commit against HEAD, as a PR job does
// against main's history: the store keeps BASE's normalized hashes, so only
// HEAD is normalized; its time includes loading the commit from the store.
// Last, a later main commit whose capture is `noise` everywhere is recorded:
// HEAD's noise texts are then texts the store has read (raw_norm), so the
// same diff normalizes only HEAD's no_licm replicas.
//
// Usage: diff_speed_bench [VARIANTS=10000] [CORPUS_DIR] [WORK_DIR=/tmp/ksnap_bench_10k]
//                         [make-only | store-only | memory]
// (make-only: build the pair and stop, for timing `ksnap diff` on it by hand,
// e.g. the 100,000-variant pair of docs/benchmarks.md; store-only: keep the
// pair and the history store a full run left in WORK_DIR and time only the
// diff of BASE's commit against HEAD with HEAD's texts seen, 3 times;
// memory: issue 20's flat-memory check — the peak RSS of the `ksnap` CLI's
// `diff BASE HEAD --jobs 2 --format stat` and, as the reference in the same
// run, of loading the two builds alone; the pair is made unless WORK_DIR
// holds one of VARIANTS variants, as WORK_DIR/variants says)
#include <sys/resource.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "child_run.h"
#include "ksnap/build/build.h"
#include "ksnap/diff/engine.h"
#include "ksnap/store/store.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace ksnap;

namespace {

json load(const std::string& path) {
  std::ifstream f(path);
  return json::parse(f);
}

/// BASE: `base` files; HEAD: `noise`, every 25th replica `no_licm`;
/// NOISE_ONLY: `noise` files everywhere (a later main commit whose texts
/// are HEAD's cosmetic variants).
enum class Side { kBase, kHead, kNoiseOnly };

uint64_t make_build(const std::string& corpus, const std::string& out, size_t variants,
                    Side side) {
  const bool head = side != Side::kBase;
  json base = load(corpus + "/base/manifest.json");
  json noise = load(corpus + "/noise/manifest.json");
  json licm = load(corpus + "/no_licm/manifest.json");
  json m = base;
  m["build"] = head ? "head" : "base";
  m["entries"] = json::array();
  uint64_t bytes = 0;
  size_t n = base["entries"].size();
  for (size_t k = 0; m["entries"].size() < variants; ++k) {
    for (size_t i = 0; i < n && m["entries"].size() < variants; ++i) {
      const bool licm_here = side == Side::kHead && k % 25 == 24;
      const char* src_build = !head ? "base" : (licm_here ? "no_licm" : "noise");
      const json& src = !head ? base : (licm_here ? licm : noise);
      json e = src["entries"][i];
      e["constexprs"]["REPLICA"] = k;
      std::string cdir = e["cache_dir"].get<std::string>();
      // Appended, not "R" + to_string(k): GCC 12 warns a false -Wrestrict there.
      std::string dst = "R";
      dst += std::to_string(k);
      dst += '_';
      dst += cdir;
      fs::create_directories(out + "/cache/" + dst);
      for (auto& f : fs::directory_iterator(corpus + "/" + src_build + "/cache/" + cdir)) {
        if (f.path().extension() == ".so") continue;
        fs::path to = out + "/cache/" + dst + "/" + f.path().filename().string();
        std::error_code ec;
        fs::create_hard_link(f.path(), to, ec);
        if (ec) fs::copy_file(f.path(), to);
        bytes += fs::file_size(f.path());
      }
      e["cache_dir"] = dst;
      m["entries"].push_back(e);
    }
  }
  std::ofstream(out + "/manifest.json") << m.dump(1);
  return bytes;
}

/// User + system CPU seconds of this process so far (all threads).
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec +
         u.ru_stime.tv_usec / 1e6;
}

double seconds_of(const std::string& cmd) {
  auto t0 = std::chrono::steady_clock::now();
  int rc = std::system(cmd.c_str());
  (void)rc;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Records the build at `dir` as commit `sha`; prints the time. False (and
/// the reason on stderr) when it fails.
bool record_timed(store::Store& st, const std::string& dir, const std::string& sha,
                  std::vector<std::string> parents, const char* what) {
  auto b = build::load_build(dir);
  if (!b) {
    std::fprintf(stderr, "%s\n", b.status().to_string().c_str());
    return false;
  }
  store::RecordOptions ro;
  ro.sha = sha;
  ro.parents = std::move(parents);
  auto t0 = std::chrono::steady_clock::now();
  auto rec = st.record(*b, ro);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!rec) {
    std::fprintf(stderr, "%s\n", rec.status().to_string().c_str());
    return false;
  }
  std::printf("record %s: %.2f s (%zu stages, %zu blobs)\n", what, s, rec->stages,
              rec->new_blobs);
  return true;
}

/// `ksnap diff <sha> <head_dir>` as a PR job runs it: load the commit and
/// HEAD concurrently (as the CLI does, tools/ksnap/diff_inputs.cc), diff;
/// prints the parts. Wall seconds of the whole, -1 on failure.
double store_diff(store::Store& st, const std::string& sha, const std::string& head_dir,
                  unsigned jobs) {
  using clock = std::chrono::steady_clock;
  auto since = [](clock::time_point t) {
    return std::chrono::duration<double>(clock::now() - t).count();
  };
  diff::DiffOptions o;
  o.jobs = jobs;
  double c1 = cpu_seconds();
  auto t1 = clock::now();
  std::optional<Expected<build::Build>> head;
  double t_head = 0;
  std::thread head_loader([&] {
    auto t2 = clock::now();
    head.emplace(build::load_build(head_dir));
    t_head = since(t2);
  });
  auto recorded = st.load(sha);
  double t_load = since(t1);
  head_loader.join();
  if (!recorded || !*head) {
    std::fprintf(stderr, "cannot load the pair\n");
    return -1;
  }
  double t_both = since(t1);
  auto t3 = clock::now();
  auto r = diff::diff_builds(*recorded, **head, o);
  double t_engine = since(t3);
  double d = since(t1);
  if (!r) {
    std::fprintf(stderr, "%s\n", r.status().to_string().c_str());
    return -1;
  }
  std::printf(
      "ksnap diff <recorded commit> head --jobs %u: %.2f s, CPU %.2f s (%zu changed): load the "
      "commit %.2f s and HEAD's manifest %.2f s concurrently (%.2f s), diff engine %.2f s\n",
      jobs, d, cpu_seconds() - c1, r->changed_stage_count(), t_load, t_head, t_both, t_engine);
  return d;
}

#ifndef KSNAP_CLI_PATH
#define KSNAP_CLI_PATH "ksnap"  // from PATH when the build has no CLI target
#endif

/// The memory mode: peak RSS of the CLI's whole diff against loading only.
int memory_check(const std::string& work, size_t variants) {
  // The 100,000 pair holds 31.6 GB of IR a side, over the CLI's 32 GiB
  // default input budget for both: raised so that every stage is compared.
  setenv("KSNAP_MAX_INPUT_BYTES", "1000000000000", 1);
  const std::string cli = KSNAP_CLI_PATH;
  const std::string base = work + "/base", head = work + "/head";
  // Loading only: a kernel filter that names no kernel is refused once both
  // builds are loaded (exit 2).
  const double hour = 3600;
  ksnap::bench::RunResult load =
      ksnap::bench::run({cli, "diff", base, head, "--jobs", "2", "--format", "stat", "--kernel",
                  "no_such_kernel_in_the_pair"},
                 "/dev/null", hour, /*quiet_stderr=*/true);
  ksnap::bench::RunResult whole = ksnap::bench::run(
      {cli, "diff", base, head, "--jobs", "2", "--format", "stat"}, "/dev/null", hour, true);
  if (load.exit_code() != 2 || whole.exit_code() != 0) {
    std::fprintf(stderr, "ksnap diff failed (%s): load-only exit %d, whole diff exit %d\n",
                 cli.c_str(), load.exit_code(), whole.exit_code());
    return 2;
  }
  std::printf("loading both builds only: %.1f s, peak RSS %.0f MiB\n", load.wall_s,
              load.peak_rss_mib);
  std::printf("ksnap diff --jobs 2 --format stat: %.1f s, peak RSS %.0f MiB (%.2fx loading; "
              "%.1f KiB per variant: both builds and the result)\n",
              whole.wall_s, whole.peak_rss_mib, whole.peak_rss_mib / load.peak_rss_mib,
              whole.peak_rss_mib * 1024 / variants);
  if (variants >= 100000)
    std::printf("%s\n", whole.peak_rss_mib < 1024 ? "target met: under 1 GiB"
                                                   : "TARGET MISSED: 1 GiB or more");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  size_t variants = argc > 1 ? std::stoul(argv[1]) : 10000;
  std::string corpus = argc > 2 ? argv[2] : KSNAP_CORPUS_DIR;
  std::string work = argc > 3 ? argv[3] : "/tmp/ksnap_bench_10k";
  const std::string mode = argc > 4 ? argv[4] : "";
  const std::string base_sha(40, 'b');
  if (mode == "store-only") {
    auto st = store::Store::open(work + "/history.db", true);
    if (!st) {
      std::fprintf(stderr, "%s\n", st.status().to_string().c_str());
      return 2;
    }
    for (int run = 0; run < 3; ++run)
      if (store_diff(*st, base_sha, work + "/head", 2) < 0) return 2;
    return 0;
  }
  if (mode == "memory") {
    std::ifstream marker(work + "/variants");
    size_t made = 0;
    if (marker >> made && made == variants) {
      std::printf("pair: %zu variants per build, made before (%s)\n", variants, work.c_str());
      return memory_check(work, variants);
    }
  }
  fs::remove_all(work);
  uint64_t bb = make_build(corpus, work + "/base", variants, Side::kBase);
  uint64_t hb = make_build(corpus, work + "/head", variants, Side::kHead);
  std::ofstream(work + "/variants") << variants << "\n";
  std::printf("pair: %zu variants per build, %.2f GB + %.2f GB of IR and binaries (%s)\n", variants,
              bb / 1e9, hb / 1e9, work.c_str());
  if (mode == "make-only") return 0;
  if (mode == "memory") return memory_check(work, variants);
  // Warm the page cache so every tool below reads from memory.
  seconds_of("find " + work + " -type f -exec cat {} + > /dev/null");
  double t_jobs[3] = {0, 0, 0};
  for (unsigned jobs : {1u, 2u}) {
    diff::DiffOptions o;
    o.jobs = jobs;
    double c0 = cpu_seconds();
    auto t0 = std::chrono::steady_clock::now();
    auto r = diff::diff_paths(work + "/base", work + "/head", o);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double cpu = cpu_seconds() - c0;
    if (!r) {
      std::fprintf(stderr, "%s\n", r.status().to_string().c_str());
      return 2;
    }
    t_jobs[jobs] = s;
    size_t stages = 0;
    for (const auto& v : r->variants) stages += v.stages.size();
    std::printf(
        "ksnap diff --jobs %u: %.2f s, CPU %.2f s (%zu variants, %zu kernel-stages, %zu "
        "changed, %zu groups)\n",
        jobs, s, cpu, r->variants.size(), stages, r->changed_stage_count(), r->groups.size());
  }
  // BASE recorded in a history store; then `ksnap diff <commit> head`.
  auto st = store::Store::open(work + "/history.db", true);
  if (!st || !record_timed(*st, work + "/base", base_sha, {}, "BASE into a history store"))
    return 2;
  double t_store[3] = {0, 0, 0};
  for (unsigned jobs : {1u, 2u}) {
    t_store[jobs] = store_diff(*st, base_sha, work + "/head", jobs);
    if (t_store[jobs] < 0) return 2;
    std::printf("  %.2fx the folder pair's time\n", t_store[jobs] / t_jobs[jobs]);
  }
  // A later main commit recorded NOISE_ONLY: HEAD's noise files are texts
  // the store has read, so `ksnap diff <BASE's commit> head` looks them up
  // (Build::known_texts) instead of normalizing them.
  make_build(corpus, work + "/noise_only", variants, Side::kNoiseOnly);
  if (!record_timed(*st, work + "/noise_only", std::string(40, 'c'), {base_sha},
                    "NOISE_ONLY as a later commit"))
    return 2;
  for (unsigned jobs : {1u, 2u}) {
    double d = store_diff(*st, base_sha, work + "/head", jobs);
    if (d < 0) return 2;
    std::printf("  HEAD's texts seen: %.2fx the folder pair's, %.2fx the store run above\n",
                d / t_jobs[jobs], d / t_store[jobs]);
  }
  double t_diff = seconds_of("diff -r " + work + "/base " + work + "/head > /dev/null 2>&1");
  double t_git =
      seconds_of("git diff --no-index --stat " + work + "/base " + work + "/head > /dev/null 2>&1");
  std::printf("diff -r: %.2f s; git diff --no-index --stat: %.2f s\n", t_diff, t_git);
  std::printf(
      "ratio ksnap(2 jobs) / diff -r = %.2f, / git diff --stat = %.2f; speedup 1->2 jobs %.2fx\n",
      t_jobs[2] / t_diff, t_jobs[2] / t_git, t_jobs[1] / t_jobs[2]);
  // Issue 20's target for the folder pair on 2 cores.
  std::printf("%s\n", t_jobs[2] <= 3.0 ? "target met: <= 3 s on 2 cores"
                                       : "TARGET MISSED: > 3 s on 2 cores");
  return 0;
}

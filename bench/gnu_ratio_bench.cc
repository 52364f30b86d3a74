// ksnap diff against GNU diff on the same text: a noisy pair of folders of IR
// files (issue 20's "≤ 0.25× GNU diff's time on the 94 MB noisy pair").
//
// The pair: replicas of the shared corpus's 19 variants as flat folders of
// IR files with equal names on both sides, so that GNU `diff -r` and
// `ksnap diff` compare exactly the same files. BASE holds the `base` build's
// TTIR, TTGIR, LLVM IR and PTX; HEAD the `noise` build's (every file differs
// byte-wise, cosmetically: other source paths and line numbers, renamed
// values, renumbered aliases and metadata). Replicas are added until both
// sides hold --mb megabytes together (hard links to the corpus files).
//
// Then, best of --runs, one after the other in the same run: `cat` of every
// file (the reading floor), `diff -r BASE HEAD`, and `ksnap diff --jobs J
// --exit-code --format stat BASE HEAD` (the CLI, as a user runs it). Prints
// each tool's times, the ratios, GNU diff's output lines and whether ksnap
// reported any stage changed (it must not: exit status 0).
//
// Usage: gnu_ratio_bench [--mb 94] [--runs 3] [--jobs 2] [--ksnap PATH]
//                        [--corpus DIR] [--work /tmp/ksnap_bench_gnu_ratio]
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kStages[] = {"ttir", "ttgir", "llir", "ptx"};

/// A variant's identity in a corpus manifest: kernel, constexprs, options.
std::string identity(const json& e) {
  return e.at("kernel").get<std::string>() + "|" + e.value("constexprs", json::object()).dump() +
         "|" + e.value("options", json::object()).dump();
}

/// kernel + cache folder of every variant of `build`, by identity.
std::map<std::string, std::pair<std::string, std::string>> variants_of(const std::string& build) {
  std::ifstream f(build + "/manifest.json");
  json m = json::parse(f);
  std::map<std::string, std::pair<std::string, std::string>> out;
  for (const json& e : m.at("entries"))
    out[identity(e)] = {e.at("kernel").get<std::string>(), e.at("cache_dir").get<std::string>()};
  return out;
}

void link_or_copy(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::create_hard_link(from, to, ec);
  if (ec) fs::copy_file(from, to, fs::copy_options::overwrite_existing);
}

/// Makes WORK/base and WORK/head; returns bytes (both sides) and files per side.
std::pair<uint64_t, size_t> make_pair(const std::string& corpus, const std::string& work,
                                      uint64_t target_bytes) {
  auto base = variants_of(corpus + "/base");
  auto noise = variants_of(corpus + "/noise");
  fs::create_directories(work + "/base");
  fs::create_directories(work + "/head");
  uint64_t bytes = 0;
  size_t files = 0;
  for (size_t r = 0; bytes < target_bytes; ++r) {
    const size_t files_before = files;
    size_t i = 0;
    for (const auto& [id, b] : base) {
      auto h = noise.find(id);
      ++i;
      if (h == noise.end()) continue;
      for (const char* stage : kStages) {
        fs::path fb = corpus + "/base/cache/" + b.second + "/" + b.first + "." + stage;
        fs::path fh = corpus + "/noise/cache/" + h->second.second + "/" + h->second.first + "." +
                      stage;
        if (!fs::exists(fb) || !fs::exists(fh)) continue;
        char prefix[48];
        std::snprintf(prefix, sizeof prefix, "r%zu_v%zu_", r, i);
        std::string name = prefix;
        name.append(b.first).append(".").append(stage);
        link_or_copy(fb, work + "/base/" + name);
        link_or_copy(fh, work + "/head/" + name);
        bytes += fs::file_size(fb) + fs::file_size(fh);
        ++files;
      }
    }
    if (files == files_before) break;  // no pair of files in the corpus: never loop forever
  }
  return {bytes, files};
}

struct Timed {
  double seconds = 0;
  int status = 0;
};

/// Runs `cmd` through the shell; wall seconds and exit status.
Timed timed(const std::string& cmd) {
  auto t0 = std::chrono::steady_clock::now();
  int rc = std::system(cmd.c_str());
  Timed t;
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  t.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  return t;
}

std::string runs_text(const std::vector<double>& v) {
  std::string s;
  for (double x : v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s%.3f", s.empty() ? "" : ", ", x);
    s += buf;
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  double mb = 94;
  int runs = 3;
  int jobs = 2;
#ifdef KSNAP_CLI_PATH
  std::string ksnap = KSNAP_CLI_PATH;
#else
  std::string ksnap = "ksnap";
#endif
  std::string corpus = KSNAP_CORPUS_DIR;
  std::string work = "/tmp/ksnap_bench_gnu_ratio";
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--mb") mb = std::stod(v);
    else if (k == "--runs") runs = std::max(1, std::stoi(v));
    else if (k == "--jobs") jobs = std::max(1, std::stoi(v));
    else if (k == "--ksnap") ksnap = v;
    else if (k == "--corpus") corpus = v;
    else if (k == "--work") work = v;
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  if (!fs::exists(corpus + "/base/manifest.json") || !fs::exists(corpus + "/noise/manifest.json")) {
    std::fprintf(stderr, "no corpus at %s (base/ and noise/ captures)\n", corpus.c_str());
    return 2;
  }
  fs::remove_all(work);
  auto [bytes, files] = make_pair(corpus, work, static_cast<uint64_t>(mb * 1e6));
  if (files == 0) {
    std::fprintf(stderr, "no base/noise pair of IR files in %s\n", corpus.c_str());
    return 2;
  }
  std::printf("pair: %zu IR files per side, %.1f MB in all (%s)\n", files, bytes / 1e6,
              work.c_str());
  const std::string b = work + "/base", h = work + "/head";
  timed("cat " + b + "/* " + h + "/* > /dev/null");  // warm the page cache
  timed("diff -r " + b + " " + h + " | wc -l > " + work + "/gnu_lines.txt");
  std::ifstream gl(work + "/gnu_lines.txt");
  long gnu_lines = 0;
  gl >> gnu_lines;

  std::vector<double> t_cat, t_gnu, t_ksnap;
  int ksnap_status = 0;
  const std::string ks = ksnap + " diff --no-pager --color never --exit-code --format stat --jobs " +
                         std::to_string(jobs) + " " + b + " " + h + " > " + work +
                         "/ksnap_out.txt";
  for (int r = 0; r < runs; ++r) {
    t_cat.push_back(timed("cat " + b + "/* " + h + "/* > /dev/null").seconds);
    t_gnu.push_back(timed("diff -r " + b + " " + h + " > /dev/null").seconds);
    Timed k = timed(ks);
    t_ksnap.push_back(k.seconds);
    ksnap_status = std::max(ksnap_status, k.status);
  }
  double cat = *std::min_element(t_cat.begin(), t_cat.end());
  double gnu = *std::min_element(t_gnu.begin(), t_gnu.end());
  double ksn = *std::min_element(t_ksnap.begin(), t_ksnap.end());
  std::printf("cat:                 best %.3f s  (%s)\n", cat, runs_text(t_cat).c_str());
  std::printf("GNU diff -r:         best %.3f s  (%s), %ld output lines\n", gnu,
              runs_text(t_gnu).c_str(), gnu_lines);
  std::printf("ksnap diff --jobs %d: best %.3f s  (%s), exit status %d (%s)\n", jobs, ksn,
              runs_text(t_ksnap).c_str(), ksnap_status,
              ksnap_status == 0   ? "no stage reported changed"
              : ksnap_status == 1 ? "STAGES REPORTED CHANGED"
                                  : "FAILED");
  std::printf("ratio ksnap / GNU diff = %.2f (target <= 0.25); ksnap / cat = %.1f\n", ksn / gnu,
              ksn / cat);
  return ksnap_status == 0 ? 0 : 1;
}

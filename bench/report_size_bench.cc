// Report size and time for a large pass change (issue: a real pass change
// touching 155 variants x 3 stages gave a 348 MB JSON and a 12.8 MB terminal
// report because hunks were repeated per variant).
//
// The bench makes such a change from real IR: it writes two capture folders
// whose variants are the shared corpus's variants that `no_licm` changes in
// three stages (TTGIR, LLIR, PTX: softmax, layer norm, matmul), replicated
// into N variants. Copy c of a corpus variant belongs to kernel `<K>_c<c>`
// (the function renamed inside every stage file), so the suite has many
// kernels, each with its real configurations. BASE takes the `base` build's
// files, HEAD the `no_licm` build's: every variant has one real change in
// each of the three stages. Then it runs the real engine once and times each
// format on the result, printing bytes and milliseconds.
//
//   ./build/bench/report_size_bench                      # 155 variants, 3 runs
//   ./build/bench/report_size_bench --variants 1550 --runs 1
//   ./build/bench/report_size_bench --keep /tmp/size     # keep the captures
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <set>
#include <unistd.h>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ksnap/diff/engine.h"
#include "ksnap/render/render.h"
#include "ksnap/support/file.h"

namespace {

using namespace ksnap;
namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kStages[] = {"ttir", "ttgir", "llir", "ptx"};

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  if (from == to) return s;
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

Expected<json> read_manifest(const std::string& dir) {
  KSNAP_ASSIGN_OR_RETURN(TextBuffer t, read_text_file(dir + "/manifest.json"));
  json j = json::parse(t.view(), nullptr, false);
  if (j.is_discarded() || !j.contains("entries"))
    return make_error(ErrorCode::kParseError, "not a manifest", {dir + "/manifest.json", 0, 0});
  return j;
}

/// Writes BASE and HEAD captures of `n` variants under `out`. Returns the
/// number of corpus variants used as sources.
Expected<size_t> make_captures(const std::string& corpus, const std::string& out, size_t n) {
  KSNAP_ASSIGN_OR_RETURN(json mb, read_manifest(corpus + "/base"));
  KSNAP_ASSIGN_OR_RETURN(json mh, read_manifest(corpus + "/no_licm"));
  // Sources: variants whose ttgir, llir and ptx all differ between the builds.
  struct Source {
    json base, head;
  };
  std::vector<Source> sources;
  for (const json& eb : mb["entries"]) {
    for (const json& eh : mh["entries"]) {
      if (eh["kernel"] != eb["kernel"] || eh["constexprs"] != eb["constexprs"] ||
          eh["options"] != eb["options"])
        continue;
      std::string k = eb["kernel"];
      bool all = true;
      for (const char* st : {"ttgir", "llir", "ptx"}) {
        auto a = read_text_file(corpus + "/base/cache/" + eb["cache_dir"].get<std::string>() + "/" + k + "." + st);
        auto b = read_text_file(corpus + "/no_licm/cache/" + eh["cache_dir"].get<std::string>() + "/" + k + "." + st);
        if (!a || !b || a->view() == b->view()) all = false;
      }
      if (all) sources.push_back({eb, eh});
    }
  }
  if (sources.empty())
    return make_error(ErrorCode::kNotFound, "no variant changes in 3 stages", {corpus, 0, 0});
  for (const char* side : {"base", "head"}) {
    json m = side == std::string("base") ? mb : mh;
    m["build"] = side;
    m["entries"] = json::array();
    std::string build_dir = corpus + (side == std::string("base") ? "/base" : "/no_licm");
    for (size_t i = 0; i < n; ++i) {
      const Source& s = sources[i % sources.size()];
      json e = side == std::string("base") ? s.base : s.head;
      std::string kernel = e["kernel"];
      size_t copy = i / sources.size();
      std::string name = copy ? kernel + "_c" + std::to_string(copy) : kernel;
      std::string src_dir = build_dir + "/cache/" + e["cache_dir"].get<std::string>();
      std::string dir = "v" + std::to_string(i);
      fs::create_directories(out + "/" + side + "/cache/" + dir);
      e["kernel"] = name;
      e["cache_dir"] = dir;
      json stages = json::object();
      for (const char* st : kStages) {
        KSNAP_ASSIGN_OR_RETURN(TextBuffer t, read_text_file(src_dir + "/" + kernel + "." + st));
        std::string rel = "cache/" + dir + "/" + name + "." + st;
        KSNAP_RETURN_IF_ERROR(
            write_file_atomic(out + "/" + side + "/" + rel, replace_all(std::string(t.view()), kernel, name)));
        stages[st] = rel;
      }
      e["stages"] = stages;
      e.erase("key");
      m["entries"].push_back(e);
    }
    KSNAP_RETURN_IF_ERROR(write_file_atomic(out + "/" + side + "/manifest.json", m.dump(1)));
  }
  return sources.size();
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// Median of `runs` timings of fn; *bytes = size of its output.
double time_median(int runs, const std::function<std::string()>& fn, size_t* bytes) {
  std::vector<double> ms;
  for (int k = 0; k < runs; ++k) {
    auto t = std::chrono::steady_clock::now();
    std::string s = fn();
    ms.push_back(ms_since(t));
    *bytes = s.size();
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::string corpus = KSNAP_CORPUS_DIR, keep;
  size_t variants = 155;
  int runs = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--corpus") corpus = argv[i + 1];
    else if (a == "--variants") variants = std::strtoul(argv[i + 1], nullptr, 10);
    else if (a == "--runs") runs = std::max(1, std::atoi(argv[i + 1]));
    else if (a == "--keep") keep = argv[i + 1];
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (!fs::exists(corpus + "/base/manifest.json")) {
    std::printf("skipped: no corpus at %s\n", corpus.c_str());
    return 0;
  }
  std::string dir = keep.empty() ? (fs::temp_directory_path() /
                                    ("ksnap_report_size_" + std::to_string(::getpid())))
                                       .string()
                                 : keep;
  fs::remove_all(dir);
  auto nsrc = make_captures(corpus, dir, variants);
  if (!nsrc) {
    std::fprintf(stderr, "%s\n", nsrc.status().to_string().c_str());
    return 2;
  }
  auto t0 = std::chrono::steady_clock::now();
  auto r = diff::diff_paths(dir + "/base", dir + "/head");
  double diff_ms = ms_since(t0);
  if (!r) {
    std::fprintf(stderr, "%s\n", r.status().to_string().c_str());
    return 2;
  }
  std::set<std::string> kernels;
  for (const auto& v : r->variants) kernels.insert(v.key.kernel);
  std::printf("%zu variants of %zu kernels (from %zu corpus variants), %zu changed kernel-stages, "
              "%zu distinct changes; diff %.0f ms\n",
              r->variants.size(), kernels.size(), *nsrc, r->changed_stage_count(),
              r->groups.size(), diff_ms);
  std::printf("%-10s %12s %10s\n", "format", "bytes", "ms");
  struct Fmt {
    const char* name;
    std::function<std::string()> fn;
  } fmts[] = {
      {"json", [&] { return render::render(render::Format::kJson, *r); }},
      {"terminal", [&] { return render::render(render::Format::kTerminal, *r); }},
      {"markdown", [&] { return render::render(render::Format::kMarkdown, *r); }},
      {"html", [&] { return render::render(render::Format::kHtml, *r); }},
      {"stat", [&] { return render::render(render::Format::kStat, *r); }},
  };
  for (const auto& f : fmts) {
    size_t bytes = 0;
    double ms = time_median(runs, f.fn, &bytes);
    std::printf("%-10s %12zu %10.1f\n", f.name, bytes, ms);
  }
  if (keep.empty()) fs::remove_all(dir);
  return 0;
}

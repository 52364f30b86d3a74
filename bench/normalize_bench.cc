// Normalizer throughput on the real Triton corpus (base build): MB/s of
// normalized_hash() (the fast path) and of the full normalize() per stage,
// plus the lexer alone. Single-threaded: the figures are per core. The
// `MB` counter is a decimal rate (10^6 bytes/s); Google Benchmark's own
// bytes_per_second column is MiB/s.
//
//   ./build/bench/normalize_bench --benchmark_min_time=1
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdio>
#include <dirent.h>
#include <string>
#include <vector>

#include "ksnap/ir/lexer.h"
#include "ksnap/normalize/normalize.h"
#include "ksnap/support/file.h"

namespace {

using namespace ksnap;

struct StageFiles {
  std::vector<TextBuffer> files;
  int64_t bytes = 0;
};

/// Every `<stage>` file under the corpus's base build (empty when absent).
StageFiles load_stage(const std::string& stage) {
  StageFiles out;
  std::string root = std::string(KSNAP_CORPUS_DIR) + "/base/cache";
  DIR* d = opendir(root.c_str());
  if (!d) return out;
  std::vector<std::string> dirs;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] != '.') dirs.push_back(root + "/" + e->d_name);
  }
  closedir(d);
  for (const std::string& dir : dirs) {
    DIR* sub = opendir(dir.c_str());
    if (!sub) continue;
    while (dirent* e = readdir(sub)) {
      std::string name = e->d_name;
      if (name.size() > stage.size() + 1 &&
          name.compare(name.size() - stage.size() - 1, std::string::npos, "." + stage) == 0) {
        auto buf = read_text_file(dir + "/" + name);
        if (buf) {
          out.bytes += static_cast<int64_t>(buf->size());
          out.files.push_back(std::move(*buf));
        }
      }
    }
    closedir(sub);
  }
  return out;
}

const StageFiles& stage_files(const std::string& stage) {
  static std::vector<std::pair<std::string, StageFiles>> cache;
  for (auto& [s, f] : cache) {
    if (s == stage) return f;
  }
  cache.emplace_back(stage, load_stage(stage));
  return cache.back().second;
}

/// Bytes per iteration as a decimal MB rate ("MB=384/s"), plus Google Benchmark's MiB/s.
void set_rate(benchmark::State& state, int64_t bytes) {
  state.SetBytesProcessed(state.iterations() * bytes);
  state.counters["MB"] = benchmark::Counter(static_cast<double>(bytes) / 1e6,
                                              benchmark::Counter::kIsIterationInvariantRate);
}

ir::Dialect dialect_of(const std::string& stage) {
  ir::Dialect d = ir::Dialect::kMlir;
  ir::dialect_for_stage(stage, &d);
  return d;
}

/// Runs `per_file` on every file of `stage` per iteration and reports MB/s.
template <typename PerFile>
void run_stage(benchmark::State& state, const std::string& stage, PerFile per_file) {
  const StageFiles& f = stage_files(stage);
  if (f.files.empty()) {
    state.SkipWithError("corpus not found");
    return;
  }
  ir::Dialect d = dialect_of(stage);
  for (auto _ : state) {
    for (const TextBuffer& b : f.files) per_file(b, d);
  }
  set_rate(state, f.bytes);
  state.counters["files"] = static_cast<double>(f.files.size());
}

void BM_NormalizedHash(benchmark::State& state, std::string stage) {
  run_stage(state, stage, [](const TextBuffer& b, ir::Dialect d) {
    auto h = norm::normalized_hash(b, d);
    benchmark::DoNotOptimize(h);
  });
}

void BM_Normalize(benchmark::State& state, std::string stage) {
  run_stage(state, stage, [](const TextBuffer& b, ir::Dialect d) {
    auto m = norm::normalize(b, d);
    benchmark::DoNotOptimize(m);
  });
}

void BM_Lex(benchmark::State& state, std::string stage) {
  run_stage(state, stage, [](const TextBuffer& b, ir::Dialect d) {
    ir::Lexer lx(b.c_str(), b.size(), d);
    int64_t tokens = 0;
    while (lx.next().kind != ir::TokenKind::kEof) ++tokens;
    benchmark::DoNotOptimize(tokens);
  });
}

BENCHMARK_CAPTURE(BM_NormalizedHash, llir, std::string("llir"));
BENCHMARK_CAPTURE(BM_NormalizedHash, ttgir, std::string("ttgir"));
BENCHMARK_CAPTURE(BM_NormalizedHash, ttir, std::string("ttir"));
BENCHMARK_CAPTURE(BM_NormalizedHash, ptx, std::string("ptx"));
BENCHMARK_CAPTURE(BM_Normalize, llir, std::string("llir"));
BENCHMARK_CAPTURE(BM_Normalize, ttgir, std::string("ttgir"));
BENCHMARK_CAPTURE(BM_Normalize, ttir, std::string("ttir"));
BENCHMARK_CAPTURE(BM_Normalize, ptx, std::string("ptx"));
BENCHMARK_CAPTURE(BM_Lex, llir, std::string("llir"));
BENCHMARK_CAPTURE(BM_Lex, ttgir, std::string("ttgir"));

}  // namespace

BENCHMARK_MAIN();

// Benchmark-results reader throughput: per-sample files of N points (20
// samples each, two parameters) as JSON lines, as one {"results": [...]}
// document, and as CSV, read by parse_bench_results. Every point is located
// (file:line for later messages), so a reader that locates each point by
// rescanning the text grows with N²: this bench shows points/s staying flat
// from 1,000 to 20,000 points.
//
//   ./build/bench/results_reader_bench --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include <cstdio>
#include <random>
#include <string>

#include "ksnap/perf/results_reader.h"
#include "ksnap/support/file.h"

namespace {

using namespace ksnap;

enum Shape { kJsonLines = 0, kResultsArray = 1, kCsv = 2 };

/// The text of n points in `shape`; deterministic.
std::string make_file(Shape shape, int n) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> us(10, 11);
  std::string out = shape == kCsv            ? "name,M,N,samples\n"
                    : shape == kResultsArray ? "{\"results\": [\n"
                                             : "";
  char num[32];
  for (int i = 0; i < n; ++i) {
    std::string samples;
    for (int k = 0; k < 20; ++k) {
      std::snprintf(num, sizeof(num), "%.3f", us(rng));
      if (k) samples += shape == kCsv ? " " : ", ";
      samples += num;
    }
    const std::string m = std::to_string(i);
    if (shape == kCsv) {
      out += "mm," + m + ",512," + samples + "\n";
    } else {
      if (shape == kResultsArray && i) out += ",\n";
      out += "{\"name\": \"mm\", \"M\": " + m + ", \"N\": 512, \"samples\": [" + samples + "]}";
      if (shape == kJsonLines) out += "\n";
    }
  }
  if (shape == kResultsArray) out += "\n]}\n";
  return out;
}

void BM_ReadResults(benchmark::State& state) {
  const auto shape = static_cast<Shape>(state.range(0));
  const int n = static_cast<int>(state.range(1));
  const TextBuffer buf(shape == kCsv ? "r.csv" : "r.json", make_file(shape, n));
  perf::ReadResultsOptions opts;
  opts.format = shape == kCsv ? perf::ResultsFormat::kSampleCsv : perf::ResultsFormat::kSampleJson;
  for (auto _ : state) {
    auto r = perf::parse_bench_results(buf, opts);
    if (!r || r->points.size() != static_cast<size_t>(n)) {
      state.SkipWithError(r ? "wrong point count" : r.status().to_string().c_str());
      return;
    }
    benchmark::DoNotOptimize(r->points.data());
  }
  state.SetLabel(shape == kJsonLines      ? "json-lines"
                 : shape == kResultsArray ? "results-array"
                                          : "csv");
  state.counters["points/s"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["MB"] = benchmark::Counter(static_cast<double>(buf.view().size()) / 1e6,
                                            benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK(BM_ReadResults)
    ->ArgsProduct({{kJsonLines, kResultsArray, kCsv}, {1000, 20000}})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

// libFuzzer target for benchmark result files (perf/results_reader.h): the
// first byte picks the format (auto, perf_report CSV, per-sample CSV,
// per-sample JSON / JSON lines), the rest is the file. Checks: no crash;
// errors are located in the file; on success every point's label is unique
// and indexed, and its label parses back to the same point.
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "ksnap/perf/results_reader.h"

using ksnap::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ksnap::perf;
  if (size == 0) return 0;
  ReadResultsOptions o;
  o.format = static_cast<ResultsFormat>(data[0] % 4);
  ksnap::TextBuffer buf("bench.csv",
                        std::string(reinterpret_cast<const char*>(data + 1), size - 1));
  auto r = parse_bench_results(buf, o);
  if (!r) {
    check(r.status().code() != ksnap::ErrorCode::kInternal);
    check(!r.status().message().empty());
    return 0;
  }
  check(r->by_label.size() == r->points.size());
  for (size_t i = 0; i < r->points.size(); ++i) {
    const BenchPoint& p = r->points[i];
    std::string label = format_point_label(p.id);
    auto it = r->by_label.find(label);
    check(it != r->by_label.end() && it->second == i);
    auto back = parse_point_label(label);
    check(back.has_value() && format_point_label(back->first, back->second) == label);
  }
  return 0;
}

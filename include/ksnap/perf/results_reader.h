// ksnap perf: read benchmark result files of any supported format.
//
// Worked example:
//
//   read_bench_results({"run1/matmul-performance.csv", "run2/matmul-performance.csv"})
//   -> both files are Triton perf_report CSVs (no `name`/`samples` header), so
//      every point gets one value per run: samples {run1 value, run2 value}.
//
// Detection (ResultsFormat::kAuto): first non-blank byte '{' or '[' -> the
// per-sample JSON format; else a CSV whose header has `name` and `samples`
// or `mean` -> the per-sample CSV format; else a perf_report CSV.
#pragma once

#include <string>
#include <vector>

#include "ksnap/perf/bench_results.h"
#include "ksnap/support/file.h"

namespace ksnap::perf {

enum class ResultsFormat : uint8_t { kAuto, kPerfReportCsv, kSampleCsv, kSampleJson };

/// "auto", "perf_report", "samples-csv", "samples-json".
const char* results_format_name(ResultsFormat f);

struct ReadResultsOptions {
  ResultsFormat format = ResultsFormat::kAuto;
  /// Benchmark script that produced the files, stamped on points that do
  /// not name one (used by attribution; "" unknown).
  std::string script;
  /// perf_report only: benchmark name ("" = file stem), x column count
  /// (-1 = detect), unit of the values.
  std::string perf_report_name;
  int perf_report_x_columns = -1;
  std::string perf_report_unit;
};

/// The format `kAuto` resolves to for `buf`.
ResultsFormat detect_results_format(const TextBuffer& buf);

/// Parses `buf` in `opts.format` (detected when kAuto).
Expected<BenchResults> parse_bench_results(const TextBuffer& buf,
                                           const ReadResultsOptions& opts = {});

/// Reads and merges several files of one side (repeated runs merge into more
/// samples per point). Errors carry the offending file (and line).
Expected<BenchResults> read_bench_results(const std::vector<std::string>& paths,
                                          const ReadResultsOptions& opts = {});

}  // namespace ksnap::perf

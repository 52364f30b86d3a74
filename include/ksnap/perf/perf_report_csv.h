// ksnap perf: reader for the CSV that triton.testing.perf_report writes
// (`Mark.run(save_path=...)` -> `<plot_name>.csv`).
//
// Worked example — `matmul-performance-fp16.csv` as Triton 3.6 wrote it on an
// H200 (tests/perf/data/):
//
//   M,N,K,cuBLAS (TFLOPS),Triton (TFLOPS)
//   256.000000,256.000000,256.000000,5.548021,5.761406
//   512.000000,512.000000,512.000000,38.657181,36.631476
//
//   -> matmul-performance-fp16[K=256,M=256,N=256,line=cuBLAS]  samples {5.548021}  unit TFLOPS
//      matmul-performance-fp16[K=256,M=256,N=256,line=Triton]  samples {5.761406}  unit TFLOPS
//      ... (one point per row and line column)
//
// Layout (Triton 3.6 `Mark._run`): the x_names columns, then one column per
// line_names entry headed "<line name> (<ylabel>)" (Triton 2.x: "<line
// name>"), every value — x values included — formatted with
// `%.<save_precision>f` (6 by default; Triton 2.x wrote `%.1f`), missing
// values empty, no index column; a `Diff` column when `diff_col=True`
// (ignored here). Upstream drops the "<line>-min (<ylabel>)" and
// "<line>-max (<ylabel>)" columns before saving, even when the benchmark
// returns (value, min, max); forks and hand-made files keep them, and they
// are attached to their line as a single-run spread. The ylabel becomes the
// points' unit (so "TFLOPS" or "GB/s" marks higher-is-better).
//
// The header does not say which columns are x_names. Unless `x_columns` is
// given, the x columns are the leading columns whose every value is
// integral ("512.000000" counts) or non-numeric text (dtypes, flags); the
// first column with a fractional value starts the lines. When every column
// is integral, only the first column is taken as x. Rows that repeat the
// same x values are repeated runs: their values become more samples of the
// same points, as do the same points read from several files.
#pragma once

#include <string>

#include "ksnap/perf/bench_results.h"
#include "ksnap/support/file.h"

namespace ksnap::perf {

struct PerfReportOptions {
  /// Benchmark name for every point; "" = the file stem (Triton names the
  /// file after the plot_name).
  std::string name;
  /// Number of leading x_names columns; -1 = detect (see above).
  int x_columns = -1;
  /// Stamped on every point as the script that produced the file ("" unknown).
  std::string script;
  /// Unit of the values ("ms", "GB/s", "TFLOPS"); the CSV does not say.
  std::string unit;
};

/// Parses one perf_report CSV. Errors (kParseError with file:line[:col]):
/// empty file, empty or duplicate header names, a row whose field count
/// differs from the header, a non-numeric or non-finite line value, no line
/// column left after the x columns.
Expected<BenchResults> parse_perf_report_csv(const TextBuffer& buf,
                                             const PerfReportOptions& opts = {});

}  // namespace ksnap::perf

// ksnap perf: reader for the CSV that triton.testing.perf_report writes
// (`Mark.run(save_path=...)` -> `<plot_name>.csv`).
//
// Worked example — `matmul-performance-fp16.csv`:
//
//   M,N,K,cuBLAS,Triton
//   256,256,256,4.096000,4.250000
//   512,512,512,26.214400,23.831273
//
//   -> points  matmul-performance-fp16[K=256,M=256,N=256,line=cuBLAS]  samples {4.096}
//              matmul-performance-fp16[K=256,M=256,N=256,line=Triton]  samples {4.25}
//              ... (one per row and line column)
//
// Layout (Triton 3.x `Mark._run`): the x_names columns, then one column per
// line_names entry, values formatted with `%.<save_precision>f` (6 by default;
// Triton 2.x wrote `%.1f`), missing values empty, no index column; a `Diff`
// column when `diff_col=True` (ignored here). Upstream drops the `-min`/`-max`
// columns before saving, but forks and hand-made files keep them; `<line>-min`
// and `<line>-max` are attached to their line as a single-run spread.
//
// The header does not say which columns are x_names. Unless `x_columns` is
// given, the x columns are the leading columns whose every value is an
// integer or non-numeric text (sizes, dtypes, flags); the first column with a
// fractional value starts the lines. When every column is integral, only the
// first column is taken as x. Rows that repeat the same x values are repeated
// runs: their values become more samples of the same points.
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

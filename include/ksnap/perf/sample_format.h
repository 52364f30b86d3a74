// ksnap perf: reader for ksnap's simple per-sample benchmark format, as CSV
// or JSON (one document, or JSON lines). Full description with examples:
// docs/bench-results-format.md.
//
// Worked example — the same two points three ways:
//
//   name,params,samples,unit
//   matmul,M=512;N=512;K=512,31.10 30.88 30.94,us
//   softmax,N=4096,,us            <- error: needs samples or mean,std,n
//
//   name,params,mean,std,n,unit
//   matmul,M=512;N=512;K=512,30.97,0.11,3,us
//
//   {"name": "matmul", "params": {"M": 512, "N": 512, "K": 512},
//    "samples": [31.10, 30.88, 30.94], "unit": "us"}
//
// Columns / members: `name` (required), `params` ("k=v;k=v", or a JSON
// object of scalars), `samples` (space/semicolon separated, or a JSON array)
// or all of `mean`, `std`, `n`; optional `script`, `kernel`, `unit`. Any other
// column (or scalar member) is one more parameter, so `name,M,N,K,samples`
// works. When a row has both samples and mean/std/n, the samples are used.
// CSV lines starting with '#' are comments. Repeated labels merge (samples
// appended, summaries pooled).
#pragma once

#include <string>

#include "ksnap/perf/bench_results.h"
#include "ksnap/support/file.h"

namespace ksnap::perf {

struct SampleFormatOptions {
  /// Script stamped on points that do not name one ("" unknown).
  std::string script;
};

/// Errors (kParseError with file:line): missing `name` column, no samples
/// and no mean/std/n, a bad sample, negative std, n not a positive integer,
/// a malformed params string, a field-count mismatch.
Expected<BenchResults> parse_sample_csv(const TextBuffer& buf,
                                        const SampleFormatOptions& opts = {});

/// Accepts one JSON array of point objects, an object {"results": [...]}, a
/// single point object, or JSON lines (one point object per line). Same
/// errors as parse_sample_csv, plus JSON syntax errors with file:line:col.
Expected<BenchResults> parse_sample_json(const TextBuffer& buf,
                                         const SampleFormatOptions& opts = {});

}  // namespace ksnap::perf

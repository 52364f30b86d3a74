// ksnap perf: the in-memory model of one side's benchmark results.
//
// Worked example — the point "matmul-performance-fp16, M=N=K=512, line Triton"
// read from a Triton perf_report CSV (one value, no spread) and the same point
// read from the per-sample format (docs/bench-results-format.md):
//
//   BenchPoint{id = {name "matmul-performance-fp16",
//                    params {K=512, M=512, N=512, line=Triton}},
//              samples {0.0312}}                          // one value: a single run
//   BenchPoint{id = {...same...}, samples {31.1, 30.9, 31.0, ...}, unit "us"}
//
// Both give the canonical label `matmul-performance-fp16[K=512,M=512,N=512,line=Triton]`
// (format_point_label), which is also what the capture plugin records for the
// variants a benchmark point launched; see attribution.h.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ksnap/support/status.h"

namespace ksnap::perf {

/// Parameters of a benchmark point, sorted by key, values normalized
/// (normalize_param_value). Keys are unique.
using ParamList = std::vector<std::pair<std::string, std::string>>;

/// Which way is better for the measured statistic.
enum class MetricDirection : uint8_t {
  kLowerIsBetter,   ///< times: s, ms, us, ns, cycles
  kHigherIsBetter,  ///< throughput: GB/s, TFLOPS, items/s
};

/// Canonical numeric text: "512.000000" -> "512", "1e3" -> "1000", "0.50" ->
/// "0.5"; "True"/"False" -> "true"/"false"; other text is trimmed only.
std::string normalize_param_value(std::string_view value);

/// Sorts by key and normalizes values. Error (kInvalidArgument) on a
/// duplicate key.
Expected<ParamList> canonical_params(std::vector<std::pair<std::string, std::string>> raw);

/// Parses "k=v;k=v" (also accepts ',' as separator). Error on an item
/// without '=' or an empty key; the message names the item.
Expected<ParamList> parse_param_string(std::string_view text);

/// Identity of a benchmark point; what attribution matches on.
struct BenchPointId {
  std::string name;    ///< benchmark name (perf_report: the plot name = CSV file stem)
  ParamList params;    ///< canonical
  std::string script;  ///< benchmark script path that produced it; "" unknown
  std::string kernel;  ///< kernel the results file names for the point; "" unknown
};

/// `name[k=v,k=v]`, or `name` with no params. ',', '[', ']', '=' and '\'
/// inside names and values are escaped with '\'.
std::string format_point_label(const std::string& name, const ParamList& params);
inline std::string format_point_label(const BenchPointId& id) {
  return format_point_label(id.name, id.params);
}

/// Inverse of format_point_label; params are canonicalized. Errors
/// (kInvalidArgument) name the label.
Expected<std::pair<std::string, ParamList>> parse_point_label(std::string_view label);

/// Summary statistics on the linear scale (the per-sample format's mean,std,n).
struct SampleSummary {
  double mean = 0;
  double std = 0;
  uint64_t n = 0;
};

/// One benchmark point as measured on one side (base or head). Exactly one
/// of: `samples` non-empty, or `summary` set.
struct BenchPoint {
  BenchPointId id;
  std::string unit;             ///< "ms", "us", "GB/s", ...; "" unknown
  std::vector<double> samples;  ///< raw samples, or one value per run (perf_report)
  std::optional<SampleSummary> summary;
  /// perf_report `<line>-min` / `<line>-max` of a single run (Triton's
  /// tutorials fill them with do_bench's 20th/80th percentiles).
  std::optional<double> spread_lo, spread_hi;
  /// How many runs (files or repeated rows) contributed.
  uint32_t runs = 1;
  /// Sizes of the runs that make up `samples`, in order, once two or more
  /// were merged (add_point); empty = one run of all samples.
  std::vector<uint32_t> run_sizes;
  bool from_perf_report = false;
  SourceLocation where;  ///< where the point was first defined
};

/// Direction implied by `unit`: "/s" or "flops" -> higher is better; a time
/// unit -> lower is better; anything else -> `fallback`.
MetricDirection direction_for_unit(std::string_view unit, MetricDirection fallback);

/// The runs of a sample point, as consecutive slices of `samples`.
std::vector<std::span<const double>> runs_of(const BenchPoint& p);

/// All points of one side, in file order, one entry per label.
struct BenchResults {
  std::vector<std::string> sources;  ///< files read
  std::vector<BenchPoint> points;
  /// label -> index into `points`; maintained by add_point.
  std::unordered_map<std::string, size_t> by_label;

  /// The point with this canonical label, or nullptr.
  const BenchPoint* find(const std::string& label) const;
};

/// Adds `point` to `results`: a new label is appended; a repeated label is
/// merged as another run (samples appended and the run boundary kept in
/// run_sizes — for perf_report this makes one sample per run; summaries
/// pooled). Error (kInvalidArgument, at point.where) when the two
/// definitions mix samples and summaries.
Status add_point(BenchResults& results, BenchPoint point);

/// Merges several files of one side (repeated runs) into one.
Expected<BenchResults> merge_results(std::vector<BenchResults> parts);

}  // namespace ksnap::perf

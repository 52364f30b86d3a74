#include "ksnap/perf/results_reader.h"

#include "ksnap/perf/csv.h"
#include "ksnap/perf/perf_report_csv.h"
#include "ksnap/perf/sample_format.h"

namespace ksnap::perf {

const char* results_format_name(ResultsFormat f) {
  switch (f) {
    case ResultsFormat::kAuto:
      return "auto";
    case ResultsFormat::kPerfReportCsv:
      return "perf_report";
    case ResultsFormat::kSampleCsv:
      return "samples-csv";
    case ResultsFormat::kSampleJson:
      return "samples-json";
  }
  return "?";
}

ResultsFormat detect_results_format(const TextBuffer& buf) {
  std::string_view text = buf.view();
  size_t i = 0;
  while (i < text.size() &&
         (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n')) {
    ++i;
  }
  if (i < text.size() && (text[i] == '{' || text[i] == '[')) return ResultsFormat::kSampleJson;
  // The header is the first non-comment line.
  while (i < text.size() && text[i] == '#') {
    size_t nl = text.find('\n', i);
    i = nl == std::string_view::npos ? text.size() : nl + 1;
  }
  size_t nl = text.find('\n', i);
  TextBuffer header_only(
      buf.name(),
      std::string(text.substr(i, nl == std::string_view::npos ? std::string_view::npos : nl - i)));
  auto rows = parse_csv(header_only);
  if (rows && !rows->empty()) {
    bool name = false, samples = false;
    for (const std::string& h : (*rows)[0].fields) {
      name = name || h == "name";
      samples = samples || h == "samples" || h == "mean";
    }
    if (name && samples) return ResultsFormat::kSampleCsv;
  }
  return ResultsFormat::kPerfReportCsv;
}

Expected<BenchResults> parse_bench_results(const TextBuffer& buf, const ReadResultsOptions& opts) {
  ResultsFormat f = opts.format == ResultsFormat::kAuto ? detect_results_format(buf) : opts.format;
  switch (f) {
    case ResultsFormat::kPerfReportCsv: {
      PerfReportOptions p;
      p.name = opts.perf_report_name;
      p.x_columns = opts.perf_report_x_columns;
      p.script = opts.script;
      p.unit = opts.perf_report_unit;
      return parse_perf_report_csv(buf, p);
    }
    case ResultsFormat::kSampleCsv:
      return parse_sample_csv(buf, SampleFormatOptions{opts.script});
    case ResultsFormat::kSampleJson:
      return parse_sample_json(buf, SampleFormatOptions{opts.script});
    case ResultsFormat::kAuto:
      break;
  }
  return make_error(ErrorCode::kInternal, "unresolved results format");
}

Expected<BenchResults> read_bench_results(const std::vector<std::string>& paths,
                                          const ReadResultsOptions& opts) {
  if (paths.empty()) return make_error(ErrorCode::kInvalidArgument, "no benchmark result files");
  std::vector<BenchResults> parts;
  for (const std::string& path : paths) {
    KSNAP_ASSIGN_OR_RETURN(TextBuffer buf, read_text_file(path));
    auto part = parse_bench_results(buf, opts);
    if (!part) return part.status().with_file(path);
    parts.push_back(std::move(*part));
  }
  return merge_results(std::move(parts));
}

}  // namespace ksnap::perf

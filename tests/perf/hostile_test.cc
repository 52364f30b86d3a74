// Benchmark result files found by fuzzing (fuzz/bench_fuzz.cc): a header
// cell of spaces became a parameter with an empty name, whose point label
// could not be read back. Now a located error; labels always round-trip.
#include <gtest/gtest.h>

#include "ksnap/perf/results_reader.h"

namespace ksnap::perf {
namespace {

TEST(PerfHostile, BlankParameterNamesAreLocatedErrors) {
  struct Case {
    const char* name;
    ResultsFormat format;
    const char* text;
    uint32_t line;
    const char* says;
  };
  const Case cases[] = {
      {"perf_report_blank_header", ResultsFormat::kPerfReportCsv, "\" \",]54,76\n86,150,.5\n", 1,
       "has no name"},
      {"sample_json_blank_param", ResultsFormat::kSampleJson,
       "{\"name\": \"mm\", \"params\": {\" \": 1}, \"samples\": [1]}", 1, "without a name"},
      {"sample_csv_blank_param", ResultsFormat::kSampleCsv, "name,params,samples\nmm, =1,2\n", 2,
       "key=value"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ReadResultsOptions o;
    o.format = c.format;
    auto r = parse_bench_results(TextBuffer("r.csv", c.text), o);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.status().location().line, c.line) << r.status().to_string();
    EXPECT_NE(r.status().message().find(c.says), std::string::npos) << r.status().to_string();
  }
}

TEST(PerfHostile, EveryLabelParsesBack) {
  const char* inputs[] = {
      "M,N,Triton (TFLOPS)\n256,256,5.5\n512,512,38.6\n",
      " M ,a=b[c],x\\y\n1,2,3\n",
      "size,Torch (GB/s),Torch-min,Torch-max\n4096,11.6,11.1,12\n",
  };
  for (const char* text : inputs) {
    SCOPED_TRACE(text);
    ReadResultsOptions o;
    o.format = ResultsFormat::kPerfReportCsv;
    auto r = parse_bench_results(TextBuffer("bench.csv", text), o);
    ASSERT_TRUE(r) << r.status().to_string();
    ASSERT_FALSE(r->points.empty());
    for (const BenchPoint& p : r->points) {
      std::string label = format_point_label(p.id);
      auto back = parse_point_label(label);
      ASSERT_TRUE(back) << label << ": " << back.status().to_string();
      EXPECT_EQ(format_point_label(back->first, back->second), label);
    }
  }
}

TEST(PerfHostile, ParameterValuesNormalizeIdempotently) {
  const char* values[] = {"1111111111111111.4",
                          "11111111111111111.4",
                          "8999999999999999",
                          "9000000000000001",
                          "0.1",
                          "-0.0",
                          "1e-320",
                          "123456789.123456789",
                          "1.5e300",
                          "  42 ",
                          "TRUE",
                          "x",
                          "1e15",
                          "999999999999999.9"};
  for (const char* v : values) {
    std::string once = normalize_param_value(v);
    EXPECT_EQ(normalize_param_value(once), once) << v << " -> " << once;
  }
  EXPECT_EQ(normalize_param_value("1111111111111111.4"), "1111111111111110");
  EXPECT_EQ(normalize_param_value("8999999999999999"), "8999999999999999");
}

}  // namespace
}  // namespace ksnap::perf

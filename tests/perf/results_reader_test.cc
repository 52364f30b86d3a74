#include "ksnap/perf/results_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

namespace ksnap::perf {
namespace {

struct DetectCase {
  const char* name;
  const char* text;
  ResultsFormat want;
};

class Detect : public ::testing::TestWithParam<DetectCase> {};

TEST_P(Detect, Format) {
  EXPECT_EQ(detect_results_format(TextBuffer("f", GetParam().text)), GetParam().want);
}

INSTANTIATE_TEST_SUITE_P(
    Table, Detect,
    ::testing::Values(
        DetectCase{"json_lines", "\n {\"name\":\"a\"}", ResultsFormat::kSampleJson},
        DetectCase{"json_array", "[]", ResultsFormat::kSampleJson},
        DetectCase{"sample_csv", "# c\nname,params,samples\n", ResultsFormat::kSampleCsv},
        DetectCase{"summary_csv", "name,mean,std,n\n", ResultsFormat::kSampleCsv},
        DetectCase{"perf_report", "M,N,K,Triton (TFLOPS)\n", ResultsFormat::kPerfReportCsv},
        DetectCase{"name_only_is_perf_report", "name,Triton\n", ResultsFormat::kPerfReportCsv}),
    [](const auto& info) { return std::string(info.param.name); });

class TempDir {
 public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("ksnap_perf_reader_" + std::to_string(::getpid()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string write(const std::string& name, const std::string& text) {
    std::string p = (path_ / name).string();
    EXPECT_TRUE(write_file_atomic(p, text));
    return p;
  }

 private:
  std::filesystem::path path_;
};

TEST(ReadResults, RepeatedPerfReportRunsBecomeSamples) {
  TempDir dir;
  std::string a = dir.write("mm.csv", "N,Triton (ms)\n1.000000,0.500000\n");
  std::string b = dir.write("run2.csv", "N,Triton (ms)\n1.000000,0.520000\n");
  ReadResultsOptions o;
  o.perf_report_name = "mm";  // second file has another stem
  o.script = "bench/mm.py";
  auto r = read_bench_results({a, b}, o);
  ASSERT_TRUE(r) << r.status().to_string();
  ASSERT_EQ(r->points.size(), 1u);
  EXPECT_EQ(r->points[0].samples, (std::vector<double>{0.5, 0.52}));
  EXPECT_EQ(r->points[0].runs, 2u);
  EXPECT_EQ(r->points[0].id.script, "bench/mm.py");
  EXPECT_EQ(r->sources.size(), 2u);
}

TEST(ReadResults, ErrorsNameTheFile) {
  TempDir dir;
  std::string bad = dir.write("bad.jsonl", "{\"name\": \"a\", \"samples\": [1]}\n{oops}\n");
  auto r = read_bench_results({bad});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().location().file, bad);
  EXPECT_EQ(r.status().location().line, 2u);
  auto missing = read_bench_results({bad + ".nope"});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  EXPECT_FALSE(read_bench_results({}));
  std::string binary = dir.write("bin.csv", std::string("N,T\n1,\0\n", 8));
  auto b = read_bench_results({binary});
  ASSERT_FALSE(b);
  EXPECT_EQ(b.status().code(), ErrorCode::kParseError);
}

TEST(ReadResults, ForcedFormat) {
  ReadResultsOptions o;
  o.format = ResultsFormat::kSampleCsv;
  auto r = parse_bench_results(TextBuffer("x.csv", "M,N\n1,2\n"), o);
  ASSERT_FALSE(r);  // no name column: the forced format is honoured, not re-detected
  EXPECT_NE(r.status().message().find("no 'name' column"), std::string::npos);
}

}  // namespace
}  // namespace ksnap::perf

#include "ksnap/perf/results_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <random>

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

namespace ksnap::perf {
namespace {

// Seeded junk: byte flips, truncations and insertions of structural
// characters into valid files of every format. Each parse must return a
// value or an error that names the file; it must never crash (run under
// -DKSNAP_SANITIZE=ON to also catch memory errors).
TEST(ReadResults, JunkNeverCrashes) {
  const std::vector<std::string> seeds = {
      "M,N,K,cuBLAS (TFLOPS),Triton (TFLOPS)\n256.000000,256.000000,256.000000,5.5,5.7\n",
      "name,params,samples,unit\nmatmul,M=512;N=512,31.1 30.9;31.0,us\n\"q,\"\"x\",,1,ms\n",
      "{\"name\": \"mm\", \"params\": {\"M\": 512}, \"samples\": [1.5, 2, 3e1]}\n"
      "{\"name\": \"sm\", \"params\": \"N=4096\", \"mean\": 9.7, \"std\": 0.4, \"n\": 800}\n",
      "{\"results\": [{\"name\": \"a\\u00e9\", \"samples\": \"1 2 3\"}]}"};
  const char kJunk[] = {',', '"', '\n', '{', '}', '[', ']', ':',
                        ';', '=', '\\', '-', 'e', '.', '#', ' '};
  std::mt19937_64 rng(12345);
  int parsed = 0, rejected = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string text = seeds[iter % seeds.size()];
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const size_t at = rng() % text.size();
      switch (rng() % 4) {
        case 0:
          text[at] = kJunk[rng() % sizeof(kJunk)];
          break;
        case 1:
          text.insert(at, 1, kJunk[rng() % sizeof(kJunk)]);
          break;
        case 2:
          text.resize(at);
          break;
        default:
          text[at] = static_cast<char>(1 + rng() % 255);
          break;
      }
    }
    for (ResultsFormat f : {ResultsFormat::kAuto, ResultsFormat::kPerfReportCsv,
                            ResultsFormat::kSampleCsv, ResultsFormat::kSampleJson}) {
      ReadResultsOptions o;
      o.format = f;
      auto r = parse_bench_results(TextBuffer("junk.txt", text), o);
      if (r) {
        ++parsed;
        for (const BenchPoint& p : r->points) EXPECT_TRUE(!p.samples.empty() || p.summary);
      } else {
        ++rejected;
        EXPECT_EQ(r.status().location().file, "junk.txt") << r.status().to_string();
      }
    }
  }
  EXPECT_GT(parsed, 0);
  EXPECT_GT(rejected, 0);
}

}  // namespace
}  // namespace ksnap::perf

#include "ksnap/perf/perf_report_csv.h"

#include <gtest/gtest.h>

#include "ksnap/perf/results_reader.h"

namespace ksnap::perf {
namespace {

std::string data_file(const char* name) {
  return std::string(KSNAP_SOURCE_DIR) + "/tests/perf/data/" + name;
}

// A file Triton 3.6 wrote on an H200 (see tests/perf/data).
TEST(PerfReport, RealTriton36MatmulFile) {
  auto buf = read_text_file(data_file("matmul-performance-fp16.csv"));
  ASSERT_TRUE(buf) << buf.status().to_string();
  auto r = parse_perf_report_csv(*buf, {});
  ASSERT_TRUE(r) << r.status().to_string();
  ASSERT_EQ(r->points.size(), 6u);  // 3 rows x 2 lines
  const BenchPoint* p = r->find("matmul-performance-fp16[K=512,M=512,N=512,line=Triton]");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->samples, (std::vector<double>{36.631476}));
  EXPECT_EQ(p->unit, "TFLOPS");
  EXPECT_TRUE(p->from_perf_report);
  EXPECT_EQ(p->where.line, 3u);
  EXPECT_EQ(direction_for_unit(p->unit, MetricDirection::kLowerIsBetter),
            MetricDirection::kHigherIsBetter);
}

TEST(PerfReport, RealTriton36SingleXColumn) {
  auto buf = read_text_file(data_file("vector-add-performance.csv"));
  ASSERT_TRUE(buf);
  auto r = parse_perf_report_csv(*buf, {});
  ASSERT_TRUE(r) << r.status().to_string();
  ASSERT_EQ(r->points.size(), 3u);
  EXPECT_NE(r->find("vector-add-performance[line=Torch,size=65536]"), nullptr);
  EXPECT_EQ(r->points[0].unit, "GB/s");
}

struct LayoutCase {
  const char* name;
  const char* text;
  int x_columns;
  std::vector<std::string> labels;  // in file order
};

class Layouts : public ::testing::TestWithParam<LayoutCase> {};

TEST_P(Layouts, Points) {
  const LayoutCase& c = GetParam();
  PerfReportOptions o;
  o.x_columns = c.x_columns;
  auto r = parse_perf_report_csv(TextBuffer("bench/b.csv", c.text), o);
  ASSERT_TRUE(r) << r.status().to_string();
  std::vector<std::string> got;
  for (const BenchPoint& p : r->points) got.push_back(format_point_label(p.id));
  EXPECT_EQ(got, c.labels);
}

INSTANTIATE_TEST_SUITE_P(
    Table, Layouts,
    ::testing::Values(
        // Triton 2.x: plain line names, %.1f values, int x values.
        LayoutCase{"triton2",
                   "N,Triton,Torch\n256,1.5,2.5\n",
                   -1,
                   {"b[N=256,line=Triton]", "b[N=256,line=Torch]"}},
        // Non-numeric x (dtype) before the numeric ones.
        LayoutCase{"text_x",
                   "dtype,N,Triton\nfp16,1024.000000,0.031000\n",
                   -1,
                   {"b[N=1024,dtype=fp16,line=Triton]"}},
        // Diff column ignored; -min/-max attached.
        LayoutCase{"diff_and_spread",
                   "N,A (ms),B (ms),B-min (ms),B-max (ms),Diff\n8.000000,1.100000,1.200000,"
                   "1.150000,1.250000,0.100000\n",
                   -1,
                   {"b[N=8,line=A]", "b[N=8,line=B]"}},
        // All-integral values: only the first column is x.
        LayoutCase{"all_integral", "size,Triton\n1024,7\n", -1, {"b[line=Triton,size=1024]"}},
        // Explicit x column count.
        LayoutCase{"explicit_x", "M,N,T\n1,2,3\n", 2, {"b[M=1,N=2,line=T]"}},
        // Missing value (pandas NaN) skipped.
        LayoutCase{"missing_value", "N,A,B\n1,0.5,\n", -1, {"b[N=1,line=A]"}}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(PerfReport, SpreadColumnsBecomeSpread) {
  auto r = parse_perf_report_csv(
      TextBuffer("b.csv", "N,B (ms),B-min (ms),B-max (ms)\n8.000000,1.2,1.25,1.15\n"), {});
  ASSERT_TRUE(r);
  ASSERT_EQ(r->points.size(), 1u);
  ASSERT_TRUE(r->points[0].spread_lo);
  EXPECT_DOUBLE_EQ(*r->points[0].spread_lo, 1.15);  // ordered, whatever the column says
  EXPECT_DOUBLE_EQ(*r->points[0].spread_hi, 1.25);
}

TEST(PerfReport, RepeatedRowsAreRuns) {
  auto r = parse_perf_report_csv(TextBuffer("b.csv", "N,T\n1,0.5\n2,0.7\n1,0.6\n"), {});
  ASSERT_TRUE(r);
  ASSERT_EQ(r->points.size(), 2u);
  EXPECT_EQ(r->points[0].samples, (std::vector<double>{0.5, 0.6}));
  EXPECT_EQ(r->points[0].runs, 2u);
}

TEST(PerfReport, OptionsOverrideNameScriptUnit) {
  PerfReportOptions o;
  o.name = "mm";
  o.script = "bench/mm.py";
  o.unit = "ms";
  auto r = parse_perf_report_csv(TextBuffer("x/y.csv", "N,T (TFLOPS)\n1,0.5\n"), o);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->points[0].id.name, "mm");
  EXPECT_EQ(r->points[0].id.script, "bench/mm.py");
  EXPECT_EQ(r->points[0].unit, "ms");
}

struct BadCase {
  const char* name;
  const char* text;
  int x_columns;
  uint32_t line;
  const char* message_part;
};

class PerfReportErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(PerfReportErrors, FileAndLine) {
  const BadCase& c = GetParam();
  PerfReportOptions o;
  o.x_columns = c.x_columns;
  auto r = parse_perf_report_csv(TextBuffer("bad.csv", c.text), o);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().location().file, "bad.csv");
  EXPECT_EQ(r.status().location().line, c.line);
  EXPECT_NE(r.status().message().find(c.message_part), std::string::npos) << r.status().to_string();
}

INSTANTIATE_TEST_SUITE_P(
    Table, PerfReportErrors,
    ::testing::Values(BadCase{"empty", "", -1, 1, "empty file"},
                      BadCase{"one_column", "N\n1\n", -1, 1, "at least one x column"},
                      BadCase{"short_row", "N,T\n1,0.5\n2\n", -1, 3, "row has 1 fields"},
                      BadCase{"junk_value", "N,T\n1,0.5\n2,fast\n", -1, 3, "'fast' is not"},
                      BadCase{"infinite_value", "N,T\n1,inf\n", -1, 2, "not a finite number"},
                      BadCase{"duplicate_header", "N,T,T\n1,2,3\n", -1, 1, "appears twice"},
                      BadCase{"empty_header", "N,,T\n1,2,3\n", -1, 1, "has no name"},
                      BadCase{"bad_x_columns", "N,T\n1,2\n", 2, 1, "leaves no x or no line"},
                      BadCase{"unterminated_quote", "N,T\n1,\"2\n", -1, 2, "unterminated"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace ksnap::perf

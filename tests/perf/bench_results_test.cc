#include "ksnap/perf/bench_results.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ksnap::perf {
namespace {

struct NormCase {
  const char* in;
  const char* out;
};

class Normalize : public ::testing::TestWithParam<NormCase> {};

TEST_P(Normalize, Value) { EXPECT_EQ(normalize_param_value(GetParam().in), GetParam().out); }

INSTANTIATE_TEST_SUITE_P(Table, Normalize,
                         ::testing::Values(NormCase{"512.000000", "512"}, NormCase{"1e3", "1000"},
                                           NormCase{"0.50", "0.5"}, NormCase{"-0.0", "0"},
                                           NormCase{"True", "true"}, NormCase{" fp16 ", "fp16"},
                                           NormCase{"1024", "1024"}, NormCase{"x1", "x1"}));

TEST(Params, ParseSortAndReject) {
  auto p = parse_param_string("N=512; M=256.0 ;K=64");
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, (ParamList{{"K", "64"}, {"M", "256"}, {"N", "512"}}));
  EXPECT_TRUE(parse_param_string("")->empty());
  auto dup = parse_param_string("M=1;M=2");
  ASSERT_FALSE(dup);
  EXPECT_NE(dup.status().message().find("'M' given twice"), std::string::npos);
  auto bad = parse_param_string("M=1;oops");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.status().message().find("'oops'"), std::string::npos);
  EXPECT_FALSE(parse_param_string("=3"));
}

TEST(Label, FormatParseRoundTrip) {
  ParamList params = {{"K", "512"}, {"line", "Triton, fast"}, {"mode", "a=b"}};
  std::string label = format_point_label("matmul[perf]", params);
  EXPECT_EQ(label, "matmul\\[perf\\][K=512,line=Triton\\, fast,mode=a\\=b]");
  auto back = parse_point_label(label);
  ASSERT_TRUE(back) << back.status().to_string();
  EXPECT_EQ(back->first, "matmul[perf]");
  EXPECT_EQ(back->second, params);
  EXPECT_EQ(format_point_label("softmax", {}), "softmax");
}

TEST(Label, ParseCanonicalizes) {
  auto p = parse_point_label("mm[N=512.000000,M=256]");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->second, (ParamList{{"M", "256"}, {"N", "512"}}));
}

class BadLabel : public ::testing::TestWithParam<const char*> {};

TEST_P(BadLabel, Rejected) {
  auto p = parse_point_label(GetParam());
  ASSERT_FALSE(p) << GetParam();
  EXPECT_EQ(p.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(p.status().message().find(GetParam()), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Table, BadLabel,
                         ::testing::Values("", "[M=1]", "mm[M=1", "mm[M]", "mm[M=1]x",
                                           "mm[M=1,M=2]", "a,b", "mm\\"));

TEST(Direction, FromUnit) {
  const auto lower = MetricDirection::kLowerIsBetter, higher = MetricDirection::kHigherIsBetter;
  EXPECT_EQ(direction_for_unit("ms", higher), lower);
  EXPECT_EQ(direction_for_unit("us", higher), lower);
  EXPECT_EQ(direction_for_unit("GB/s", lower), higher);
  EXPECT_EQ(direction_for_unit("TFLOPS", lower), higher);
  EXPECT_EQ(direction_for_unit("", higher), higher);
  EXPECT_EQ(direction_for_unit("widgets", lower), lower);
}

BenchPoint samples_point(const char* name, std::vector<double> s, uint32_t line) {
  BenchPoint p;
  p.id.name = name;
  p.samples = std::move(s);
  p.where = SourceLocation{"f.csv", line, 0};
  return p;
}

TEST(AddPoint, MergesRepeatedLabels) {
  BenchResults r;
  ASSERT_TRUE(add_point(r, samples_point("a", {1, 2}, 1)));
  ASSERT_TRUE(add_point(r, samples_point("b", {5}, 2)));
  ASSERT_TRUE(add_point(r, samples_point("a", {3}, 3)));
  ASSERT_EQ(r.points.size(), 2u);
  EXPECT_EQ(r.points[0].samples, (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(r.points[0].runs, 2u);
  ASSERT_NE(r.find("b"), nullptr);
  EXPECT_EQ(r.find("c"), nullptr);
}

TEST(AddPoint, PoolsSummariesExactly) {
  // {1,2,3} and {5,7}: pooled mean 3.6, sample std sqrt(5.8).
  BenchResults r;
  BenchPoint a;
  a.id.name = "x";
  a.summary = SampleSummary{2, 1, 3};
  BenchPoint b = a;
  b.summary = SampleSummary{6, std::sqrt(2.0), 2};
  ASSERT_TRUE(add_point(r, a));
  ASSERT_TRUE(add_point(r, b));
  ASSERT_TRUE(r.points[0].summary);
  EXPECT_EQ(r.points[0].summary->n, 5u);
  EXPECT_NEAR(r.points[0].summary->mean, 3.6, 1e-12);
  EXPECT_NEAR(r.points[0].summary->std, std::sqrt(5.8), 1e-12);
}

TEST(AddPoint, MixingSamplesAndSummaryIsAnError) {
  BenchResults r;
  ASSERT_TRUE(add_point(r, samples_point("a", {1}, 4)));
  BenchPoint s;
  s.id.name = "a";
  s.summary = SampleSummary{1, 0, 1};
  s.where = SourceLocation{"f.csv", 9, 0};
  Status st = add_point(r, s);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.location().line, 9u);
  EXPECT_NE(st.message().find("first at line 4"), std::string::npos);
}

}  // namespace
}  // namespace ksnap::perf

#include "ksnap/perf/sample_format.h"

#include <gtest/gtest.h>

namespace ksnap::perf {
namespace {

TEST(SampleCsv, SamplesAndSummaries) {
  const char* text =
      "# ksnap per-sample results\n"
      "name,params,samples,mean,std,n,unit,script\n"
      "matmul,M=512;N=512;K=512,31.1 30.9;31.0,,,,us,bench/mm.py\n"
      "softmax,N=4096,,9.7,0.4,800,us,\n";
  auto r = parse_sample_csv(TextBuffer("r.csv", text), SampleFormatOptions{"default.py"});
  ASSERT_TRUE(r) << r.status().to_string();
  ASSERT_EQ(r->points.size(), 2u);
  const BenchPoint* m = r->find("matmul[K=512,M=512,N=512]");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->samples, (std::vector<double>{31.1, 30.9, 31.0}));
  EXPECT_EQ(m->unit, "us");
  EXPECT_EQ(m->id.script, "bench/mm.py");
  EXPECT_EQ(m->where.line, 3u);
  const BenchPoint* s = r->find("softmax[N=4096]");
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->summary);
  EXPECT_EQ(s->summary->n, 800u);
  EXPECT_DOUBLE_EQ(s->summary->std, 0.4);
  EXPECT_EQ(s->id.script, "default.py");
}

TEST(SampleCsv, ExtraColumnsAreParamsAndRowsMerge) {
  auto r = parse_sample_csv(
      TextBuffer("r.csv", "name,M,kernel,samples\nmm,512,matmul_kernel,1 2\nmm,512,,3\n"), {});
  ASSERT_TRUE(r) << r.status().to_string();
  ASSERT_EQ(r->points.size(), 1u);
  EXPECT_EQ(format_point_label(r->points[0].id), "mm[M=512]");
  EXPECT_EQ(r->points[0].id.kernel, "matmul_kernel");
  EXPECT_EQ(r->points[0].samples, (std::vector<double>{1, 2, 3}));
}

struct BadCase {
  const char* name;
  const char* text;
  uint32_t line;
  const char* message_part;
};

class SampleCsvErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(SampleCsvErrors, FileAndLine) {
  const BadCase& c = GetParam();
  auto r = parse_sample_csv(TextBuffer("bad.csv", c.text), {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().code(), ErrorCode::kParseError);
  EXPECT_EQ(r.status().location().file, "bad.csv");
  EXPECT_EQ(r.status().location().line, c.line);
  EXPECT_NE(r.status().message().find(c.message_part), std::string::npos) << r.status().to_string();
}

INSTANTIATE_TEST_SUITE_P(
    Table, SampleCsvErrors,
    ::testing::Values(
        BadCase{"empty", "", 1, "empty file"},
        BadCase{"no_name_column", "params,samples\nM=1,2\n", 1, "no 'name' column"},
        BadCase{"no_data_columns", "name,params\nx,M=1\n", 1, "'samples' column"},
        BadCase{"bad_sample", "name,samples\nx,1 2\ny,1 zz\n", 3, "sample 2 ('zz')"},
        BadCase{"no_samples_in_row", "name,samples\nx,\n", 2, "neither samples nor mean"},
        BadCase{"partial_summary", "name,mean,std,n\nx,1,,3\n", 2, "given together"},
        BadCase{"negative_std", "name,mean,std,n\nx,1,-1,3\n", 2, "must not be negative"},
        BadCase{"fractional_n", "name,mean,std,n\nx,1,1,2.5\n", 2, "positive integer"},
        BadCase{"zero_n", "name,mean,std,n\nx,1,1,0\n", 2, "positive integer"},
        BadCase{"junk_mean", "name,mean,std,n\nx,fast,1,3\n", 2, "'fast' is not"},
        BadCase{"bad_params", "name,params,samples\nx,M1,1\n", 2, "'M1' is not key=value"},
        BadCase{"field_count", "name,samples\nx,1,2\n", 2, "row has 3 fields"},
        BadCase{"nameless", "name,samples\n,1\n", 2, "without a name"},
        BadCase{"mixed_kinds", "name,samples,mean,std,n\nx,1 2,,,\nx,,1,0,2\n", 3,
                "both as samples and as mean"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(SampleJson, AllThreeShapes) {
  const char* lines =
      "{\"name\": \"mm\", \"params\": {\"M\": 512, \"fast\": true}, \"samples\": [1.5, 2]}\n"
      "{\"name\": \"sm\", \"params\": \"N=4096\", \"mean\": 9.7, \"std\": 0.4, \"n\": 800}\n";
  for (std::string text :
       {std::string(lines),
        "[" + std::string(lines).replace(std::string(lines).find('\n'), 1, ",") + "]",
        std::string("{\"results\": [") +
            "{\"name\": \"mm\", \"M\": 512, \"fast\": true, \"samples\": \"1.5 2\"},"
            "{\"name\": \"sm\", \"N\": 4096, \"mean\": 9.7, \"std\": 0.4, \"n\": 800}]}"}) {
    auto r = parse_sample_json(TextBuffer("r.json", text), {});
    ASSERT_TRUE(r) << r.status().to_string() << "\n" << text;
    ASSERT_EQ(r->points.size(), 2u) << text;
    const BenchPoint* mm = r->find("mm[M=512,fast=true]");
    ASSERT_NE(mm, nullptr) << text;
    EXPECT_EQ(mm->samples, (std::vector<double>{1.5, 2}));
    const BenchPoint* sm = r->find("sm[N=4096]");
    ASSERT_NE(sm, nullptr) << text;
    ASSERT_TRUE(sm->summary);
    EXPECT_EQ(sm->summary->n, 800u);
  }
}

TEST(SampleJson, ParamNumbersReadAsTheirValue) {
  // 64.0, 64 and "64" name the same point (the runs merge), as in a CSV file.
  auto r = parse_sample_json(TextBuffer("p.jsonl",
                                        "{\"name\": \"k\", \"BLOCK\": 64.0, \"samples\": [1]}\n"
                                        "{\"name\": \"k\", \"BLOCK\": 64, \"samples\": [2]}\n"
                                        "{\"name\": \"k\", \"BLOCK\": \"64\", \"samples\": [3]}\n"),
                             {});
  ASSERT_TRUE(r) << r.status().to_string();
  ASSERT_EQ(r->points.size(), 1u);
  const BenchPoint* k = r->find("k[BLOCK=64]");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->samples, (std::vector<double>{1, 2, 3}));
}

class SampleJsonErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(SampleJsonErrors, FileAndLine) {
  const BadCase& c = GetParam();
  auto r = parse_sample_json(TextBuffer("bad.jsonl", c.text), {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().location().file, "bad.jsonl");
  EXPECT_EQ(r.status().location().line, c.line);
  EXPECT_NE(r.status().message().find(c.message_part), std::string::npos) << r.status().to_string();
}

INSTANTIATE_TEST_SUITE_P(
    Table, SampleJsonErrors,
    ::testing::Values(
        BadCase{"syntax", "{\"name\": \"a\", \"samples\": [1]}\n{\"name\": }\n", 2, "unexpected"},
        BadCase{"not_object", "[1, 2]", 1, "expected a benchmark point object"},
        BadCase{"third_item_not_object",
                "{\"results\": [\n{\"name\": \"a\", \"samples\": [1]},\n {\"name\": \"b\", "
                "\"samples\": [1]},\n 5]}",
                4, "expected a benchmark point object"},
        BadCase{"array_point_without_data",
                "[{\"name\": \"a\", \"samples\": [1]},\n\n {\"name\": \"b\"}]", 3,
                "neither samples nor mean"},
        BadCase{"sample_not_number", "{\"name\": \"a\",\n \"samples\": [1,\n \"x\"]}", 3,
                "sample 2 is not a number"},
        BadCase{"name_not_string", "{\"name\": 3, \"samples\": [1]}", 1, "'name' must be a string"},
        BadCase{"nested_unknown", "{\"name\": \"a\", \"extra\": [1], \"samples\": [1]}", 1,
                "unknown member 'extra'"},
        BadCase{"params_array", "{\"name\": \"a\", \"params\": [1], \"samples\": [1]}", 1,
                "'params' must be an object"},
        BadCase{"no_data", "{\"name\": \"a\"}", 1, "neither samples nor mean"},
        BadCase{"empty", " \n", 1, "empty file"},
        BadCase{"results_not_array", "{\"results\": 3}", 1, "'results' must be an array"},
        BadCase{"sample_overflow", "{\"name\": \"a\",\n \"samples\": [1e999]}", 2,
                "number overflow"},
        BadCase{"mean_not_number", "{\"name\": \"a\", \"n\": 3,\n\"std\": 1, \"mean\": \"x\"}", 2,
                "'mean' is not a number"},
        BadCase{"second_line_syntax", "{\"name\": \"a\", \"samples\": [1]}\n[1,]", 2,
                "syntax error"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace ksnap::perf

#include "ksnap/perf/csv.h"

#include <gtest/gtest.h>

namespace ksnap::perf {
namespace {

struct CsvCase {
  const char* name;
  const char* text;
  std::vector<std::vector<std::string>> rows;
  std::vector<uint32_t> lines;
};

class CsvGood : public ::testing::TestWithParam<CsvCase> {};

TEST_P(CsvGood, Splits) {
  const CsvCase& c = GetParam();
  CsvOptions opts;
  opts.comments = true;
  auto rows = parse_csv(TextBuffer("t.csv", c.text), opts);
  ASSERT_TRUE(rows) << rows.status().to_string();
  ASSERT_EQ(rows->size(), c.rows.size());
  for (size_t i = 0; i < c.rows.size(); ++i) {
    EXPECT_EQ((*rows)[i].fields, c.rows[i]) << "row " << i;
    EXPECT_EQ((*rows)[i].line, c.lines[i]) << "row " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, CsvGood,
    ::testing::Values(
        CsvCase{"plain", "a,b\n1,2\n", {{"a", "b"}, {"1", "2"}}, {1, 2}},
        CsvCase{"crlf_no_final_newline", "a,b\r\n1,2", {{"a", "b"}, {"1", "2"}}, {1, 2}},
        CsvCase{"quoted_comma_and_quote", "x,\"a, \"\"b\"\"\"\n", {{"x", "a, \"b\""}}, {1}},
        CsvCase{"quoted_newline_keeps_line_count",
                "\"two\nlines\",z\nnext\n",
                {{"two\nlines", "z"}, {"next"}},
                {1, 3}},
        CsvCase{"blank_and_comment_lines", "# c\n\n  \na\n", {{"a"}}, {4}},
        CsvCase{"empty_fields", ",,\n", {{"", "", ""}}, {1}},
        CsvCase{"trailing_comma_eof", "a,", {{"a", ""}}, {1}},
        CsvCase{"trims_blanks", " a , b \n", {{"a", "b"}}, {1}}),
    [](const auto& info) { return std::string(info.param.name); });

struct CsvBad {
  const char* name;
  const char* text;
  uint32_t line;
  const char* message_part;
};

class CsvErrors : public ::testing::TestWithParam<CsvBad> {};

TEST_P(CsvErrors, ReportsFileAndLine) {
  const CsvBad& c = GetParam();
  auto rows = parse_csv(TextBuffer("bad.csv", c.text));
  ASSERT_FALSE(rows);
  const Status s = rows.status();
  EXPECT_EQ(s.code(), ErrorCode::kParseError);
  EXPECT_EQ(s.location().file, "bad.csv");
  EXPECT_EQ(s.location().line, c.line);
  EXPECT_NE(s.message().find(c.message_part), std::string::npos) << s.to_string();
}

INSTANTIATE_TEST_SUITE_P(
    Table, CsvErrors,
    ::testing::Values(CsvBad{"unterminated", "a,b\n1,\"open\n2,3\n", 2, "unterminated"},
                      CsvBad{"junk_after_quote", "a\n\"x\"y,1\n", 2, "after a closing quote"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(Csv, HugeLineIsFine) {
  std::string text = "name,samples\nk,";
  for (int i = 0; i < 200000; ++i) text += "1.5 ";
  text += "\n";
  auto rows = parse_csv(TextBuffer("big.csv", text));
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[1].fields[1].size(), 800000u - 1);  // trimmed trailing blank
}

}  // namespace
}  // namespace ksnap::perf

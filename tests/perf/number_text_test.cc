#include "ksnap/perf/number_text.h"

#include <gtest/gtest.h>

namespace ksnap::perf {
namespace {

struct NumberCase {
  const char* text;
  std::optional<double> want;
};

class Numbers : public ::testing::TestWithParam<NumberCase> {};

TEST_P(Numbers, Parse) {
  auto got = parse_number(GetParam().text);
  ASSERT_EQ(got.has_value(), GetParam().want.has_value()) << GetParam().text;
  if (got) EXPECT_DOUBLE_EQ(*got, *GetParam().want);
}

INSTANTIATE_TEST_SUITE_P(
    Table, Numbers,
    ::testing::Values(NumberCase{"31.104", 31.104}, NumberCase{" 7 ", 7.0}, NumberCase{"+2.5", 2.5},
                      NumberCase{"-1e-3", -0.001}, NumberCase{"3e1x", std::nullopt},
                      NumberCase{"", std::nullopt}, NumberCase{"inf", std::nullopt},
                      NumberCase{"nan", std::nullopt}, NumberCase{"1,5", std::nullopt}));

TEST(SampleList, SplitsOnBlanksAndSemicolons) {
  auto s = parse_sample_list(" 1.5 2;3\t4 ,5 ");
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, (std::vector<double>{1.5, 2, 3, 4, 5}));
  auto empty = parse_sample_list("  ");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
}

TEST(SampleList, NamesTheBadToken) {
  auto s = parse_sample_list("1.5 abc 2");
  ASSERT_FALSE(s);
  EXPECT_NE(s.status().message().find("sample 2 ('abc')"), std::string::npos);
}

TEST(Missing, PandasSpellings) {
  for (const char* t : {"", " ", "nan", "NaN", "None", "null"})
    EXPECT_TRUE(is_missing_value(t)) << t;
  for (const char* t : {"0", "x", "0.0"}) EXPECT_FALSE(is_missing_value(t)) << t;
}

}  // namespace
}  // namespace ksnap::perf

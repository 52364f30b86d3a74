#include "ksnap/store/date.h"

#include <gtest/gtest.h>

namespace ksnap::store {
namespace {

TEST(DateTest, ParsesUnixSecondsAndIso8601) {
  struct Case {
    const char* text;
    int64_t want;
  };
  const Case cases[] = {
      {"0", 0},
      {"1733011200", 1733011200},
      {"2024-12-01", 1733011200},
      {"2024-12-01T00:00:00Z", 1733011200},
      {"2024-12-01 10:30", 1733011200 + 10 * 3600 + 30 * 60},
      {"2024-12-01T10:30:00+02:00", 1733011200 + 8 * 3600 + 30 * 60},
      {"2024-12-01T10:30:00-0130", 1733011200 + 12 * 3600},
      {"2000-02-29", 951782400},
      {"1970-01-01T00:00:01Z", 1},
  };
  for (const Case& c : cases) {
    auto got = parse_date(c.text);
    ASSERT_TRUE(got) << c.text << ": " << got.status().to_string();
    EXPECT_EQ(*got, c.want) << c.text;
  }
}

TEST(DateTest, RejectsMalformedDates) {
  for (const char* bad : {"", "yesterday", "2024-13-01", "2024-12-32", "2024-1-01",
                          "2024-12-01T25:00", "2024-12-01T10", "2024-12-01Tx", "2024-12-01+",
                          "20241201", "2024-12-01Z junk", "99999999999999"}) {
    auto got = parse_date(bad);
    EXPECT_FALSE(got) << "'" << bad << "' parsed as " << (got ? *got : 0);
    if (!got) {
      EXPECT_NE(got.status().message().find(bad), std::string::npos);
    }
  }
}

TEST(DateTest, FormatsUtcDays) {
  EXPECT_EQ(format_date(1733011200), "2024-12-01");
  EXPECT_EQ(format_date(1733011200 + 86399), "2024-12-01");
  EXPECT_EQ(format_date(951782400), "2000-02-29");
  EXPECT_EQ(format_date(0), "----------");
}

}  // namespace
}  // namespace ksnap::store

#include "ksnap/support/status.h"

#include <gtest/gtest.h>

namespace ksnap {
namespace {

TEST(StatusTest, OkHasNoMessage) {
  Status s;
  EXPECT_TRUE(s.is_ok());
  EXPECT_EQ(s.to_string(), "ok");
}

TEST(StatusTest, ToStringNamesFileLineColumn) {
  struct Case {
    SourceLocation loc;
    std::string want;
  } cases[] = {
      {{"a.ttir", 3, 7}, "a.ttir:3:7: parse error: bad"},
      {{"a.ttir", 3, 0}, "a.ttir:3: parse error: bad"},
      {{"a.ttir", 0, 0}, "a.ttir: parse error: bad"},
      {{"", 0, 0}, "parse error: bad"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(Status(ErrorCode::kParseError, "bad", c.loc).to_string(), c.want);
  }
}

TEST(StatusTest, WithFileKeepsExistingFile) {
  Status s(ErrorCode::kParseError, "x", {"inner.ptx", 2, 1});
  EXPECT_EQ(s.with_file("outer").location().file, "inner.ptx");
  Status t(ErrorCode::kParseError, "x", {"", 2, 1});
  EXPECT_EQ(t.with_file("outer").location().file, "outer");
  EXPECT_EQ(t.with_file("outer").location().line, 2u);
}

Expected<int> parse_positive(int v) {
  if (v <= 0) return make_error(ErrorCode::kInvalidArgument, "not positive");
  return v;
}

Status use_macros(int v, int* out) {
  KSNAP_ASSIGN_OR_RETURN(int x, parse_positive(v));
  *out = x;
  return Status::ok();
}

TEST(ExpectedTest, ValueOrError) {
  auto a = parse_positive(3);
  ASSERT_TRUE(a);
  EXPECT_EQ(*a, 3);
  auto b = parse_positive(-1);
  ASSERT_FALSE(b);
  EXPECT_EQ(b.status().code(), ErrorCode::kInvalidArgument);
  int out = 0;
  EXPECT_TRUE(use_macros(5, &out).is_ok());
  EXPECT_EQ(out, 5);
  EXPECT_EQ(use_macros(0, &out).code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace ksnap

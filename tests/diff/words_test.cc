#include "diff/words.h"

#include <gtest/gtest.h>

namespace ksnap::diff {
namespace {

std::vector<std::string> pieces(const std::string& s, const std::vector<Span>& spans) {
  std::vector<std::string> out;
  for (Span x : spans) out.push_back(s.substr(x.begin, x.end - x.begin));
  return out;
}

TEST(WordsTest, Table) {
  struct Case {
    std::string a, b;
    std::vector<std::string> want_a, want_b;
  } cases[] = {
      {"%5 = arith.muli %3, %c256_i32 : i32", "%5 = arith.muli %3, %c512_i32 : i32",
       {"%c256_i32"}, {"%c512_i32"}},
      {"add.s32 %r1, %r2, 4;", "add.s32 %r1, %r2, 8;", {"4"}, {"8"}},
      {"a b c", "a b c", {}, {}},
      {"x = f(a, b)", "x = f(a, b, c)", {}, {", c"}},
      {"order = [1, 0]", "order = [0, 1]", {"1,"}, {", 1"}},
  };
  for (const auto& c : cases) {
    std::vector<Span> sa, sb;
    word_highlights(c.a, c.b, &sa, &sb);
    EXPECT_EQ(pieces(c.a, sa), c.want_a) << c.a << " | " << c.b;
    EXPECT_EQ(pieces(c.b, sb), c.want_b) << c.a << " | " << c.b;
  }
}

TEST(WordsTest, HugeLinesHighlightWhole) {
  std::string a(5000, 'a'), b;
  for (int i = 0; i < 600; ++i) b += "w ";
  std::vector<Span> sa, sb;
  word_highlights(a, b, &sa, &sb, 512);
  ASSERT_EQ(sb.size(), 1u);
  EXPECT_EQ(sb[0].end, b.size());
}

}  // namespace
}  // namespace ksnap::diff

#include "ksnap/support/text.h"

#include <gtest/gtest.h>

namespace ksnap {
namespace {

struct Utf8Case {
  const char* name;
  std::string in;
  bool valid;
  std::string fixed;
};

TEST(Text, ToValidUtf8) {
  const Utf8Case cases[] = {
      {"ascii", "tt.load %a", true, "tt.load %a"},
      {"two_byte", "caf\xc3\xa9", true, "caf\xc3\xa9"},
      {"three_byte", "\xe2\x86\x92", true, "\xe2\x86\x92"},
      {"four_byte", "\xf0\x9f\x98\x80", true, "\xf0\x9f\x98\x80"},
      {"lone_ff", "a\xff" "b", false, "a\\xffb"},
      {"truncated_seq", "x\xe2\x86", false, "x\\xe2\\x86"},
      {"overlong_slash", "\xc0\xaf", false, "\\xc0\\xaf"},
      {"overlong_e0", "\xe0\x80\xaf", false, "\\xe0\\x80\\xaf"},
      {"surrogate", "\xed\xa0\x80", false, "\\xed\\xa0\\x80"},
      {"above_max", "\xf4\x90\x80\x80", false, "\\xf4\\x90\\x80\\x80"},
      {"lone_continuation", "\x80", false, "\\x80"},
      {"nul_is_valid_utf8", std::string("a\0b", 3), true, std::string("a\0b", 3)},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(is_valid_utf8(c.in), c.valid);
    EXPECT_EQ(to_valid_utf8(c.in), c.fixed);
    EXPECT_TRUE(is_valid_utf8(to_valid_utf8(c.in)));
  }
}

TEST(Text, EscapeControl) {
  struct Case {
    const char* name;
    std::string in;
    bool keep_tab;
    std::string out;
  };
  const Case cases[] = {
      {"plain", "%0 = arith.addi", true, "%0 = arith.addi"},
      {"osc_title", "\x1b]0;pwned\x07", true, "\\x1b]0;pwned\\x07"},
      {"csi_clear", "k\x1b[2J", true, "k\\x1b[2J"},
      {"c1_csi", "k\xc2\x9b" "2J", true, "k\\u009b2J"},
      {"del", "a\x7f", true, "a\\x7f"},
      {"tab_kept", "a\tb", true, "a\tb"},
      {"tab_escaped", "a\tb", false, "a\\x09b"},
      {"newline", "a\nb", true, "a\\x0ab"},
      {"cr", "a\rb", true, "a\\x0db"},
      {"invalid_byte", "a\xff", true, "a\\xff"},
      {"nbsp_kept", "a\xc2\xa0" "b", true, "a\xc2\xa0" "b"},
      {"utf8_kept", "\xe2\x86\x92", true, "\xe2\x86\x92"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::string got = escape_control(c.in, c.keep_tab);
    EXPECT_EQ(got, c.out);
    for (char ch : got) EXPECT_NE(ch, '\x1b');
  }
}

}  // namespace
}  // namespace ksnap

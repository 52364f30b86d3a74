#include "store/codec.h"

#include <gtest/gtest.h>

namespace ksnap::store {
namespace {

TEST(CodecTest, RoundTripsAndShrinksRepetitiveText) {
  std::string text;
  for (int i = 0; i < 2000; ++i)
    text += "    %" + std::to_string(i) + " = arith.addi %a, %b : tensor<256xi32, #blocked>\n";
  for (int level : {1, 3, 12, 19}) {
    std::string z = compress(text, level);
    EXPECT_LT(z.size(), text.size() / 10) << "level " << level;
    auto back = decompress(z, text.size(), "t");
    ASSERT_TRUE(back) << back.status().to_string();
    EXPECT_EQ(*back, text);
  }
  auto empty = decompress(compress("", 3), 0, "empty");
  ASSERT_TRUE(empty);
  EXPECT_EQ(*empty, "");
}

TEST(CodecTest, DamagedFramesAreCorruptNotCrashes) {
  std::string text(10000, 'x');
  for (size_t i = 0; i < text.size(); i += 7) text[i] = static_cast<char>('a' + i % 26);
  std::string z = compress(text, 3);
  struct Case {
    const char* name;
    std::string frame;
    size_t size;
  };
  std::string flipped = z;
  flipped[flipped.size() / 2] ^= 0x5a;
  const Case cases[] = {
      {"not zstd", "hello world, not a frame", text.size()},
      {"truncated", z.substr(0, z.size() / 2), text.size()},
      {"wrong size", z, text.size() + 1},
      {"bit flip", flipped, text.size()},
      {"empty", "", text.size()},
  };
  for (const Case& c : cases) {
    auto r = decompress(c.frame, c.size, std::string("blob ") + c.name);
    if (r) {
      // A flipped literal may decode; then the content must differ and the
      // store's content hash catches it.
      EXPECT_NE(*r, text) << c.name;
      continue;
    }
    EXPECT_EQ(r.status().code(), ErrorCode::kCorrupt) << c.name;
    EXPECT_NE(r.status().message().find(c.name), std::string::npos) << r.status().message();
  }
}

}  // namespace
}  // namespace ksnap::store

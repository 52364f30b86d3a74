#include "ksnap/support/hash.h"

#include <gtest/gtest.h>

namespace ksnap {
namespace {

TEST(HashTest, IncrementalEqualsOneShot) {
  Hasher h;
  h.update("hello ");
  h.update("world");
  EXPECT_EQ(h.digest(), hash64("hello world"));
  EXPECT_NE(hash64("hello world"), hash64("hello worle"));
}

TEST(HashTest, HexForms) {
  EXPECT_EQ(hex64(0x1234), "0000000000001234");
  EXPECT_EQ(hash128_hex("x").size(), 32u);
  // XXH3-128 of "x", high half first (libxxhash's XXH3_128bits, printed
  // %016llx%016llx): stores and kept hashes depend on this spelling.
  EXPECT_EQ(hash128_hex("x"), "5c7401c0ec22eeeeeaf06c6480b2cd11");
  EXPECT_NE(hash128_hex("x"), hash128_hex("y"));
}

}  // namespace
}  // namespace ksnap

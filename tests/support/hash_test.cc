#include "ksnap/support/hash.h"

#include <gtest/gtest.h>
#include <xxhash.h>

#include <algorithm>
#include <string>

#include "support/xxh3_avx2.h"

namespace ksnap {
namespace {

// hash64 and Hasher take the AVX2 build of XXH3 for long inputs where the CPU
// has AVX2: every size around its thresholds (the 1 KiB dispatch, XXH3's
// 240-byte short path and 1 KiB blocks), every seed kind, and streams that
// mix short pieces (libxxhash's build) with long ones (the AVX2 build) on one
// state, give libxxhash's own hash of the same bytes.
TEST(HashTest, Avx2BuildGivesLibxxhashHashes) {
#if defined(__x86_64__)
  ASSERT_NE(detail::xxh3_avx2(), nullptr) << "hash_avx2.cc was built without -mavx2";
#endif
  std::string text;
  for (uint32_t i = 0; text.size() < 300000; ++i) text.push_back(static_cast<char>((i * 2654435761u) >> 24));
#if defined(__x86_64__)
  const bool cpu = __builtin_cpu_supports("avx2");
#else
  const bool cpu = false;
#endif
  for (size_t size : {size_t{0}, size_t{1}, size_t{240}, size_t{241}, size_t{1023}, size_t{1024},
                      size_t{1025}, size_t{4095}, size_t{65536}, size_t{65537}, text.size()}) {
    const std::string_view bytes = std::string_view(text).substr(0, size);
    for (uint64_t seed : {uint64_t{0}, uint64_t{1}, uint64_t{0x9E3779B97F4A7C15ull}}) {
      const uint64_t want = XXH3_64bits_withSeed(bytes.data(), bytes.size(), seed);
      EXPECT_EQ(hash64(bytes, seed), want) << size << " bytes, seed " << seed;
      if (detail::xxh3_avx2() && cpu) {
        EXPECT_EQ(detail::xxh3_avx2()->hash(bytes.data(), bytes.size(), seed), want) << size;
      }
    }
    Hasher mixed;
    size_t at = 0;
    for (size_t piece : {size_t{7}, size_t{2000}, size_t{300}, size_t{70000}, size_t{1}}) {
      if (at >= bytes.size()) break;
      mixed.update(bytes.substr(at, piece));
      at += piece;
    }
    mixed.update(bytes.substr(std::min(at, bytes.size())));
    EXPECT_EQ(mixed.digest(), XXH3_64bits(bytes.data(), bytes.size())) << size << " bytes, mixed";
  }
}

TEST(HashTest, IncrementalEqualsOneShot) {
  Hasher h;
  h.update("hello ");
  h.update("world");
  EXPECT_EQ(h.digest(), hash64("hello world"));
  EXPECT_NE(hash64("hello world"), hash64("hello worle"));
}

// The Hasher keeps XXH3's state inline: pieces of every size class (the
// state's 256-byte buffer, its 1 KiB stripe blocks, many blocks), split at
// every kind of point, digest to hash64() of the whole; a digest mid-stream
// changes nothing; several Hashers alive at once keep apart.
TEST(HashTest, IncrementalEqualsOneShotForEverySplit) {
  std::string text;
  for (int i = 0; text.size() < 70000; ++i) text += "%" + std::to_string(i * 7919) + " = add i32 ";
  for (size_t total : {size_t{0}, size_t{1}, size_t{15}, size_t{240}, size_t{256}, size_t{257},
                       size_t{1024}, size_t{1025}, size_t{4096}, size_t{65536}, text.size()}) {
    const std::string_view whole = std::string_view(text).substr(0, total);
    for (size_t piece : {size_t{1}, size_t{3}, size_t{64}, size_t{255}, size_t{256}, size_t{1000},
                         size_t{100000}}) {
      Hasher h, other;
      other.update("something else");
      for (size_t at = 0; at < whole.size(); at += piece) {
        h.update(whole.substr(at, piece));
        if (at == piece) (void)h.digest();  // mid-stream: no effect on what follows
      }
      EXPECT_EQ(h.digest(), hash64(whole)) << total << " bytes in pieces of " << piece;
      EXPECT_EQ(h.digest(), h.digest());
      EXPECT_EQ(other.digest(), hash64("something else"));
    }
  }
  Hasher u;
  u.update_u64(0x0123456789abcdefull);
  const uint64_t v = 0x0123456789abcdefull;
  EXPECT_EQ(u.digest(), hash64(std::string_view(reinterpret_cast<const char*>(&v), sizeof v)));
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

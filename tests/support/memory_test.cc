#include "ksnap/support/memory.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>

namespace ksnap {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

// Only whole 2 MiB blocks of ranges of 8 MiB or more are advised; a kernel
// may refuse (no transparent huge pages): then nothing is.
TEST(MemoryTest, AdvisesTheWholeHugeBlocksInsideBigRanges) {
  void* raw = std::aligned_alloc(2 * kMiB, 32 * kMiB);
  ASSERT_NE(raw, nullptr);
  std::unique_ptr<void, decltype(&std::free)> buf(raw, &std::free);
  char* p = static_cast<char*>(raw);
  struct Case {
    const char* name;
    const void* from;
    size_t bytes;
    size_t want;  ///< When the kernel takes the advice.
  } cases[] = {
      {"null", nullptr, 32 * kMiB, 0},
      {"small", p, 4 * kMiB, 0},
      {"just under the minimum", p, kHugeAdviceMin - 1, 0},
      {"aligned, whole blocks", p, 16 * kMiB, 16 * kMiB},
      {"unaligned start: the first block is left out", p + 1, 16 * kMiB - 1, 14 * kMiB},
      {"unaligned end: the last part block is left out", p, 16 * kMiB + 12345, 16 * kMiB},
      {"both ends inside blocks", p + 3 * kMiB, 9 * kMiB, 8 * kMiB},
  };
  for (const Case& c : cases) {
    size_t got = advise_huge_pages(c.from, c.bytes);
    EXPECT_TRUE(got == c.want || (got == 0 && c.want != 0)) << c.name << ": " << got;
    EXPECT_LE(got, c.bytes) << c.name;
  }
}

}  // namespace
}  // namespace ksnap

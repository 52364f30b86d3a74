#include "ksnap/support/memory.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

namespace ksnap {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

/// True when this kernel takes MADV_HUGEPAGE advice: transparent huge pages
/// "always" or "madvise" (not "never", or no such file: none at all).
bool kernel_takes_advice() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  return std::getline(f, line) && line.find("[never]") == std::string::npos;
}

// Only whole 2 MiB blocks of ranges of 8 MiB or more are advised. Where the
// kernel has no transparent huge pages nothing is, and only the ranges that
// advise nothing anyway are checked.
TEST(MemoryTest, AdvisesTheWholeHugeBlocksInsideBigRanges) {
  const bool takes = kernel_takes_advice();
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
    if (takes || c.want == 0) {
      EXPECT_EQ(got, c.want) << c.name;
    } else {
      EXPECT_EQ(got, 0u) << c.name;
    }
  }
}

}  // namespace
}  // namespace ksnap

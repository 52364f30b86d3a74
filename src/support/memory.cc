#include "ksnap/support/memory.h"

#include <sys/mman.h>

#include <cstdint>

namespace ksnap {

size_t advise_huge_pages(const void* p, size_t bytes) {
#ifdef MADV_HUGEPAGE
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  if (!p || bytes < kHugeAdviceMin) return 0;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kHuge - 1);
  if (end <= begin) return 0;
  if (::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE) != 0) return 0;
  return end - begin;
#else
  (void)p;
  (void)bytes;
  return 0;
#endif
}

}  // namespace ksnap

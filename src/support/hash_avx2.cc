// XXH3 compiled with AVX2 (CMakeLists.txt gives this file alone -mavx2 on
// x86-64): hash.cc calls it only when the CPU has AVX2. Only xxhash.h is
// included, with XXH_INLINE_ALL, so every function built here for AVX2 has
// internal linkage: none can stand in for a generic build's copy elsewhere.
#include "support/xxh3_avx2.h"

#if defined(__AVX2__)
#define XXH_INLINE_ALL
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

namespace ksnap::detail {
namespace {
uint64_t hash(const void* data, size_t size, uint64_t seed) {
  return XXH3_64bits_withSeed(data, size, seed);
}
void update(void* state, const void* data, size_t size) {
  XXH3_64bits_update(static_cast<XXH3_state_t*>(state), data, size);
}
uint64_t digest(const void* state) {
  return XXH3_64bits_digest(static_cast<const XXH3_state_t*>(state));
}
constexpr Xxh3Avx2 kAvx2{hash, update, digest};
}  // namespace

const Xxh3Avx2* xxh3_avx2() { return &kAvx2; }

}  // namespace ksnap::detail
#else
namespace ksnap::detail {
const Xxh3Avx2* xxh3_avx2() { return nullptr; }
}  // namespace ksnap::detail
#endif

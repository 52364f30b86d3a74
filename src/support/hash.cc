#include "ksnap/support/hash.h"

#define XXH_STATIC_LINKING_ONLY  // XXH3_state_t's definition, to hold it inline
#include <xxhash.h>

#include <cstdio>

#include "support/xxh3_avx2.h"

namespace ksnap {

namespace {
/// Inputs at least this long go to the AVX2 build where the CPU has it;
/// shorter ones take XXH3's scalar short-input paths either way, so they
/// skip the indirect call.
constexpr size_t kVectorBytes = 1024;

/// The AVX2 build when it exists and the CPU runs it, else nullptr (asked once).
const detail::Xxh3Avx2* avx2() {
  static const detail::Xxh3Avx2* const chosen = [] {
    const detail::Xxh3Avx2* a = detail::xxh3_avx2();
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();  // in case this runs in a static constructor before libgcc's
    if (a && __builtin_cpu_supports("avx2")) return a;
#endif
    return static_cast<const detail::Xxh3Avx2*>(nullptr);
  }();
  return chosen;
}
}  // namespace

uint64_t hash64(std::string_view data, uint64_t seed) {
  if (data.size() >= kVectorBytes) {
    if (const detail::Xxh3Avx2* a = avx2()) return a->hash(data.data(), data.size(), seed);
  }
  return XXH3_64bits_withSeed(data.data(), data.size(), seed);
}

static_assert(sizeof(XXH3_state_t) <= Hasher::kStateBytes, "Hasher::kStateBytes too small");
static_assert(alignof(XXH3_state_t) <= 64, "Hasher's state alignment too small");

namespace {
XXH3_state_t* state(unsigned char* p) { return reinterpret_cast<XXH3_state_t*>(p); }
const XXH3_state_t* state(const unsigned char* p) {
  return reinterpret_cast<const XXH3_state_t*>(p);
}
}  // namespace

Hasher::Hasher() {
  XXH3_INITSTATE(state(state_));  // required of a state not made by XXH3_createState
  XXH3_64bits_reset(state(state_));
}
Hasher::~Hasher() = default;
void Hasher::update(std::string_view data) {
  if (data.size() >= kVectorBytes) {
    if (const detail::Xxh3Avx2* a = avx2()) return a->update(state_, data.data(), data.size());
  }
  XXH3_64bits_update(state(state_), data.data(), data.size());
}
void Hasher::update_u64(uint64_t v) { XXH3_64bits_update(state(state_), &v, sizeof v); }
uint64_t Hasher::digest() const { return XXH3_64bits_digest(state(state_)); }

std::string hash128_hex(std::string_view data) {
  XXH128_hash_t h = XXH3_128bits(data.data(), data.size());
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return buf;
}

std::string hex64(uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace ksnap

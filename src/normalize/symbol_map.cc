#include "normalize/symbol_map.h"

#include <algorithm>
#include <cstring>

#include "ksnap/support/hash.h"

namespace ksnap::norm::detail {

namespace {

inline uint64_t load8(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline uint64_t load4(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline uint64_t mix(uint64_t a, uint64_t b) {
  __uint128_t m = static_cast<__uint128_t>(a ^ 0x9E3779B97F4A7C15ull) * (b ^ 0xD6E8FEB86659FD93ull);
  return static_cast<uint64_t>(m) ^ static_cast<uint64_t>(m >> 64);
}

}  // namespace

SymbolMap::SymbolMap() : slots_(256), mask_(255) {}

namespace {
/// Equality of two names of equal length `n`; inline for short names.
inline bool same(const char* a, const char* b, size_t n) {
  if (n <= 16 && n >= 8) {
    return load8(a) == load8(b) && load8(a + n - 8) == load8(b + n - 8);
  }
  if (n < 8 && n >= 4) return load4(a) == load4(b) && load4(a + n - 4) == load4(b + n - 4);
  return std::memcmp(a, b, n) == 0;
}
}  // namespace

uint64_t SymbolMap::hash_of(std::string_view key) {
  const char* p = key.data();
  size_t n = key.size();
  if (n > 16) return hash64(key);
  uint64_t a, b;
  if (n >= 8) {
    a = load8(p);
    b = load8(p + n - 8);
  } else if (n >= 4) {
    a = load4(p);
    b = load4(p + n - 4);
  } else if (n > 0) {
    a = (static_cast<uint64_t>(static_cast<uint8_t>(p[0])) << 16) |
        (static_cast<uint64_t>(static_cast<uint8_t>(p[n / 2])) << 8) |
        static_cast<uint8_t>(p[n - 1]);
    b = 0;
  } else {
    a = b = 0;
  }
  return mix(a + n, b);
}

bool SymbolMap::dense_index(std::string_view key, uint32_t* n) const {
  size_t i = 0;
  int sigil = 0;
  if (!key.empty() && (key[0] < '0' || key[0] > '9')) {
    sigil = static_cast<unsigned char>(key[0]);
    i = 1;
  }
  size_t digits = key.size() - i;
  if (digits == 0 || digits > 6 || (key[i] == '0' && digits > 1)) return false;
  uint32_t v = 0;
  for (; i < key.size(); ++i) {
    unsigned d = static_cast<unsigned char>(key[i]) - '0';
    if (d > 9) return false;
    v = v * 10 + d;
  }
  if (v >= kDenseLimit) return false;
  if (dense_sigil_ < 0) dense_sigil_ = sigil;
  if (dense_sigil_ != sigil) return false;
  *n = v;
  return true;
}

uint32_t SymbolMap::find(std::string_view key) const {
  uint32_t n;
  if (dense_index(key, &n)) return n < dense_.size() ? dense_[n] : kMissing;
  uint64_t i = hash_of(key) & mask_;
  while (true) {
    const Slot& s = slots_[i];
    if (s.value == kMissing) return kMissing;
    if (s.size == key.size() && same(s.data, key.data(), key.size())) return s.value;
    i = (i + 1) & mask_;
  }
}

uint32_t SymbolMap::find_or_insert(std::string_view key, uint32_t value) {
  uint32_t n;
  if (dense_index(key, &n)) {
    if (n >= dense_.size()) {
      dense_.resize(std::min<size_t>(kDenseLimit, std::max<size_t>(n + 1, dense_.size() * 2)),
                    kMissing);
    }
    uint32_t& v = dense_[n];
    if (v == kMissing) {
      v = value;
      dense_used_.push_back(n);
    }
    return v;
  }
  if ((used_.size() + 1) * 2 > slots_.size()) grow();
  uint64_t i = hash_of(key) & mask_;
  while (true) {
    Slot& s = slots_[i];
    if (s.value == kMissing) {
      s.data = key.data();
      s.size = static_cast<uint32_t>(key.size());
      s.value = value;
      used_.push_back(static_cast<uint32_t>(i));
      return value;
    }
    if (s.size == key.size() && same(s.data, key.data(), key.size())) return s.value;
    i = (i + 1) & mask_;
  }
}

void SymbolMap::clear() {
  for (uint32_t i : used_) slots_[i] = Slot{};
  used_.clear();
  for (uint32_t n : dense_used_) dense_[n] = kMissing;
  dense_used_.clear();
  dense_sigil_ = -1;
}

void SymbolMap::grow() {
  std::vector<Slot> old;
  old.swap(slots_);
  slots_.assign(old.size() * 2, Slot{});
  mask_ = slots_.size() - 1;
  used_.clear();
  for (const Slot& s : old) {
    if (s.value == kMissing) continue;
    uint64_t i = hash_of(std::string_view(s.data, s.size)) & mask_;
    while (slots_[i].value != kMissing) i = (i + 1) & mask_;
    slots_[i] = s;
    used_.push_back(static_cast<uint32_t>(i));
  }
}

}  // namespace ksnap::norm::detail

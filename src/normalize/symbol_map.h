// A map from a name (a view into the IR buffer) to a symbol index, for the
// normalizer's hot path: no allocation per lookup. Numbered names (`%12`,
// `!7`, `#3`, `12`) index an array directly; other names go to a flat
// open-addressing table with an inline hash of the name.
//
//   SymbolMap m;
//   uint32_t v = m.find_or_insert("%x_3", next);   // next, inserted
//   uint32_t w = m.find_or_insert("%x_3", next+1); // next again: found
//   m.find_or_insert("%12", k);                     // array slot 12
//   m.ref("%x_3") = w2;                             // now maps to w2 (a later definition)
//   m.ref("%x_3") = SymbolMap::kHidden;             // forgotten (its scope closed)
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace ksnap::norm::detail {

class SymbolMap {
 public:
  static constexpr uint32_t kMissing = 0xFFFFFFFFu;
  /// A key that was mapped and then forgotten: its slot stays taken (so that
  /// probing goes on past it) but it reads as absent.
  static constexpr uint32_t kHidden = 0xFFFFFFFEu;
  /// Numbers below this use the array (it never grows past 1 MiB).
  static constexpr uint32_t kDenseLimit = 1u << 18;

  SymbolMap();

  /// The value stored for `key`, or stores `value` and returns it when `key`
  /// is new. `key` must stay valid while the map holds it.
  uint32_t find_or_insert(std::string_view key, uint32_t value) {
    uint32_t& v = ref(key);
    if (absent(v)) v = value;
    return v;
  }

  /// The stored value of `key`, to read or overwrite; absent() when the key
  /// has none (an absent key gets a slot). Writing kHidden forgets the key.
  /// Valid until the next call that may insert. `key` must stay valid while
  /// the map holds it.
  uint32_t& ref(std::string_view key) {
    uint32_t n;
    if (dense_index(key, &n)) return dense_ref(n);
    if ((used_.size() + 1) * 2 > slots_.size()) grow();
    uint64_t i = hash_of(key) & mask_;
    while (true) {
      Slot& s = slots_[i];
      if (s.value == kMissing) {
        s.data = key.data();
        s.size = static_cast<uint32_t>(key.size());
        s.value = kHidden;
        used_.push_back(static_cast<uint32_t>(i));
        return s.value;
      }
      if (s.size == key.size() && same(s.data, key.data(), key.size())) return s.value;
      i = (i + 1) & mask_;
    }
  }
  static bool absent(uint32_t v) { return v >= kHidden; }

  /// The value for `key`, or kMissing.
  uint32_t find(std::string_view key) const;

  /// Forgets every key; O(number of keys), keeps the capacity.
  void clear();

  size_t size() const { return used_.size() + dense_used_.size(); }

 private:
  struct Slot {
    const char* data = nullptr;
    uint32_t size = 0;
    uint32_t value = kMissing;
  };

  static uint64_t load8(const char* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  static uint64_t load4(const char* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  static uint64_t mix(uint64_t a, uint64_t b) {
    __uint128_t m =
        static_cast<__uint128_t>(a ^ 0x9E3779B97F4A7C15ull) * (b ^ 0xD6E8FEB86659FD93ull);
    return static_cast<uint64_t>(m) ^ static_cast<uint64_t>(m >> 64);
  }
  /// Inline hash for names up to 16 bytes (nearly all), XXH3 beyond.
  static uint64_t hash_of(std::string_view key) {
    const char* p = key.data();
    size_t n = key.size();
    if (n > 16) return hash_long(key);
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
  static uint64_t hash_long(std::string_view key);
  /// Equality of two names of equal length `n`.
  static bool same(const char* a, const char* b, size_t n) {
    if (n <= 16 && n >= 8) return load8(a) == load8(b) && load8(a + n - 8) == load8(b + n - 8);
    if (n < 8 && n >= 4) return load4(a) == load4(b) && load4(a + n - 4) == load4(b + n - 4);
    return std::memcmp(a, b, n) == 0;
  }
  /// True (and *n set) when `key` is an optional one-char sigil plus a
  /// decimal number without leading zeros, below kDenseLimit, whose sigil is
  /// the one this map's array serves.
  bool dense_index(std::string_view key, uint32_t* n) const {
    size_t size = key.size();
    if (size == 0 || static_cast<unsigned>(key[size - 1] - '0') > 9) return false;  // `#blocked`
    size_t i = static_cast<unsigned>(key[0] - '0') > 9 ? 1 : 0;                      // a sigil
    size_t digits = size - i;
    if (digits == 0 || digits > 6 || (key[i] == '0' && digits > 1)) return false;
    uint32_t v = 0;
    for (; i < size; ++i) {
      unsigned d = static_cast<unsigned>(key[i] - '0');
      if (d > 9) return false;  // `%offsets_1`
      v = v * 10 + d;
    }
    if (v >= kDenseLimit) return false;
    int sigil = static_cast<unsigned>(key[0] - '0') > 9 ? static_cast<unsigned char>(key[0]) : 0;
    if (dense_sigil_ < 0) dense_sigil_ = sigil;
    if (dense_sigil_ != sigil) return false;
    *n = v;
    return true;
  }
  uint32_t& dense_ref(uint32_t n);
  void grow();

  std::vector<Slot> slots_;
  std::vector<uint32_t> used_;  ///< Indices of occupied slots, for clear().
  uint64_t mask_ = 0;
  std::vector<uint32_t> dense_;
  std::vector<uint32_t> dense_used_;
  mutable int dense_sigil_ = -1;  ///< -1: not chosen yet; 0: none; else the char.
};

}  // namespace ksnap::norm::detail

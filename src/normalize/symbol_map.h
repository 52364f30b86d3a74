// A map from a name (a view into the IR buffer) to a symbol index, for the
// normalizer's hot path: no allocation per lookup. Numbered names (`%12`,
// `!7`, `#3`, `12`) index an array directly; other names go to a flat
// open-addressing table with an inline hash of the name.
//
//   SymbolMap m;
//   uint32_t v = m.find_or_insert("%x_3", next);   // next, inserted
//   uint32_t w = m.find_or_insert("%x_3", next+1); // next again: found
//   m.find_or_insert("%12", k);                     // array slot 12
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace ksnap::norm::detail {

class SymbolMap {
 public:
  static constexpr uint32_t kMissing = 0xFFFFFFFFu;
  /// Numbers below this use the array (it never grows past 1 MiB).
  static constexpr uint32_t kDenseLimit = 1u << 18;

  SymbolMap();

  /// The value stored for `key`, or stores `value` and returns it when `key`
  /// is new. `key` must stay valid while the map holds it.
  uint32_t find_or_insert(std::string_view key, uint32_t value);

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
  void grow();
  static uint64_t hash_of(std::string_view key);
  /// True (and *n set) when `key` is an optional one-char sigil plus a
  /// decimal number without leading zeros, below kDenseLimit, whose sigil is
  /// the one this map's array serves.
  bool dense_index(std::string_view key, uint32_t* n) const;

  std::vector<Slot> slots_;
  std::vector<uint32_t> used_;  ///< Indices of occupied slots, for clear().
  uint64_t mask_ = 0;
  std::vector<uint32_t> dense_;
  std::vector<uint32_t> dense_used_;
  mutable int dense_sigil_ = -1;  ///< -1: not chosen yet; 0: none; else the char.
};

}  // namespace ksnap::norm::detail

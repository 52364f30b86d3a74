// A flat open-addressing map from a name (a view into the IR buffer) to a
// symbol index, for the normalizer's hot path: no allocation per lookup, one
// XXH3 of the name, linear probing.
//
//   SymbolMap m;
//   uint32_t v = m.find_or_insert("%x_3", next);   // next, inserted
//   uint32_t w = m.find_or_insert("%x_3", next+1); // next again: found
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace ksnap::norm::detail {

class SymbolMap {
 public:
  static constexpr uint32_t kMissing = 0xFFFFFFFFu;

  SymbolMap();

  /// The value stored for `key`, or stores `value` and returns it when `key`
  /// is new. `key` must stay valid while the map holds it.
  uint32_t find_or_insert(std::string_view key, uint32_t value);

  /// The value for `key`, or kMissing.
  uint32_t find(std::string_view key) const;

  /// Forgets every key; O(number of keys), keeps the capacity.
  void clear();

  size_t size() const { return used_.size(); }

 private:
  struct Slot {
    const char* data = nullptr;
    uint32_t size = 0;
    uint32_t value = kMissing;
  };
  void grow();
  static uint64_t hash_of(std::string_view key);

  std::vector<Slot> slots_;
  std::vector<uint32_t> used_;  ///< Indices of occupied slots, for clear().
  uint64_t mask_ = 0;
};

}  // namespace ksnap::norm::detail

#include "normalize/symbol_map.h"

#include <cstring>

#include "ksnap/support/hash.h"

namespace ksnap::norm::detail {

SymbolMap::SymbolMap() : slots_(64), mask_(63) {}

uint64_t SymbolMap::hash_of(std::string_view key) { return hash64(key); }

uint32_t SymbolMap::find(std::string_view key) const {
  uint64_t i = hash_of(key) & mask_;
  while (true) {
    const Slot& s = slots_[i];
    if (s.value == kMissing) return kMissing;
    if (s.size == key.size() && std::memcmp(s.data, key.data(), key.size()) == 0) return s.value;
    i = (i + 1) & mask_;
  }
}

uint32_t SymbolMap::find_or_insert(std::string_view key, uint32_t value) {
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
    if (s.size == key.size() && std::memcmp(s.data, key.data(), key.size()) == 0) return s.value;
    i = (i + 1) & mask_;
  }
}

void SymbolMap::clear() {
  for (uint32_t i : used_) slots_[i] = Slot{};
  used_.clear();
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

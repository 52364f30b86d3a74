#include "normalize/symbol_map.h"

#include <algorithm>

#include "ksnap/support/hash.h"

namespace ksnap::norm::detail {

SymbolMap::SymbolMap() : slots_(256), mask_(255) {}

uint64_t SymbolMap::hash_long(std::string_view key) { return hash64(key); }

uint32_t SymbolMap::find(std::string_view key) const {
  uint32_t n;
  if (dense_index(key, &n)) return n < dense_.size() && !absent(dense_[n]) ? dense_[n] : kMissing;
  uint64_t i = hash_of(key) & mask_;
  while (true) {
    const Slot& s = slots_[i];
    if (s.value == kMissing) return kMissing;
    if (s.size == key.size() && same(s.data, key.data(), key.size())) {
      return s.value == kHidden ? kMissing : s.value;
    }
    i = (i + 1) & mask_;
  }
}

uint32_t& SymbolMap::dense_ref(uint32_t n) {
  if (n >= dense_.size()) {
    dense_.resize(std::min<size_t>(kDenseLimit, std::max<size_t>(n + 1, dense_.size() * 2)),
                  kMissing);
  }
  if (dense_[n] == kMissing) dense_used_.push_back(n);
  return dense_[n];
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

// OptionMap's shared storage; the worked example is in option_map.h.
#include "ksnap/build/option_map.h"

#include <unordered_map>

#include "ksnap/support/hash.h"

namespace ksnap::build {

const OptionMap::Map& OptionMap::map() const {
  static const Map kEmpty;
  return p_ ? *p_ : kEmpty;
}

std::string& OptionMap::operator[](const std::string& k) {
  if (!p_) {
    p_ = std::make_shared<Map>();
  } else if (p_.use_count() > 1) {
    p_ = std::make_shared<Map>(*p_);
  }
  return (*p_)[k];
}

void OptionMap::share_equal(const std::vector<OptionMap*>& maps) {
  // Content hash -> the first maps seen with it (equal hashes are compared
  // in full, so a collision only costs a comparison).
  std::unordered_map<uint64_t, std::vector<OptionMap*>> seen;
  for (OptionMap* m : maps) {
    if (!m->p_) continue;
    Hasher h;
    for (const auto& [k, v] : *m->p_) {
      h.update(k);
      h.update(std::string_view("\0", 1));
      h.update(v);
      h.update(std::string_view("\0", 1));
    }
    std::vector<OptionMap*>& same = seen[h.digest()];
    bool shared = false;
    for (OptionMap* first : same)
      if (first->p_ == m->p_ || *first->p_ == *m->p_) {
        m->p_ = first->p_;
        shared = true;
        break;
      }
    if (!shared) same.push_back(m);
  }
}

}  // namespace ksnap::build

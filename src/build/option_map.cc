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

void OptionMap::Pool::share(OptionMap* m) {
  if (!m->p_) return;
  // Content hash -> the maps seen with it (equal hashes are compared in
  // full, so a collision only costs a comparison).
  Hasher h;
  for (const auto& [k, v] : *m->p_) {
    h.update(k);
    h.update(std::string_view("\0", 1));
    h.update(v);
    h.update(std::string_view("\0", 1));
  }
  std::vector<std::shared_ptr<Map>>& same = seen_[h.digest()];
  for (const std::shared_ptr<Map>& first : same)
    if (first == m->p_ || *first == *m->p_) {
      m->p_ = first;
      return;
    }
  same.push_back(m->p_);
}

void OptionMap::share_equal(const std::vector<OptionMap*>& maps) {
  Pool pool;
  for (OptionMap* m : maps) pool.share(m);
}

}  // namespace ksnap::build

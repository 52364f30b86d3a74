// Claimed-name bookkeeping; the worked example is in claimed_names.h.
#include "diff/claimed_names.h"

namespace ksnap::diff {

namespace {

/// One fewer HEAD symbol shows `name`; the name goes at zero.
void release(std::unordered_map<std::string_view, uint32_t>* counts, std::string_view name) {
  auto it = counts->find(name);
  if (it != counts->end() && --it->second == 0) counts->erase(it);
}

}  // namespace

ClaimedNames::ClaimedNames(const norm::Module& base, const norm::Module& head)
    : base_(base), head_(head) {
  // Counting sort of HEAD symbols by unit; module scope and units out of
  // range are in no unit.
  const size_t units = head.units.size();
  unit_start_.assign(units + 1, 0);
  for (const norm::Symbol& s : head.symbols)
    if (s.unit >= 0 && static_cast<size_t>(s.unit) < units) ++unit_start_[s.unit + 1];
  for (size_t u = 0; u < units; ++u) unit_start_[u + 1] += unit_start_[u];
  by_unit_.resize(unit_start_[units]);
  std::vector<uint32_t> next(unit_start_.begin(), unit_start_.end() - 1);
  for (uint32_t h = 0; h < head.symbols.size(); ++h) {
    int32_t u = head.symbols[h].unit;
    if (u >= 0 && static_cast<size_t>(u) < units) by_unit_[next[u]++] = h;
  }
}

void ClaimedNames::add(uint32_t h, uint32_t b) {
  std::string_view name = base_.symbols[b].name;
  ++all_[name];
  if (head_.symbols[h].unit < 0) ++module_[name];
}

void ClaimedNames::remove(uint32_t h, uint32_t b) {
  std::string_view name = base_.symbols[b].name;
  release(&all_, name);
  if (head_.symbols[h].unit < 0) release(&module_, name);
}

void ClaimedNames::enter_unit(int32_t head_unit, const std::vector<int32_t>& map) {
  unit_.clear();
  if (head_unit < 0 || static_cast<size_t>(head_unit) + 1 >= unit_start_.size()) return;
  for (uint32_t k = unit_start_[head_unit]; k < unit_start_[head_unit + 1]; ++k) {
    uint32_t h = by_unit_[k];
    if (h < map.size() && map[h] >= 0) unit_.insert(base_.symbols[map[h]].name);
  }
}

}  // namespace ksnap::diff

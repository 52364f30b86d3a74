// Which BASE names the structural diff shows HEAD symbols by ("claimed"),
// kept up to date as the symbol correspondence changes, so that asking costs
// nothing per unit: a two-file diff stays linear in the number of functions.
//
// Worked example: BASE function @f has `%x` and `%y`; HEAD's @f has `%a`
// (BASE's `%x`, renamed) and a new value it calls `%x`. The diff maps HEAD
// `%a` -> BASE `%x` (add(a, x)) and leaves HEAD `%x` without counterpart.
// claimed("%x") is true, so HEAD's own `%x` is shown as `%h_x` and never
// reads as BASE's `%x`; claimed("%y") is false (no HEAD symbol is shown as
// BASE's `%y`), so a HEAD symbol called `%y` keeps its name. After
// enter_unit(@f), unit_claimed("%x") is true as well: a `%x` in text that is
// no symbol (values under --keep-values) reads `%h_x`. After enter_unit(@g)
// for another function @g it is false: @f's names are @f's own.
//
// Definitions (`map` = HEAD symbol -> BASE symbol, as add / remove left it):
//   claimed(n)       some mapped HEAD symbol h has name(map[h]) == n;
//   unit_claimed(n)  the same, h restricted to module scope (unit < 0) or
//                    the unit of the last enter_unit, as of that call.
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ksnap/normalize/normalize.h"

namespace ksnap::diff {

class ClaimedNames {
 public:
  /// `base` and `head` must outlive this (names are viewed, not copied).
  ClaimedNames(const norm::Module& base, const norm::Module& head);

  /// HEAD symbol `h` is now shown as BASE symbol `b` (ids in range).
  void add(uint32_t h, uint32_t b);
  /// Undoes one add(h, b).
  void remove(uint32_t h, uint32_t b);

  /// Takes the names shown for HEAD unit `head_unit`'s symbols from `map`
  /// (-1: unmapped); any other `head_unit` (no HEAD unit: -2) leaves module
  /// scope only. Costs the unit's symbols, not the module's.
  void enter_unit(int32_t head_unit, const std::vector<int32_t>& map);

  bool claimed(std::string_view name) const { return all_.count(name) != 0; }
  bool unit_claimed(std::string_view name) const {
    return module_.count(name) != 0 || unit_.count(name) != 0;
  }
  /// No name is unit_claimed.
  bool unit_none() const { return module_.empty() && unit_.empty(); }

 private:
  const norm::Module& base_;
  const norm::Module& head_;
  /// HEAD symbols by unit: those of unit u are by_unit_[unit_start_[u] ..
  /// unit_start_[u + 1]).
  std::vector<uint32_t> unit_start_, by_unit_;
  /// How many mapped HEAD symbols show each name: all of them / module scope.
  std::unordered_map<std::string_view, uint32_t> all_, module_;
  std::unordered_set<std::string_view> unit_;  // of the entered unit
};

}  // namespace ksnap::diff

// The normalizer's finishing pass (pass 2; engine.cc is pass 1, print.cc
// prints the result). Worked example, MLIR:
//   #blocked1 = #ttg.blocked<{sizePerThread = [4]}>   (alias, defined)
//   %7 = arith.addi %5, %6 : tensor<128xi32, #blocked1>
// `#blocked1` is live (a kept line uses it) and gets the hash of its
// definition, `#a<16 hex>`; `%7` is numbered by first occurrence in its
// unit (`%v2` when %5 and %6 came first); a `loc(#loc12)` reference
// follows #loc12 -> #loc3 -> "a.py":42 to give the line its py_line.
//
// Pass 2 (finish):
//   1. liveness: a conditional line (LLVM `!N = ...`, PTX `$L__tmp3:`, MLIR
//      `#blocked = ...`) survives only when a surviving line uses its symbol;
//   2. values and blocks (one symbol per definition for SSA names, made in
//      pass 1 by value_def / value_use with scopes) are numbered by first
//      occurrence within their unit (per mask, so PTX `%r` and `%rd` count
//      separately);
//   3. aliases, metadata and attribute groups get the hash of their
//      definition, nested references resolved first (cycles are cut by
//      their distance on the resolution stack; `distinct` nodes of equal
//      content are told apart by the order the kept lines reach them;
//      symbols never defined are numbered by first reference);
//   4. py_line follows location symbols (`#loc12` -> `#loc3` -> file:line).

#include "normalize/engine.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "ksnap/support/hash.h"
#include "normalize/canonical.h"

namespace ksnap::norm::detail {

namespace {
constexpr int kMaxResolveDepth = 400;
constexpr uint32_t kResolveBudget = 4'000'000;
constexpr int kMaxPyChain = 64;
}  // namespace

void Engine::finish() {
  mark_live();
  if (unit_lines_.size() < units_.size()) unit_lines_.resize(units_.size());
  for (auto& v : unit_lines_) v.clear();
  for (uint32_t i = 0; i < lines_.size(); ++i) {
    if (kept_[i]) unit_lines_[lines_[i].unit].push_back(i);
  }
  number_symbols();
  resolve_budget_ = kResolveBudget;
  fallback_symbols_ = 0;
  resolve_globals();
  if (salt_distinct()) resolve_globals();
  resolve_py();
}

void Engine::resolve_globals() {
  auto resolve_line = [&](const LineRec& l) {
    for (uint32_t k = l.occ_begin; k < l.occ_end; ++k) {
      uint32_t s = occs_[k].sym;
      SymRec& r = syms_[s];
      if (r.unit == kNone && !r.resolved) {
        int32_t min_ref = INT32_MAX;
        uint64_t c = resolve(s, 0, &min_ref);
        SymRec& r2 = syms_[s];
        r2.canonical = c;
        r2.resolved = true;
        print_name(r2);
      }
    }
  };
  std::vector<uint32_t> later;  // order-free lines, after all others
  for (uint32_t i = 0; i < lines_.size(); ++i) {
    if (!kept_[i]) continue;
    if (lines_[i].order_free) later.push_back(i);
    else resolve_line(lines_[i]);
  }
  for (uint32_t i : later) resolve_line(lines_[i]);
}

void Engine::visit_global(uint32_t sym, int depth, std::vector<uint32_t>* order) {
  SymRec& r = syms_[sym];
  if (r.unit != kNone || r.stack_pos == -2 || depth > kMaxResolveDepth) return;
  r.stack_pos = -2;  // visited (reset by salt_distinct)
  if (r.distinct) order->push_back(sym);
  if (r.def_line == kNone || r.dropped) return;
  const LineRec& l = lines_[r.def_line];
  for (uint32_t k = r.def_occ; k < l.occ_end; ++k) visit_global(occs_[k].sym, depth + 1, order);
}

bool Engine::salt_distinct() {
  // Distinct nodes with equal content: only LLVM, and rare (inlining copies
  // alias scopes); nothing to do unless two collide.
  std::vector<std::pair<uint64_t, uint32_t>> dist;
  for (uint32_t s = 0; s < syms_.size(); ++s) {
    if (syms_[s].distinct && syms_[s].resolved && !syms_[s].dropped)
      dist.emplace_back(syms_[s].canonical, s);
  }
  std::sort(dist.begin(), dist.end());
  bool collide = false;
  for (size_t k = 1; k < dist.size(); ++k) collide |= dist[k].first == dist[k - 1].first;
  if (!collide) return false;
  // First reach from the kept lines, in the order resolve_globals() uses.
  std::vector<uint32_t> order;
  for (int pass = 0; pass < 2; ++pass) {
    for (uint32_t i = 0; i < lines_.size(); ++i) {
      const LineRec& l = lines_[i];
      if (!kept_[i] || l.order_free != (pass == 1)) continue;
      for (uint32_t k = l.occ_begin; k < l.occ_end; ++k) visit_global(occs_[k].sym, 0, &order);
    }
  }
  std::vector<uint32_t> rank(syms_.size(), kNone);
  for (uint32_t k = 0; k < order.size(); ++k) rank[order[k]] = k;
  std::stable_sort(dist.begin(), dist.end(), [&](const auto& x, const auto& y) {
    return x.first != y.first ? x.first < y.first : rank[x.second] < rank[y.second];
  });
  for (size_t k = 1; k < dist.size(); ++k) {
    if (dist[k].first == dist[k - 1].first) syms_[dist[k].second].salt = syms_[dist[k - 1].second].salt + 1;
  }
  for (SymRec& r : syms_) {
    if (r.stack_pos == -2) r.stack_pos = -1;
    // Resolve again every defined global (their content may name a salted node).
    if (r.unit == kNone && r.def_line != kNone && !r.dropped) r.resolved = false;
  }
  resolve_budget_ = kResolveBudget;
  fallback_symbols_ = 0;  // the globals resolve again
  return true;
}

void Engine::mark_live() {
  kept_.assign(lines_.size(), false);
  std::vector<uint32_t> work;
  // MLIR prints only aliases that something uses; an alias nothing names at
  // all (not even dropped debug info: SymRec::referenced, set by the
  // handler) is text the author wrote: kept, so that changing it is a change.
  for (uint32_t i = 0; i < lines_.size(); ++i) {
    uint32_t c = lines_[i].cond_sym;
    if (c == kNone || (dialect_ == ir::Dialect::kMlir && syms_[c].cls == SymbolClass::kAlias &&
                       !syms_[c].referenced && !syms_[c].debug_ref)) {
      kept_[i] = true;
      work.push_back(i);
    }
  }
  while (!work.empty()) {
    uint32_t i = work.back();
    work.pop_back();
    const LineRec& l = lines_[i];
    for (uint32_t k = l.occ_begin; k < l.occ_end; ++k) {
      SymRec& s = syms_[occs_[k].sym];
      if (s.live) continue;
      if (occs_[k].is_def && lines_[i].cond_sym == occs_[k].sym) continue;  // own definition
      s.live = true;
      uint32_t d = s.def_line;
      if (d != kNone && !kept_[d] && lines_[d].cond_sym == occs_[k].sym) {
        kept_[d] = true;
        work.push_back(d);
      }
    }
  }
  // Symbols defined on a conditional line that never became live can still
  // be named by conditional lines elsewhere; those lines are gone too.
}

void Engine::number_symbols() {
  std::vector<std::pair<std::string_view, uint64_t>> counters;
  for (uint32_t u = 0; u < units_.size(); ++u) {
    counters.clear();
    for (uint32_t i : unit_lines_[u]) {
      const LineRec& l = lines_[i];
      for (uint32_t k = l.occ_begin; k < l.occ_end; ++k) {
        SymRec& s = syms_[occs_[k].sym];
        if (s.unit == kNone || s.resolved) continue;
        uint64_t* c = nullptr;
        for (auto& [mask, n] : counters) {
          if (mask == s.mask) {
            c = &n;
            break;
          }
        }
        if (!c) {
          counters.emplace_back(s.mask, 0);
          c = &counters.back().second;
        }
        s.canonical = (*c)++;
        s.resolved = true;
        print_name(s);
      }
    }
  }
}

void Engine::print_name(SymRec& s) {
  if (s.cls == SymbolClass::kValue || s.cls == SymbolClass::kBlock) {
    // The common case, without a std::string: mask (or %v / ^b) + number.
    std::string_view head = s.mask == "%_" ? "%v" : s.mask == "^" ? "^b" : s.mask;
    if (head.size() >= sizeof s.printed) return;  // printed on the fly instead
    std::memcpy(s.printed, head.data(), head.size());
    auto r = std::to_chars(s.printed + head.size(), s.printed + sizeof s.printed, s.canonical);
    if (r.ec == std::errc()) s.printed_len = static_cast<uint8_t>(r.ptr - s.printed);
    return;
  }
  std::string name;
  append_canonical_name(name, s.cls, s.mask, s.canonical);
  if (name.size() <= sizeof s.printed) {
    std::memcpy(s.printed, name.data(), name.size());
    s.printed_len = static_cast<uint8_t>(name.size());
  }
}

uint64_t Engine::resolve(uint32_t sym, int depth, int32_t* min_ref) {
  SymRec& r = syms_[sym];
  uint64_t seed = static_cast<uint64_t>(r.cls) * 0x9E3779B97F4A7C15ull + 1 +
                  static_cast<uint64_t>(r.salt) * 0xD6E8FEB86659FD93ull;
  if (r.resolved) return r.canonical;
  if (r.stack_pos >= 0) {  // a cycle: name it by its distance on the stack
    *min_ref = std::min(*min_ref, r.stack_pos);
    uint64_t dist = stack_.size() - static_cast<uint64_t>(r.stack_pos);
    return hash64(std::string_view(reinterpret_cast<const char*>(&dist), sizeof dist), seed ^ 7);
  }
  if (r.dropped) {
    r.canonical = hash64("dropped", seed);
    r.resolved = true;
    return r.canonical;
  }
  if (r.def_line == kNone) {
    // Never defined here: numbered by first reference (per class), so that
    // renumbering an undefined `#5` or `!7` changes nothing.
    uint64_t n = undefined_count_[static_cast<int>(r.cls)]++;
    r.canonical = hash64(std::string_view(reinterpret_cast<const char*>(&n), sizeof n), seed ^ 0x5555);
    r.resolved = true;
    return r.canonical;
  }
  if (depth > kMaxResolveDepth || resolve_budget_ == 0) {
    // Pathological input: the name is all we know. Stated in Module::fallback.
    if (fallback_symbols_++ == 0) {
      fallback_first_ = std::string(r.name);
      fallback_why_ = depth > kMaxResolveDepth ? "definitions nested over 400 deep"
                                               : "over 4,000,000 resolution steps";
    }
    r.canonical = hash64(r.name, seed ^ 0x5556);
    r.resolved = true;
    return r.canonical;
  }
  --resolve_budget_;
  int32_t my_pos = static_cast<int32_t>(stack_.size());
  r.stack_pos = my_pos;
  stack_.push_back(sym);
  const LineRec& l = lines_[r.def_line];
  std::string content;
  uint32_t pos = std::min(r.def_shape, l.shape_end);
  int32_t sub_min = INT32_MAX;
  for (uint32_t k = r.def_occ; k < l.occ_end; ++k) {
    const Occ& o = occs_[k];
    if (o.shape_off < pos) continue;
    content.append(shape_.data() + pos, o.shape_off - pos);
    const SymRec& t = syms_[o.sym];
    uint64_t c = t.canonical;
    if (t.unit == kNone) c = resolve(o.sym, depth + 1, &sub_min);
    append_canonical_name(content, t.cls, t.mask, c);
    pos = o.shape_off + o.mask_len;
  }
  content.append(shape_.data() + pos, l.shape_end - pos);
  uint64_t h = hash64(content, seed);
  stack_.pop_back();
  SymRec& r2 = syms_[sym];
  r2.stack_pos = -1;
  if (sub_min >= my_pos) {
    r2.canonical = h;
    r2.resolved = true;
  } else {
    *min_ref = std::min(*min_ref, sub_min);
  }
  return h;
}

void Engine::resolve_py() {
  for (uint32_t i = 0; i < lines_.size(); ++i) {
    LineRec& l = lines_[i];
    if (l.py_line >= 0 || l.py_sym == kNone) continue;
    uint32_t s = l.py_sym;
    for (int step = 0; step < kMaxPyChain && s != kNone; ++step) {
      const SymRec& r = syms_[s];
      if (r.py_line >= 0) {
        l.py_line = r.py_line;
        break;
      }
      s = r.py_sym;
    }
  }
}

}  // namespace ksnap::norm::detail

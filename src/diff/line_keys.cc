// Line keys for the structural diff; the worked example is in line_keys.h.
#include "diff/line_keys.h"

#include <unordered_map>

#include "ksnap/support/hash.h"

namespace ksnap::diff {

namespace {

bool is_local(norm::SymbolClass c) {
  return c == norm::SymbolClass::kValue || c == norm::SymbolClass::kBlock;
}

uint64_t mix(uint64_t a, uint64_t b) {
  uint64_t x = a ^ (b + 0x9E3779B97F4A7C15ull + (a << 6) + (a >> 2));
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return x;
}

constexpr uint64_t kNoDef = 0x6E6F64656600ull;  // an operand defined nowhere in the unit

}  // namespace

uint64_t canonical_key(const norm::Module& m, const norm::Line& l) {
  Hasher h;
  h.update(l.shape);
  for (const norm::SymbolRef& s : l.symbols) {
    const norm::Symbol& sym = m.symbols[s.id];
    h.update_u64(sym.canonical ^ (static_cast<uint64_t>(sym.cls) << 56));
  }
  return h.digest();
}

std::vector<std::vector<uint64_t>> neighbourhood_keys(const norm::Module& m, const LineSeq& lines,
                                                      int levels) {
  const size_t n = lines.size();
  std::vector<std::vector<uint64_t>> out(static_cast<size_t>(levels));
  if (levels <= 0) return out;
  std::vector<uint64_t>& base = out[static_cast<size_t>(levels) - 1];
  base.resize(n);
  std::unordered_map<uint32_t, uint32_t> def_of;  // local symbol -> defining line
  for (uint32_t i = 0; i < n; ++i) {
    const norm::Line& l = *lines[i];
    Hasher h;
    h.update(l.shape);
    for (const norm::SymbolRef& s : l.symbols) {
      const norm::Symbol& sym = m.symbols[s.id];
      if (is_local(sym.cls)) {
        if (s.is_def) def_of.emplace(s.id, i);
      } else {
        h.update_u64(sym.canonical);
      }
    }
    base[i] = h.digest();
  }
  // Operand definitions per line (kNone-like marker when defined elsewhere),
  // and users per line.
  std::vector<std::vector<uint32_t>> operands(n), users(n);
  constexpr uint32_t kNone = 0xFFFFFFFFu;
  for (uint32_t i = 0; i < n; ++i) {
    for (const norm::SymbolRef& s : lines[i]->symbols) {
      if (s.is_def || !is_local(m.symbols[s.id].cls)) continue;
      auto it = def_of.find(s.id);
      uint32_t d = it == def_of.end() ? kNone : it->second;
      operands[i].push_back(d);
      if (d != kNone && d != i) users[d].push_back(i);
    }
  }
  for (int level = levels - 2; level >= 0; --level) {
    const std::vector<uint64_t>& prev = out[static_cast<size_t>(level) + 1];
    std::vector<uint64_t>& cur = out[static_cast<size_t>(level)];
    cur.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      uint64_t k = mix(prev[i], 1);
      for (uint32_t d : operands[i]) k = mix(k, d == kNone ? kNoDef : prev[d]);
      uint64_t u = 0;  // users as a set: order of use does not matter
      for (uint32_t j : users[i]) u += mix(prev[j], 2);
      cur[i] = mix(k, u);
    }
  }
  return out;
}

}  // namespace ksnap::diff

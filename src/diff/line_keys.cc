// Line keys for the structural diff; the worked example is in line_keys.h.
#include "diff/line_keys.h"

#include <algorithm>
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
constexpr size_t kMaxConeSteps = 256;

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

namespace {

/// The lines, their base keys and their def-use edges.
/// An edge: the line at the other end, and which of its definitions (for an
/// operand) or which of its operands (for a user) it goes through, so that
/// `{ %r1, %r2 } = ld ...` tells apart its two results.
struct Edge {
  uint32_t line;
  uint32_t slot;
};

struct Graph {
  std::vector<uint64_t> base;
  std::vector<std::vector<Edge>> operands, users;  // line kNone: defined nowhere in the unit
};

constexpr uint32_t kNone = 0xFFFFFFFFu;

Graph graph_of(const norm::Module& m, const LineSeq& lines) {
  const size_t n = lines.size();
  Graph g;
  std::vector<uint64_t>& base = g.base;
  base.resize(n);
  std::unordered_map<uint32_t, Edge> first_def;  // local symbol -> its first definition
  for (uint32_t i = 0; i < n; ++i) {
    const norm::Line& l = *lines[i];
    Hasher h;
    h.update(l.shape);
    uint32_t defs = 0;
    for (const norm::SymbolRef& s : l.symbols) {
      const norm::Symbol& sym = m.symbols[s.id];
      if (is_local(sym.cls)) {
        if (s.is_def) first_def.emplace(s.id, Edge{i, defs++});
      } else {
        h.update_u64(sym.canonical);
      }
    }
    base[i] = h.digest();
  }
  // Operand definitions per line (kNone when defined nowhere in the unit),
  // and users per line. A use names the latest definition above it: PTX
  // registers are written many times, SSA values once (then it is the
  // definition, wherever it is: a phi's operand may come from below).
  std::vector<std::vector<Edge>>& operands = g.operands;
  std::vector<std::vector<Edge>>& users = g.users;
  operands.resize(n);
  users.resize(n);
  std::unordered_map<uint32_t, Edge> latest_def;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t slot = 0;
    for (const norm::SymbolRef& s : lines[i]->symbols) {
      if (s.is_def || !is_local(m.symbols[s.id].cls)) continue;
      Edge d{kNone, 0};
      if (auto it = latest_def.find(s.id); it != latest_def.end()) d = it->second;
      else if (auto f = first_def.find(s.id); f != first_def.end()) d = f->second;
      operands[i].push_back(d);
      if (d.line != kNone && d.line != i) users[d.line].push_back(Edge{i, slot});
      ++slot;
    }
    uint32_t defs = 0;
    for (const norm::SymbolRef& s : lines[i]->symbols)
      if (s.is_def && is_local(m.symbols[s.id].cls)) latest_def[s.id] = Edge{i, defs++};
  }
  return g;
}

/// One step of both cones.
class Cones {
 public:
  explicit Cones(const Graph& g) : g_(g), down(g.base), up(g.base), nd_(g.base.size()), nu_(g.base.size()) {}
  void step() {
    for (uint32_t i = 0; i < down.size(); ++i) {
      uint64_t d = mix(down[i], 1);
      for (const Edge& o : g_.operands[i]) d = mix(d, o.line == kNone ? kNoDef : mix(down[o.line], o.slot));
      uint64_t u = 0;  // users as a set: order of use does not matter
      for (const Edge& j : g_.users[i]) u += mix(up[j.line], j.slot + 2);
      nd_[i] = d;
      nu_[i] = mix(up[i], u);
    }
    down.swap(nd_);
    up.swap(nu_);
  }
  size_t distinct() { return count(down) + count(up); }

 private:
  /// Number of distinct values of `v`, exactly: an open-addressing set in a
  /// table reused across steps (0 marks an empty slot, so a 0 value is
  /// counted apart).
  size_t count(const std::vector<uint64_t>& v) {
    size_t cap = 16;
    int shift = 60;
    while (cap < 2 * v.size()) cap <<= 1, --shift;
    table_.assign(cap, 0);
    size_t n = 0;
    bool zero = false;
    for (uint64_t x : v) {
      if (x == 0) {
        zero = true;
        continue;
      }
      for (size_t i = (x * 0x9E3779B97F4A7C15ull) >> shift;; i = (i + 1) & (cap - 1)) {
        if (table_[i] == x) break;
        if (table_[i] == 0) {
          table_[i] = x;
          ++n;
          break;
        }
      }
    }
    return n + (zero ? 1 : 0);
  }
  const Graph& g_;

 public:
  std::vector<uint64_t> down, up;

 private:
  std::vector<uint64_t> nd_, nu_, table_;
};

}  // namespace

struct ConeKeys::State {
  State(const norm::Module& m, const LineSeq& lines, int steps)
      : g(graph_of(m, lines)),
        cones(g),
        k_steps(static_cast<size_t>(std::max(steps, 1))),
        out(k_steps + 5) {}
  /// One more step of the cones; keeps the levels of the first k_steps.
  void advance() {
    cones.step();
    ++done;
    if (done <= k_steps) {
      std::vector<uint64_t>& both = out[k_steps - done];
      both.resize(cones.down.size());
      for (size_t i = 0; i < both.size(); ++i) both[i] = mix(cones.down[i], cones.up[i]);
    }
    if (done == k_steps) {
      out[k_steps + 2] = cones.down;
      out[k_steps + 3] = cones.up;
    }
  }
  Graph g;
  Cones cones;
  size_t k_steps;
  size_t done = 0;  // steps taken
  std::vector<std::vector<uint64_t>> out;
};

ConeKeys::ConeKeys(const norm::Module& m, const LineSeq& lines, int steps)
    : s_(std::make_unique<State>(m, lines, steps)) {}
ConeKeys::~ConeKeys() = default;

int ConeKeys::whole_steps() {
  if (whole_ >= 0) return whole_;
  State& s = *s_;
  // The cones are already s.done steps deep only if keys() ran: not allowed.
  size_t seen = s.cones.distinct();
  int steps = 0;
  while (static_cast<size_t>(steps) < kMaxConeSteps) {
    s.advance();
    ++steps;
    size_t now = s.cones.distinct();
    if (now == seen) break;
    seen = now;
  }
  whole_ = steps;
  return whole_;
}

std::vector<std::vector<uint64_t>> ConeKeys::keys(int whole_steps) {
  State& s = *s_;
  const size_t target = std::max(s.k_steps, static_cast<size_t>(std::max(whole_steps, 0)));
  while (s.done < target) s.advance();
  s.out[s.k_steps] = std::move(s.cones.down);
  s.out[s.k_steps + 1] = std::move(s.cones.up);
  s.out[s.k_steps + 4] = std::move(s.g.base);
  return std::move(s.out);
}

int whole_cone_steps(const norm::Module& m, const LineSeq& lines) {
  return ConeKeys(m, lines, 1).whole_steps();
}

std::vector<std::vector<uint64_t>> neighbourhood_keys(const norm::Module& m, const LineSeq& lines,
                                                      int steps, int whole_steps) {
  // Two cones per line, kept apart so that a line used everywhere (a
  // function's arguments, a constant) does not pass every change of its
  // users on to all its other users: `down` folds in the operands'
  // definitions (what the line computes from), `up` the users (what it is
  // used for).
  return ConeKeys(m, lines, steps).keys(whole_steps);
}

}  // namespace ksnap::diff

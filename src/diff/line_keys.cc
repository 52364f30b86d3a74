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
  /// Line i's operand definitions are ops[op_begin[i] .. op_begin[i + 1])
  /// in operand order (line kNone: defined nowhere in the unit); its users
  /// are uses[use_begin[i] .. use_begin[i + 1]).
  std::vector<uint32_t> op_begin, use_begin;
  std::vector<Edge> ops, uses;
};

constexpr uint32_t kNone = 0xFFFFFFFFu;

/// Local symbol id -> an edge: a dense array over the unit's id range
/// when it is compact (symbols are numbered as a unit is read, so it
/// usually is), else a hash map.
class DefTable {
 public:
  DefTable(uint32_t lo, uint32_t hi, size_t lines) : lo_(lo) {
    if (lo <= hi && hi - lo < 8 * lines + 1024) dense_.assign(hi - lo + 1, Edge{kNone, 0});
  }
  const Edge* find(uint32_t id) const {
    if (!dense_.empty()) {
      const Edge& e = dense_[id - lo_];
      return e.line == kNone ? nullptr : &e;
    }
    auto it = map_.find(id);
    return it == map_.end() ? nullptr : &it->second;
  }
  void set(uint32_t id, Edge e) { dense_.empty() ? (void)(map_[id] = e) : (void)(dense_[id - lo_] = e); }
  /// Sets only when not set yet.
  void set_first(uint32_t id, Edge e) {
    if (!dense_.empty()) {
      if (dense_[id - lo_].line == kNone) dense_[id - lo_] = e;
    } else {
      map_.emplace(id, e);
    }
  }

 private:
  uint32_t lo_;
  std::vector<Edge> dense_;
  std::unordered_map<uint32_t, Edge> map_;
};

Graph graph_of(const norm::Module& m, const LineSeq& lines) {
  const uint32_t n = static_cast<uint32_t>(lines.size());
  Graph g;
  std::vector<uint64_t>& base = g.base;
  base.resize(n);
  uint32_t lo = kNone, hi = 0;
  for (const norm::Line* l : lines)
    for (const norm::SymbolRef& s : l->symbols)
      if (is_local(m.symbols[s.id].cls)) lo = std::min(lo, s.id), hi = std::max(hi, s.id);
  DefTable first_def(lo, hi, n);  // local symbol -> its first definition
  for (uint32_t i = 0; i < n; ++i) {
    const norm::Line& l = *lines[i];
    Hasher h;
    h.update(l.shape);
    uint32_t defs = 0;
    for (const norm::SymbolRef& s : l.symbols) {
      const norm::Symbol& sym = m.symbols[s.id];
      if (is_local(sym.cls)) {
        if (s.is_def) first_def.set_first(s.id, Edge{i, defs++});
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
  g.op_begin.resize(n + 1);
  std::vector<uint32_t> user_count(n + 1, 0);
  DefTable latest_def(lo, hi, n);
  for (uint32_t i = 0; i < n; ++i) {
    g.op_begin[i] = static_cast<uint32_t>(g.ops.size());
    uint32_t slot = 0;
    for (const norm::SymbolRef& s : lines[i]->symbols) {
      if (s.is_def || !is_local(m.symbols[s.id].cls)) continue;
      Edge d{kNone, 0};
      if (const Edge* e = latest_def.find(s.id)) d = *e;
      else if (const Edge* f = first_def.find(s.id)) d = *f;
      g.ops.push_back(d);
      if (d.line != kNone && d.line != i) ++user_count[d.line];
      ++slot;
    }
    uint32_t defs = 0;
    for (const norm::SymbolRef& s : lines[i]->symbols)
      if (s.is_def && is_local(m.symbols[s.id].cls)) latest_def.set(s.id, Edge{i, defs++});
  }
  g.op_begin[n] = static_cast<uint32_t>(g.ops.size());
  // Users, each line's in line order (their keys are summed: any order gives the same).
  g.use_begin.resize(n + 1);
  uint32_t at = 0;
  for (uint32_t i = 0; i < n; ++i) g.use_begin[i] = at, at += user_count[i];
  g.use_begin[n] = at;
  g.uses.resize(at);
  std::vector<uint32_t> fill(g.use_begin.begin(), g.use_begin.end() - 1);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t slot = 0;
    for (uint32_t k = g.op_begin[i]; k < g.op_begin[i + 1]; ++k, ++slot) {
      const Edge& d = g.ops[k];
      if (d.line != kNone && d.line != i) g.uses[fill[d.line]++] = Edge{i, slot};
    }
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
      for (uint32_t k = g_.op_begin[i]; k < g_.op_begin[i + 1]; ++k) {
        const Edge& o = g_.ops[k];
        d = mix(d, o.line == kNone ? kNoDef : mix(down[o.line], o.slot));
      }
      uint64_t u = 0;  // users as a set: order of use does not matter
      for (uint32_t k = g_.use_begin[i]; k < g_.use_begin[i + 1]; ++k) {
        const Edge& j = g_.uses[k];
        u += mix(up[j.line], j.slot + 2);
      }
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

// The normalizer's common machinery (see engine.h for the worked example).
//
// Pass 1 (scan): lex line by line; check brackets; the dialect handler writes
// the shape and the symbol occurrences of each line.
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

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }
}  // namespace

void Scratch::reset() {
  occs.clear();
  drops.clear();
  lines.clear();
  syms.clear();
  units.clear();
  kept.clear();
  for (auto& v : unit_lines) v.clear();
  globals.clear();
  module_values.clear();
  module_blocks.clear();
  unit_values.clear();
  unit_blocks.clear();
  defs_this_line.clear();
  stack.clear();
  undo.clear();
  scope_marks.clear();
  deferred.clear();
}

namespace {

Scratch* acquire_scratch(std::unique_ptr<Scratch>& owned) {
  thread_local Scratch mine;
  if (!mine.in_use) {
    mine.in_use = true;
    mine.reset();
    return &mine;
  }
  owned = std::make_unique<Scratch>();  // re-entered on this thread
  owned->in_use = true;
  return owned.get();
}

}  // namespace

Engine::~Engine() { scratch_->in_use = false; }

Engine::Engine(const TextBuffer& text, ir::Dialect dialect, const NormalizeOptions& opts,
               bool full)
    : scratch_(acquire_scratch(owned_)),
      text_(text),
      base_(text.c_str()),
      dialect_(dialect),
      opts_(opts),
      full_(full),
      shape_(scratch_->shape),
      occs_(scratch_->occs),
      drops_(scratch_->drops),
      lines_(scratch_->lines),
      syms_(scratch_->syms),
      units_(scratch_->units),
      kept_(scratch_->kept),
      unit_lines_(scratch_->unit_lines),
      globals_(scratch_->globals),
      module_values_(scratch_->module_values),
      module_blocks_(scratch_->module_blocks),
      unit_values_(scratch_->unit_values),
      unit_blocks_(scratch_->unit_blocks),
      toks_(scratch_->toks),
      defs_this_line_(scratch_->defs_this_line),
      stack_(scratch_->stack),
      undo_(scratch_->undo),
      scope_marks_(scratch_->scope_marks),
      deferred_(scratch_->deferred) {
  switch (dialect) {
    case ir::Dialect::kMlir: handler_ = make_mlir_handler(); break;
    case ir::Dialect::kLlvm: handler_ = make_llvm_handler(); break;
    case ir::Dialect::kPtx: handler_ = make_ptx_handler(); break;
    case ir::Dialect::kAmdgcn:
    case ir::Dialect::kSpirv: handler_ = make_asm_handler(dialect); break;
    case ir::Dialect::kSass: handler_ = make_sass_handler(); break;
  }
  // `<`/`>` pair up in MLIR types, LLVM vectors and PTX `%r<N>`; assembly
  // expressions use them as operators (`1<<4`).
  check_angles_ = dialect == ir::Dialect::kMlir || dialect == ir::Dialect::kLlvm ||
                  dialect == ir::Dialect::kPtx;
  units_.push_back(UnitRec{});
  shape_.grow(0, text.size() + 4096);
  if (toks_.size() < 256) toks_.resize(256);
}

Status Engine::error_at(size_t offset, std::string message) const {
  return make_error(ErrorCode::kParseError, std::move(message), text_.location_of(offset));
}

Status Engine::run() {
  Status s = scan();
  if (!s.is_ok()) return s;
  finish();
  return Status::ok();
}

Status Engine::scan() {
  ir::Lexer lx(base_, text_.size(), dialect_);
  lx.check_brackets(check_angles_);  // unbalanced / unclosed brackets are lexer errors
  uint32_t line_no = 1;
  uint32_t line_begin = 0;
  depth_at_line_start_ = 0;
  while (true) {
    // toks_ is used as an array (its size is its capacity): no per-token
    // bookkeeping; it grows only for a line with more tokens than ever.
    uint32_t newlines_before = lx.inner_newlines();
    size_t ntoks = 0, got = 0;
    ir::Token end_tok;
    while (!lx.next_line(toks_.data() + ntoks, toks_.size() - ntoks, &got, &end_tok)) {
      ntoks += got;
      toks_.resize(toks_.size() * 2);
    }
    ntoks += got;
    if (end_tok.kind == ir::TokenKind::kError) {
      return error_at(lx.error_offset(), std::string(lx.error_message()));
    }
    uint32_t end = off(end_tok);
    if (end - line_begin > opts_.max_line_bytes) {
      return error_at(line_begin, "line is " + std::to_string(end - line_begin) +
                                      " bytes long, over max_line_bytes (" +
                                      std::to_string(opts_.max_line_bytes) + ")");
    }
    depth_after_ = lx.brace_depth();
    begin_line(line_no, line_begin, end);
    handler_->line(*this, std::span<const ir::Token>(toks_.data(), ntoks));
    end_line(end);
    if (end_tok.kind == ir::TokenKind::kEof) return Status::ok();
    line_no += 1 + (lx.inner_newlines() - newlines_before);
    line_begin = end + 1;
    depth_at_line_start_ = depth_after_;
  }
}

void Engine::begin_line(uint32_t line_no, uint32_t src_begin, uint32_t src_end) {
  // A shape is at most 4x its line: one space per token, masks at most 3x
  // the name they replace (`#0` -> `#attrs`).
  size_t need = size_t{shape_len_} + 4 * size_t{src_end - src_begin} + 64;
  shape_.grow(shape_len_, need);
  cur_ = LineRec{};
  cur_.line_no = line_no;
  cur_.unit = unit_;
  cur_.shape_begin = shape_len_;
  cur_.occ_begin = static_cast<uint32_t>(occs_.size());
  cur_.drop_begin = static_cast<uint32_t>(drops_.size());
  cur_.src_begin = src_begin;
  cur_.depth = static_cast<uint16_t>(std::min<uint32_t>(depth_at_line_start_, 0xFFFF));
  skip_ = false;
  defs_this_line_.clear();
}

void Engine::end_line(uint32_t src_end) {
  if (skip_ || shape_len_ == cur_.shape_begin) {
    shape_len_ = cur_.shape_begin;
    occs_.resize(cur_.occ_begin);
    drops_.resize(cur_.drop_begin);
    for (uint32_t s : defs_this_line_) syms_[s].def_line = kNone;
    return;
  }
  cur_.shape_end = shape_len_;
  cur_.occ_end = static_cast<uint32_t>(occs_.size());
  cur_.drop_end = static_cast<uint32_t>(drops_.size());
  cur_.src_end = src_end;
  lines_.push_back(cur_);
}

void Engine::start_unit(std::string_view name) {
  units_.push_back(UnitRec{name});
  unit_ = static_cast<uint32_t>(units_.size() - 1);
  unit_values_.clear();
  unit_blocks_.clear();
  cur_.unit = unit_;
  unit_scope_ = static_cast<uint32_t>(scope_marks_.size()) + 1;  // the body's `{`
}

void Engine::end_unit() { unit_ = 0; }

uint32_t Engine::lookup(SymbolMap& map, std::string_view key, SymbolClass cls,
                       std::string_view mask, uint32_t unit) {
  uint32_t next = static_cast<uint32_t>(syms_.size());
  uint32_t r = map.find_or_insert(key, next);
  if (r == next) {
    new_symbol(key, cls, mask);
    syms_.back().unit = unit;
  }
  return r;
}

uint32_t Engine::new_symbol(std::string_view key, SymbolClass cls, std::string_view mask) {
  SymRec& s = syms_.emplace_back();  // in place: no 120-byte copy through the stack
  s.name = key;
  s.mask = mask;
  s.unit = unit_;
  s.cls = cls;
  return static_cast<uint32_t>(syms_.size() - 1);
}

void Engine::bind(SymbolMap& map, uint32_t& slot, std::string_view key, uint32_t sym) {
  // Bindings in a unit's own scope need no undoing: the unit's names are
  // all forgotten when the next unit starts.
  if (scope_marks_.size() > (unit_ ? unit_scope_ : 0)) undo_.push_back(Undo{&map, key, slot, unit_});
  slot = sym;
}

uint32_t Engine::def_in(SymbolMap& map, std::string_view key, SymbolClass cls,
                        std::string_view mask) {
  uint32_t& slot = map.ref(key);
  if (!SymbolMap::absent(slot) && syms_[slot].pending) {  // a forward reference
    syms_[slot].pending = false;
    return slot;
  }
  uint32_t s = new_symbol(key, cls, mask);  // touches syms_ only: `slot` stays valid
  bind(map, slot, key, s);
  return s;
}

uint32_t Engine::use_in(SymbolMap& map, std::string_view key, SymbolClass cls,
                        std::string_view mask) {
  uint32_t& slot = map.ref(key);
  if (!SymbolMap::absent(slot)) return slot;
  uint32_t s = new_symbol(key, cls, mask);
  syms_[s].pending = true;
  if (cls == SymbolClass::kBlock) {
    bind(map, slot, key, s);  // a block label is known in its region only
  } else {
    slot = s;  // a value named before its definition, or never defined: unit-wide
  }
  return s;
}

uint32_t Engine::value_declared(std::string_view key, std::string_view mask, uint32_t decl) {
  SymbolMap& map = unit_ ? unit_values_ : module_values_;
  uint32_t& slot = map.ref(key);
  if (!SymbolMap::absent(slot) && syms_[slot].decl == decl) return slot;
  uint32_t s = new_symbol(key, SymbolClass::kValue, mask);
  syms_[s].decl = decl;
  bind(map, slot, key, s);
  return s;
}

uint32_t Engine::value_def_after_regions(std::string_view key, std::string_view mask) {
  uint32_t s = new_symbol(key, SymbolClass::kValue, mask);
  deferred_.push_back({key, s, static_cast<uint32_t>(scope_marks_.size()), unit_});
  return s;
}

void Engine::scope_pop() {
  if (scope_marks_.empty()) return;
  uint32_t mark = scope_marks_.back();
  scope_marks_.pop_back();
  while (undo_.size() > mark) {
    const Undo& u = undo_.back();
    bool unit_map = u.map == &unit_values_ || u.map == &unit_blocks_;
    // A unit's maps are emptied when the next unit starts: its bindings are gone.
    if (!unit_map || u.unit == unit_) u.map->ref(u.key) = SymbolMap::absent(u.prev) ? SymbolMap::kHidden : u.prev;
    undo_.pop_back();
  }
  // Results of an op whose regions just closed become visible.
  while (!deferred_.empty() && deferred_.back().level >= scope_marks_.size()) {
    Scratch::Deferred d = deferred_.back();
    deferred_.pop_back();
    if (d.unit != unit_) continue;
    SymbolMap& map = unit_ ? unit_values_ : module_values_;
    bind(map, map.ref(d.key), d.key, d.sym);
  }
}

uint32_t Engine::value(std::string_view key, std::string_view mask) {
  return lookup(unit_ ? unit_values_ : module_values_, key, SymbolClass::kValue, mask, unit_);
}

uint32_t Engine::block(std::string_view key, std::string_view mask) {
  return lookup(unit_ ? unit_blocks_ : module_blocks_, key, SymbolClass::kBlock, mask, unit_);
}

uint32_t Engine::global(std::string_view key, SymbolClass cls, std::string_view mask) {
  return lookup(globals_, key, cls, mask, kNone);
}

void Engine::comment(const ir::Token& t, bool drop_it) {
  if (drop_it) {
    drop(t, t);
  } else {
    text(t.text);
  }
}

uint32_t Engine::label(const ir::Token& t, std::string_view mask, bool debug_only) {
  std::string_view name = t.text.substr(0, t.text.size() - 1);  // without ':'
  uint32_t s = block(name, mask);
  symbol(s, name, true, ":");
  if (debug_only && opts_.drop_locations) {
    cur_.cond_sym = s;  // survives when a kept line names it (see mark_live)
    syms_[s].def_line = static_cast<uint32_t>(lines_.size());
    defs_this_line_.push_back(s);
  }
  return s;
}

// ---------------------------------------------------------------- finish ----

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

// ------------------------------------------------------------- printing ----

void Engine::append_line(std::string& out, const LineRec& l) const {
  uint32_t pos = l.shape_begin;
  for (uint32_t k = l.occ_begin; k < l.occ_end; ++k) {
    const Occ& o = occs_[k];
    out.append(shape_.data() + pos, o.shape_off - pos);
    const SymRec& s = syms_[o.sym];
    if (s.printed_len) {
      out.append(s.printed, s.printed_len);
    } else {
      append_canonical_name(out, s.cls, s.mask, s.canonical);
    }
    pos = o.shape_off + o.mask_len;
  }
  out.append(shape_.data() + pos, l.shape_end - pos);
  out.push_back('\n');
}

void Engine::append_unit(std::string& out, uint32_t unit, Hasher* sink) const {
  constexpr size_t kFlushBytes = 64 * 1024;
  std::vector<std::string> order_free;
  for (uint32_t i : unit_lines_[unit]) {
    const LineRec& l = lines_[i];
    if (l.order_free) {
      order_free.emplace_back();
      append_line(order_free.back(), l);
    } else {
      append_line(out, l);
      if (sink && out.size() >= kFlushBytes) {
        sink->update(out);
        out.clear();
      }
    }
  }
  std::sort(order_free.begin(), order_free.end());
  for (const std::string& s : order_free) out += s;
}

uint64_t Engine::canonical_hash() const {
  Hasher h;
  std::string buf;
  buf.reserve(80 * 1024);
  for (uint32_t u = 0; u < units_.size(); ++u) append_unit(buf, u, &h);
  h.update(buf);
  return h.digest();
}

std::string Engine::canonical() const {
  std::string out;
  out.reserve(shape_len_ + shape_len_ / 8 + 16);
  for (uint32_t u = 0; u < units_.size(); ++u) append_unit(out, u);
  return out;
}

std::string Engine::display_of(const LineRec& l, std::vector<uint32_t>* occ_disp) const {
  std::string out;
  uint32_t k = l.occ_begin;
  auto copy = [&](uint32_t from, uint32_t to) {
    for (; k < l.occ_end && occs_[k].src_off < to; ++k) {
      uint32_t o = occs_[k].src_off;
      occ_disp->push_back(static_cast<uint32_t>(out.size() + (o >= from ? o - from : 0)));
    }
    out.append(base_ + from, to - from);
  };
  uint32_t pos = l.src_begin;
  for (uint32_t d = l.drop_begin; d < l.drop_end; ++d) {
    uint32_t from = std::max(drops_[d].from, pos);
    uint32_t to = std::min(drops_[d].to, l.src_end);
    if (from >= to) continue;
    copy(pos, from);
    while (!out.empty() && is_space(out.back())) out.pop_back();
    pos = to;
  }
  copy(pos, l.src_end);
  while (k < l.occ_end) {  // cannot happen for well-formed handlers; keep 1:1
    occ_disp->push_back(static_cast<uint32_t>(out.size()));
    ++k;
  }
  while (!out.empty() && is_space(out.back())) out.pop_back();
  size_t lead = 0;
  while (lead < out.size() && is_space(out[lead])) ++lead;
  if (lead) {
    out.erase(0, lead);
    for (uint32_t& o : *occ_disp) o = o >= lead ? static_cast<uint32_t>(o - lead) : 0;
  }
  return out;
}

Module Engine::build_module() const {
  Module m;
  m.dialect = dialect_;
  m.file = text_.name();
  m.input_bytes = text_.size();
  m.resources = resources_;
  if (fallback_symbols_)
    m.fallback = std::to_string(fallback_symbols_) +
                 (fallback_symbols_ == 1 ? " global symbol" : " global symbols") +
                 " named by spelling, not by definition (" + fallback_why_ + "; first: " +
                 fallback_first_ + "): renaming one shows as a change";
  m.units.resize(units_.size());
  std::vector<uint32_t> sym_ids(syms_.size(), kNone);
  std::vector<uint32_t> disp;
  std::string all;
  for (uint32_t u = 0; u < units_.size(); ++u) {
    Unit& unit = m.units[u];
    unit.name = std::string(units_[u].name);
    unit.lines.reserve(unit_lines_[u].size());
    for (uint32_t i : unit_lines_[u]) {
      const LineRec& l = lines_[i];
      Line line;
      line.line_no = l.line_no;
      line.depth = l.depth;
      line.py_line = l.py_line;
      line.order_free = l.order_free;
      line.op.assign(base_ + l.op_off, l.op_len);
      line.callee.assign(base_ + l.callee_off, l.callee_len);
      line.shape.assign(shape_.data() + l.shape_begin, l.shape_end - l.shape_begin);
      disp.clear();
      line.display = display_of(l, &disp);
      line.symbols.reserve(l.occ_end - l.occ_begin);
      for (uint32_t k = l.occ_begin; k < l.occ_end; ++k) {
        const Occ& o = occs_[k];
        uint32_t& id = sym_ids[o.sym];
        if (id == kNone) {
          const SymRec& s = syms_[o.sym];
          id = static_cast<uint32_t>(m.symbols.size());
          Symbol sym;
          sym.name = std::string(s.name);
          sym.cls = s.cls;
          sym.unit = s.unit == kNone ? -1 : static_cast<int32_t>(s.unit);
          sym.canonical = s.canonical;
          m.symbols.push_back(std::move(sym));
        }
        SymbolRef r;
        r.id = id;
        r.offset = disp[k - l.occ_begin];
        r.length = std::min<uint32_t>(o.src_len, static_cast<uint32_t>(line.display.size()) -
                                                     std::min<uint32_t>(r.offset, line.display.size()));
        r.is_def = o.is_def;
        r.shape_offset = o.shape_off - l.shape_begin;
        r.shape_length = o.mask_len;
        line.symbols.push_back(r);
      }
      unit.lines.push_back(std::move(line));
    }
    std::string text;
    append_unit(text, u);
    unit.hash = hash64(text);
    all += text;
  }
  m.hash = hash64(all);
  return m;
}

}  // namespace ksnap::norm::detail

// The normalizer's first pass and its symbol bookkeeping (engine.h has the
// worked example; resolve.cc the finishing pass; print.cc the printer).
//
// Pass 1 (scan): lex line by line; check brackets; the dialect handler writes
// the shape and the symbol occurrences of each line. Symbols are made here:
// one per definition for SSA names (value_def / value_use with scopes, so a
// region's names are hidden when it closes), one per name for module-level
// globals, labels and locations.

#include "normalize/engine.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstring>

#include "ksnap/support/hash.h"
#include "ksnap/support/memory.h"
#include "normalize/canonical.h"

namespace ksnap::norm::detail {

namespace {
std::atomic<bool> g_fold_type_lists{true};
}  // namespace

void set_fold_type_lists(bool on) { g_fold_type_lists.store(on, std::memory_order_relaxed); }
bool fold_type_lists() { return g_fold_type_lists.load(std::memory_order_relaxed); }

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
    case ir::Dialect::kMlir: handler_ = make_mlir_handler(opts_); break;
    case ir::Dialect::kLlvm: handler_ = make_llvm_handler(); break;
    case ir::Dialect::kPtx: handler_ = make_ptx_handler(opts_); break;
    case ir::Dialect::kAmdgcn:
    case ir::Dialect::kSpirv: handler_ = make_asm_handler(dialect); break;
    case ir::Dialect::kSass: handler_ = make_sass_handler(); break;
  }
  // `<`/`>` pair up in MLIR types, LLVM vectors and PTX `%r<N>`; assembly
  // expressions use them as operators (`1<<4`).
  check_angles_ = dialect == ir::Dialect::kMlir || dialect == ir::Dialect::kLlvm ||
                  dialect == ir::Dialect::kPtx;
  if (!full_) handler_->skippable_starts(skip_starts_);
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
  // Room for a big input's records up front, from its size (IR lines
  // average 40-60 bytes; a name about every 16): growing them by doubling
  // copied each record about twice and faulted in twice the pages, a fifth
  // of `ksnap normalize` of a 16 MB file. Capacity is only reserved, never
  // written, so an estimate too high costs address space, not memory; the
  // scratch keeps it for the next file on this thread.
  const size_t bytes = text_.size();
  if (bytes > (size_t{1} << 20)) {
    lines_.reserve(bytes / 32);
    syms_.reserve(bytes / 32);
    occs_.reserve(bytes / 16);
    shape_.grow(0, bytes + bytes / 4);  // shapes are the lines, masks a little longer
    // Written front to back soon: huge pages spare a fault per 4 KiB
    // (support/memory.h; only for big inputs, ranges of 8 MiB or more).
    advise_huge_pages(lines_.data(), lines_.capacity() * sizeof(lines_[0]));
    advise_huge_pages(syms_.data(), syms_.capacity() * sizeof(syms_[0]));
    advise_huge_pages(occs_.data(), occs_.capacity() * sizeof(occs_[0]));
    advise_huge_pages(shape_.data(), shape_.size());
  }
  ir::Lexer lx(base_, text_.size(), dialect_);
  lx.check_brackets(check_angles_);  // unbalanced / unclosed brackets are lexer errors
  // `{ float, float, ... }` as one token (half of Triton's LLVM IR): the
  // LLVM handler writes it as its names and commas would be (text_list).
  if (dialect_ == ir::Dialect::kLlvm && fold_type_lists()) lx.fold_type_lists();
  uint32_t line_no = 1;
  uint32_t line_begin = 0;
  depth_at_line_start_ = 0;
  while (true) {
    // toks_ is used as an array (its size is its capacity): no per-token
    // bookkeeping; it grows only for a line with more tokens than ever.
    uint32_t newlines_before = lx.inner_newlines();
    // A line the handler would drop whole (MLIR's `#loc12 = loc(...)`
    // table: a fifth of TTGIR's bytes; PTX's `.loc` lines and debug
    // sections: a third of its bytes) is passed over unlexed: the loop below
    // then meets its newline as an empty line, which leaves no trace.
    if (skip_starts_[static_cast<uint8_t>(base_[line_begin])] && lx.offset() == line_begin) {
      if (const char* e = handler_->skippable_line(base_ + line_begin, base_ + text_.size())) {
        lx.skip_to(e);
      }
    }
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

// begin_line() sets every field of the current line's record: a field
// added to LineRec must be reset there too.
static_assert(sizeof(LineRec) == 72, "reset the new LineRec field in Engine::begin_line");

void Engine::begin_line(uint32_t line_no, uint32_t src_begin, uint32_t src_end) {
  // A shape is at most 4x its line: one space per token, masks at most 3x
  // the name they replace (`#0` -> `#attrs`).
  size_t need = size_t{shape_len_} + 4 * size_t{src_end - src_begin} + 64;
  shape_.grow(shape_len_, need);
  // Field by field: `cur_ = LineRec{}` built the record on the stack and
  // read it back with loads that span two of its stores, which the CPU
  // cannot store-forward (perf: 5.7% of a suite diff on this one function).
  cur_.line_no = line_no;
  cur_.unit = unit_;
  cur_.shape_begin = shape_len_;
  cur_.shape_end = 0;
  line_w_ = w_ = shape_.data() + shape_len_;
  cur_.occ_begin = static_cast<uint32_t>(occs_.size());
  cur_.occ_end = 0;
  cur_.drop_begin = static_cast<uint32_t>(drops_.size());
  cur_.drop_end = 0;
  cur_.src_begin = src_begin;
  cur_.src_end = 0;
  cur_.op_off = cur_.op_len = 0;
  cur_.callee_off = cur_.callee_len = 0;
  cur_.py_sym = kNone;
  cur_.py_line = -1;
  cur_.cond_sym = kNone;
  cur_.depth = static_cast<uint16_t>(std::min<uint32_t>(depth_at_line_start_, 0xFFFF));
  cur_.order_free = false;
  skip_ = false;
  defs_this_line_.clear();
}

void Engine::end_line(uint32_t src_end) {
  shape_len_ = static_cast<uint32_t>(w_ - shape_.data());
  if (skip_ || shape_len_ == cur_.shape_begin) {
    shape_len_ = cur_.shape_begin;
    occs_.resize(cur_.occ_begin);
    drops_.resize(cur_.drop_begin);
    for (uint32_t s : defs_this_line_) syms_[s].def_line = kNone;
    return;
  }
  // The ends go to the copy: set in cur_ just before it is copied, they
  // were read back by the copy's 16-byte loads across 4-byte stores, a
  // store-forwarding stall per line (perf: most of end_line's time).
  LineRec& r = lines_.emplace_back(cur_);
  r.shape_end = shape_len_;
  r.occ_end = static_cast<uint32_t>(occs_.size());
  r.drop_end = static_cast<uint32_t>(drops_.size());
  r.src_end = src_end;
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

}  // namespace ksnap::norm::detail

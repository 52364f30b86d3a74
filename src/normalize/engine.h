// The normalizer's common machinery: one pass that lexes the buffer line by
// line and hands each line's tokens to a dialect handler, which writes the
// line's shape and records symbol occurrences; then a finishing pass that
// decides which conditional lines survive, numbers values and blocks by first
// occurrence, hashes aliases / metadata by definition, and prints the
// canonical text (the thing that is hashed).
//
// Worked example (LLVM IR, handler in llvm.cc):
//   source   "  %8 = shl i32 %7, 8, !dbg !8"
//   shape    "%_ = shl i32 %_ , 8"           occurrences: [%8 def, %7 use]
//   dropped  ", !dbg !8"                     (py_line from !8's DILocation)
//   display  "%8 = shl i32 %7, 8"
//   canonical"%v1 = shl i32 %v0 , 8"         (if %7 was the unit's first value)
//
// Nothing here allocates per token: shapes of all lines live in one buffer,
// occurrences in one vector, names are views into the source.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ksnap/ir/lexer.h"
#include "ksnap/normalize/normalize.h"
#include "ksnap/support/figures.h"
#include "ksnap/support/file.h"
#include "ksnap/support/hash.h"
#include "normalize/symbol_map.h"

namespace ksnap::norm::detail {

inline constexpr uint32_t kNone = 0xFFFFFFFFu;

/// Whether LLVM IR is lexed with Lexer::fold_type_lists() (on). For tests
/// and fuzzing only: the normalized result must be the same either way.
void set_fold_type_lists(bool on);
bool fold_type_lists();

/// Fixed masks (the class part of a renamed symbol in Line::shape).
inline constexpr std::string_view kValueMask = "%_";
inline constexpr std::string_view kBlockMask = "^";
inline constexpr std::string_view kPtxLabelMask = "$L";
inline constexpr std::string_view kMetadataMask = "!md";
inline constexpr std::string_view kAttrGroupMask = "#attrs";
inline constexpr std::string_view kGlobalMask = "@_";

/// One occurrence of a symbol in a line.
struct Occ {
  uint32_t sym;
  uint32_t shape_off;  ///< Absolute offset of the mask in the Engine's shape buffer.
  uint32_t src_off;    ///< Absolute offset of the spelled name in the source.
  uint32_t src_len;
  uint16_t mask_len;
  bool is_def;
};

struct LineRec {
  uint32_t line_no = 0;
  uint32_t unit = 0;
  uint32_t shape_begin = 0, shape_end = 0;
  uint32_t occ_begin = 0, occ_end = 0;
  uint32_t src_begin = 0, src_end = 0;
  uint32_t drop_begin = 0, drop_end = 0;
  uint32_t op_off = 0, op_len = 0;          ///< Op name in the source.
  uint32_t callee_off = 0, callee_len = 0;  ///< Callee in the source.
  uint32_t py_sym = kNone;                  ///< Location symbol to resolve at the end.
  int32_t py_line = -1;                     ///< Or the line directly.
  uint32_t cond_sym = kNone;                ///< Kept only when this symbol is used.
  uint16_t depth = 0;
  bool order_free = false;
};

struct SymRec {
  std::string_view name;  ///< As spelled (a view into the source).
  std::string_view mask;  ///< Mask in shapes (static or a view into the source).
  uint32_t unit = kNone;  ///< Owning unit, kNone = module scope.
  SymbolClass cls = SymbolClass::kValue;
  uint32_t def_line = kNone;  ///< Defining line (module-scope symbols).
  uint32_t def_shape = 0;     ///< Where the definition's content starts in shape().
  uint32_t def_occ = 0;       ///< First occurrence inside the definition's content.
  uint32_t py_sym = kNone;    ///< Location symbols: the location this one names.
  int32_t py_line = -1;       ///< Location symbols: the line, when known directly.
  uint64_t canonical = 0;
  char printed[22] = {};      ///< Canonical name, printed once ("%v12", "#a<16 hex>").
  uint8_t printed_len = 0;    ///< 0: not printed (too long, or not yet).
  int32_t stack_pos = -1;     ///< Position on the resolution stack, -1 when off it.
  bool resolved = false;
  bool dropped = false;       ///< Definition removed as debug info: canonical is fixed.
  bool live = false;
  /// Made by a use before any definition of its name (LLVM phi operands,
  /// branches to later blocks): the next definition of the name binds it.
  bool pending = false;
  bool distinct = false;      ///< LLVM `distinct !{...}`: equal content is not equal identity.
  bool debug_ref = false;     ///< Named from dropped debug info (an MLIR `loc(...)`).
  bool referenced = false;    ///< MLIR alias named other than by its own definition.
  uint32_t salt = 0;          ///< Tells apart distinct nodes of equal content (finish()).
  uint32_t decl = 0;          ///< The scoped declaration that made it (PTX `.reg` in a block).
};

/// A growable buffer that does not zero what it allocates.
class CharBuf {
 public:
  char* data() { return p_.get(); }
  const char* data() const { return p_.get(); }
  size_t size() const { return cap_; }
  /// Makes room for `need` bytes, keeping the first `used`.
  void grow(size_t used, size_t need) {
    if (need <= cap_) return;
    size_t n = std::max(need, cap_ * 2);
    auto q = std::make_unique_for_overwrite<char[]>(n);
    if (used) std::memcpy(q.get(), p_.get(), used);
    p_ = std::move(q);
    cap_ = n;
  }

 private:
  std::unique_ptr<char[]> p_;
  size_t cap_ = 0;
};

/// The printer's output: bytes written through a cursor. Room for a whole
/// line is made once (`room`), then its pieces are stored without checks
/// (std::string::append checked capacity and called memcpy for each piece:
/// a third of the printer's instructions).
///
///   char* w = sink.room(n);   // at least n bytes writable at w
///   ... w += written ...
///   sink.commit(w);           // they are now part of view()
class TextSink {
 public:
  char* room(size_t n) {
    buf_.grow(len_, len_ + n);
    return buf_.data() + len_;
  }
  void commit(const char* end) { len_ = static_cast<size_t>(end - buf_.data()); }
  void append(std::string_view s) {
    char* w = room(s.size());
    if (!s.empty()) std::memcpy(w, s.data(), s.size());
    commit(w + s.size());
  }
  std::string_view view() const { return {buf_.data(), len_}; }
  size_t size() const { return len_; }
  void clear() { len_ = 0; }

 private:
  CharBuf buf_;
  size_t len_ = 0;
};

struct Drop {
  uint32_t from, to;
};
/// How to undo one name binding when its scope closes.
struct Undo {
  SymbolMap* map;
  std::string_view key;
  uint32_t prev;  ///< The symbol the name named before (SymbolMap::kHidden: none).
  uint32_t unit;  ///< Unit the binding was made in (unit maps are cleared per unit).
};
struct UnitRec {
  std::string_view name;
};

/// The Engine's working memory. One per thread is kept between calls, so
/// that normalizing many files reuses its capacity instead of asking the
/// allocator (and the kernel, for fresh pages) again for every file.
struct Scratch {
  CharBuf shape;
  std::vector<Occ> occs;
  std::vector<Drop> drops;
  std::vector<LineRec> lines;
  std::vector<SymRec> syms;
  std::vector<UnitRec> units;
  std::vector<bool> kept;
  std::vector<std::vector<uint32_t>> unit_lines;
  SymbolMap globals, module_values, module_blocks, unit_values, unit_blocks;
  std::vector<ir::Token> toks;
  std::vector<uint32_t> defs_this_line;
  std::vector<uint32_t> stack;
  std::vector<Undo> undo;
  std::vector<uint32_t> scope_marks;  ///< undo.size() when each open scope began.
  struct Deferred {
    std::string_view key;
    uint32_t sym;
    uint32_t level;  ///< Bound when the open scopes drop back to this many.
    uint32_t unit;
  };
  std::vector<Deferred> deferred;  ///< value_def_after_regions() bindings to make.
  bool in_use = false;

  /// Empties everything, keeping capacity.
  void reset();
};

class Engine;

/// Per-dialect rules. line() is called once for every physical line (also
/// empty ones) between Engine::begin_line and Engine::end_line.
class DialectHandler {
 public:
  virtual ~DialectHandler() = default;
  virtual void line(Engine& e, std::span<const ir::Token> toks) = 0;
  /// Hash-only scans (Engine::full() false) ask this at the start of each
  /// line: when the line at `p` is one line() would drop whole, leaving no
  /// trace, and its bytes could neither fail to lex nor change the lexer's
  /// state (brackets balanced within it), returns where it ends (its '\n',
  /// or `end`, the buffer's end, where its NUL sentinel is); else nullptr.
  virtual const char* skippable_line(const char* /*p*/, const char* /*end*/) const {
    return nullptr;
  }
  /// Sets starts[c] for each first byte `c` of a line skippable_line() may
  /// pass over (asked once, when the Engine starts, so that other lines cost
  /// no call). `starts` holds 256 false values.
  virtual void skippable_starts(bool* /*starts*/) const {}
};

std::unique_ptr<DialectHandler> make_mlir_handler(const NormalizeOptions& o);
std::unique_ptr<DialectHandler> make_llvm_handler();
std::unique_ptr<DialectHandler> make_ptx_handler(const NormalizeOptions& o);
std::unique_ptr<DialectHandler> make_asm_handler(ir::Dialect d);  // AMDGCN, SPIR-V
std::unique_ptr<DialectHandler> make_sass_handler();              // sass.cc

class Engine {
 public:
  Engine(const TextBuffer& text, ir::Dialect dialect, const NormalizeOptions& opts, bool full);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  /// Scans the whole buffer. Errors: kParseError with file:line:col.
  Status run();
  /// The canonical text (after run()); its hash64 is the module hash.
  std::string canonical() const;
  /// hash64(canonical()) without holding the whole text (streamed).
  uint64_t canonical_hash() const;
  /// The hashes a Module holds: each unit's text's (Unit::hash) and the
  /// whole text's (Module::hash), printing each unit once.
  struct Hashes {
    std::vector<uint64_t> units;
    uint64_t module = 0;
  };
  Hashes unit_hashes() const;
  /// Builds the public Module (after run(), full mode only) with the hashes
  /// unit_hashes() gave (the canonical text is printed there only).
  Module build_module(const Hashes& hashes) const;

  // ---- for dialect handlers ----
  const NormalizeOptions& opts() const { return opts_; }
  bool full() const { return full_; }
  ir::Dialect dialect() const { return dialect_; }
  uint32_t off(const char* p) const { return static_cast<uint32_t>(p - base_); }
  uint32_t off(const ir::Token& t) const { return off(t.text.data()); }
  LineRec& cur() { return cur_; }

  /// Appends token text to the shape (single-space separated). begin_line
  /// reserved room for the whole line, so this writes without checks.
  void text(std::string_view s) {
    char* w = separate();
    copy_small(w, s.data(), s.size());
    w_ = w + s.size();
  }
  /// Appends a kTypeList token's text `T, T, ..., T` as its tokens would
  /// be: "T , T , ... , T" (the lexer made it only for LLVM type names).
  void text_list(std::string_view run) {
    const size_t n = run.find(',');
    char* w = separate();
    copy_small(w, run.data(), n);
    w += n;
    // " , T" per further element (the source's ", T" with a space before):
    // one written, then the written ones copied after themselves.
    char* unit = w;
    const size_t u = n + 3;
    const size_t total = (run.size() - n) / (n + 2) * u;
    *w = ' ';
    std::memcpy(w + 1, run.data() + n, n + 2);
    for (size_t done = u; done < total;) {
      size_t c = std::min(done, total - done);
      std::memcpy(unit + done, unit, c);
      done += c;
    }
    w_ = unit + total;
  }
  /// Appends `mask` + `suffix` for an occurrence of `sym` spelled `name`.
  void symbol(uint32_t sym, std::string_view name, bool is_def, std::string_view suffix = {}) {
    char* w = separate();
    const SymRec& s = syms_[sym];
    occs_.push_back(Occ{sym, static_cast<uint32_t>(w - shape_.data()), off(name.data()),
                        static_cast<uint32_t>(name.size()),
                        static_cast<uint16_t>(s.mask.size()), is_def});
    copy_small(w, s.mask.data(), s.mask.size());
    w += s.mask.size();
    copy_small(w, suffix.data(), suffix.size());
    w_ = w + suffix.size();
  }
  /// Removes source bytes [from, to) from the line's display.
  void drop(const char* from, const char* to) {
    if (full_) drops_.push_back({off(from), off(to)});
  }
  void drop(const ir::Token& first, const ir::Token& last) {
    drop(first.text.data(), last.text.data() + last.text.size());
  }
  /// The whole line normalizes to nothing.
  void skip_line() { skip_ = true; }
  /// Shape offset where the next token would start (for definitions).
  uint32_t shape_pos() const {
    return static_cast<uint32_t>(w_ - shape_.data()) + (w_ != line_w_ ? 1 : 0);
  }
  uint32_t occ_pos() const { return static_cast<uint32_t>(occs_.size()); }

  void set_op(std::string_view op) {
    cur_.op_off = off(op.data());
    cur_.op_len = static_cast<uint32_t>(op.size());
  }
  void set_callee(std::string_view c) {
    cur_.callee_off = off(c.data());
    cur_.callee_len = static_cast<uint32_t>(c.size());
  }

  /// The symbol named `key` (a view into the source, also its spelling in
  /// Module::symbols) by name: values and blocks of the current unit, or
  /// module-wide aliases / metadata / attribute groups. Created on first use.
  /// (PTX registers and labels, assembly labels: names that are not SSA.)
  uint32_t value(std::string_view key, std::string_view mask = kValueMask);
  uint32_t block(std::string_view key, std::string_view mask = kBlockMask);
  uint32_t global(std::string_view key, SymbolClass cls, std::string_view mask);

  /// SSA names (MLIR, LLVM IR, SPIR-V): identity comes from definitions, not
  /// from names. A definition is a fresh symbol (or the one that a use of its
  /// name before it made: a forward reference), visible to later uses until
  /// the scope it was made in closes; a use names the visible definition.
  /// So two values that reuse a name in sibling regions are two symbols, and
  /// a consistent renaming of the text changes nothing.
  uint32_t value_def(std::string_view key, std::string_view mask = kValueMask) {
    return def_in(unit_ ? unit_values_ : module_values_, key, SymbolClass::kValue, mask);
  }
  uint32_t value_use(std::string_view key, std::string_view mask = kValueMask) {
    return use_in(unit_ ? unit_values_ : module_values_, key, SymbolClass::kValue, mask);
  }
  uint32_t block_def(std::string_view key, std::string_view mask = kBlockMask) {
    return def_in(unit_ ? unit_blocks_ : module_blocks_, key, SymbolClass::kBlock, mask);
  }
  uint32_t block_use(std::string_view key, std::string_view mask = kBlockMask) {
    return use_in(unit_ ? unit_blocks_ : module_blocks_, key, SymbolClass::kBlock, mask);
  }
  /// A definition whose name becomes visible only once the scope about to
  /// open closes again: the results of an MLIR op with regions
  /// (`%a = scf.for ... iter_args(%a = %init) {` — inside the loop `%a` is
  /// the iteration argument, after it the result).
  uint32_t value_def_after_regions(std::string_view key, std::string_view mask = kValueMask);
  /// Scopes for the *_def/*_use names (MLIR regions, PTX `{ }` blocks):
  /// bindings made after scope_push() are undone by the matching scope_pop().
  void scope_push() { scope_marks_.push_back(static_cast<uint32_t>(undo_.size())); }
  void scope_pop();
  /// The register `key` declared by scoped declaration `decl` (PTX `.reg`
  /// inside a `{ }` block; `decl` is unique per declaration): the first
  /// occurrence in its scope makes a fresh symbol that hides what `key`
  /// named outside, later ones find it.
  uint32_t value_declared(std::string_view key, std::string_view mask, uint32_t decl);
  SymRec& sym(uint32_t i) { return syms_[i]; }
  /// A comment token: removed when `drop_it`, else kept as text.
  void comment(const ir::Token& t, bool drop_it);
  /// A label definition token `name:` of the current unit; a `debug_only`
  /// label's line survives (with drop_locations) only when something uses it.
  uint32_t label(const ir::Token& t, std::string_view mask, bool debug_only);
  /// Marks the current line as the definition of module-scope `sym`, whose
  /// content starts at the next token.
  void define(uint32_t sym) {
    SymRec& s = syms_[sym];
    s.def_line = static_cast<uint32_t>(lines_.size());
    s.def_shape = shape_pos();
    s.def_occ = occ_pos();
    defs_this_line_.push_back(sym);
  }

  /// Function units: lines until end_unit() belong to a fresh unit with its
  /// own value and block names.
  void start_unit(std::string_view name);
  void end_unit();
  bool in_unit() const { return unit_ != 0; }
  /// `{` nesting at the start of the current line, and after its tokens.
  uint32_t depth_before() const { return depth_at_line_start_; }
  uint32_t depth_after() const { return depth_after_; }

  /// Adds `n` (clamped to [0, kMaxFigure]) to the module's figure `key`;
  /// the sum stops at kMaxFigure, so hostile IR cannot overflow it.
  void add_resource(std::string key, int64_t n) {
    int64_t& sum = resources_[std::move(key)];
    sum = std::min(sum + std::clamp<int64_t>(n, 0, kMaxFigure), kMaxFigure);
  }

 private:
  uint32_t lookup(SymbolMap& map, std::string_view key, SymbolClass cls, std::string_view mask,
                  uint32_t unit);
  uint32_t new_symbol(std::string_view key, SymbolClass cls, std::string_view mask);
  uint32_t def_in(SymbolMap& map, std::string_view key, SymbolClass cls, std::string_view mask);
  uint32_t use_in(SymbolMap& map, std::string_view key, SymbolClass cls, std::string_view mask);
  /// Binds `key` to `sym` in `map`, remembering how to undo it at scope_pop().
  void bind(SymbolMap& map, uint32_t& slot, std::string_view key, uint32_t sym);
  Status scan();
  Status error_at(size_t offset, std::string message) const;
  void begin_line(uint32_t line_no, uint32_t src_begin, uint32_t src_end);
  void end_line(uint32_t src_end);
  void finish();
  void mark_live();
  void number_symbols();
  uint64_t resolve(uint32_t sym, int depth, int32_t* min_ref);
  /// Resolves every module-scope symbol that a kept line names: ordered
  /// lines first, then order-free ones (so that reordering definitions
  /// changes nothing).
  void resolve_globals();
  /// Tells apart `distinct` nodes of equal content by the order in which the
  /// kept lines first reach them; true when any needed telling apart.
  bool salt_distinct();
  void visit_global(uint32_t sym, int depth, std::vector<uint32_t>* order);
  /// Caches the symbol's canonical spelling in SymRec::printed.
  static void print_name(SymRec& s);
  void resolve_py();
  void append_line(TextSink& out, const LineRec& l) const;
  /// Appends a unit's canonical text; with `sink`, feeds it whatever is
  /// buffered past 64 KiB.
  void append_unit(TextSink& out, uint32_t unit, Hasher* sink = nullptr) const;
  /// Writes the line's display text to `out` and each occurrence's offset in
  /// it to `occ_disp`; `op_disp` / `callee_disp` get where the op and callee
  /// are in it, kNone when they are not there verbatim.
  void display_of(const LineRec& l, std::string* out, std::vector<uint32_t>* occ_disp,
                  uint32_t* op_disp, uint32_t* callee_disp) const;

  std::unique_ptr<Scratch> owned_;  ///< Only when the thread's scratch is busy.
  Scratch* scratch_;
  const TextBuffer& text_;
  const char* base_;
  ir::Dialect dialect_;
  NormalizeOptions opts_;
  bool full_;
  std::unique_ptr<DialectHandler> handler_;
  /// By a line's first byte: may the handler pass it over (hash-only scans).
  bool skip_starts_[256] = {};

  /// Where the next token's shape goes: past a separating space, unless it is
  /// the line's first (the space is written either way, without a branch).
  char* separate() {
    char* w = w_;
    *w = ' ';
    return w + (w != line_w_);
  }
  /// Copies n bytes; inline for the short token texts that dominate.
  static void copy_small(char* dst, const char* src, size_t n) {
    if (n == 1) {  // punctuation: the most common token
      *dst = *src;
      return;
    }
    if (n <= 16) {
      if (n >= 8) {
        uint64_t a, b;
        std::memcpy(&a, src, 8);
        std::memcpy(&b, src + n - 8, 8);
        std::memcpy(dst, &a, 8);
        std::memcpy(dst + n - 8, &b, 8);
      } else if (n >= 4) {
        uint32_t a, b;
        std::memcpy(&a, src, 4);
        std::memcpy(&b, src + n - 4, 4);
        std::memcpy(dst, &a, 4);
        std::memcpy(dst + n - 4, &b, 4);
      } else if (n > 0) {
        dst[0] = src[0];
        dst[n / 2] = src[n / 2];
        dst[n - 1] = src[n - 1];
      }
      return;
    }
    std::memcpy(dst, src, n);
  }

  /// Shapes of all lines; shape_len_ bytes used before the current line.
  CharBuf& shape_;
  uint32_t shape_len_ = 0;
  /// The current line's shape: it starts at line_w_ (shape_len_ when it
  /// began) and is written up to w_ (begin_line made room for it).
  char* line_w_ = nullptr;
  char* w_ = nullptr;
  std::vector<Occ>& occs_;
  std::vector<Drop>& drops_;
  std::vector<LineRec>& lines_;
  std::vector<SymRec>& syms_;
  std::vector<UnitRec>& units_;
  std::vector<bool>& kept_;                        ///< Per line, after finish().
  std::vector<std::vector<uint32_t>>& unit_lines_;  ///< Kept lines per unit.
  std::map<std::string, int64_t> resources_;

  SymbolMap& globals_;
  SymbolMap& module_values_;
  SymbolMap& module_blocks_;
  SymbolMap& unit_values_;
  SymbolMap& unit_blocks_;
  uint32_t unit_ = 0;
  uint32_t unit_scope_ = 0;  ///< Open scopes inside the current unit's body.

  LineRec cur_;
  bool skip_ = false;
  std::vector<ir::Token>& toks_;
  uint32_t depth_at_line_start_ = 0, depth_after_ = 0;
  std::vector<uint32_t>& defs_this_line_;
  bool check_angles_ = true;  ///< `<`/`>` pair up (not in assembly).
  uint32_t resolve_budget_ = 0;
  /// Global symbols named by their spelling because resolving their content
  /// went past kMaxResolveDepth or the budget (Module::fallback says so).
  uint32_t fallback_symbols_ = 0;
  std::string fallback_first_;   ///< The first such symbol, as written.
  const char* fallback_why_ = "";
  /// Per SymbolClass: undefined globals numbered so far.
  uint64_t undefined_count_[static_cast<int>(SymbolClass::kGlobal) + 1] = {};
  std::vector<uint32_t>& stack_;
  std::vector<Undo>& undo_;
  std::vector<uint32_t>& scope_marks_;
  std::vector<Scratch::Deferred>& deferred_;
};

}  // namespace ksnap::norm::detail

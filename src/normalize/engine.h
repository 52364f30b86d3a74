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

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ksnap/ir/lexer.h"
#include "ksnap/normalize/normalize.h"
#include "ksnap/support/file.h"
#include "normalize/symbol_map.h"

namespace ksnap::norm::detail {

inline constexpr uint32_t kNone = 0xFFFFFFFFu;

/// Fixed masks (the class part of a renamed symbol in Line::shape).
inline constexpr std::string_view kValueMask = "%_";
inline constexpr std::string_view kBlockMask = "^";
inline constexpr std::string_view kPtxLabelMask = "$L";
inline constexpr std::string_view kMetadataMask = "!md";
inline constexpr std::string_view kAttrGroupMask = "#attrs";

/// One occurrence of a symbol in a line.
struct Occ {
  uint32_t sym;
  uint32_t shape_off;  ///< Absolute offset of the mask in Engine::shape().
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
  int32_t stack_pos = -1;     ///< Position on the resolution stack, -1 when off it.
  bool resolved = false;
  bool dropped = false;       ///< Definition removed as debug info: canonical is fixed.
  bool live = false;
};

class Engine;

/// Per-dialect rules. line() is called once for every physical line (also
/// empty ones) between Engine::begin_line and Engine::end_line.
class DialectHandler {
 public:
  virtual ~DialectHandler() = default;
  virtual void line(Engine& e, std::span<const ir::Token> toks) = 0;
};

std::unique_ptr<DialectHandler> make_mlir_handler();
std::unique_ptr<DialectHandler> make_llvm_handler();
std::unique_ptr<DialectHandler> make_ptx_handler();
std::unique_ptr<DialectHandler> make_asm_handler(ir::Dialect d);  // AMDGCN, SPIR-V

class Engine {
 public:
  Engine(const TextBuffer& text, ir::Dialect dialect, const NormalizeOptions& opts, bool full);

  /// Scans the whole buffer. Errors: kParseError with file:line:col.
  Status run();
  /// The canonical text (after run()); its hash64 is the module hash.
  std::string canonical() const;
  /// Builds the public Module (after run(), full mode only).
  Module build_module() const;

  // ---- for dialect handlers ----
  const NormalizeOptions& opts() const { return opts_; }
  bool full() const { return full_; }
  ir::Dialect dialect() const { return dialect_; }
  uint32_t off(const char* p) const { return static_cast<uint32_t>(p - base_); }
  uint32_t off(const ir::Token& t) const { return off(t.text.data()); }
  LineRec& cur() { return cur_; }

  /// Appends token text to the shape (single-space separated).
  void text(std::string_view s) {
    if (shape_.size() > cur_.shape_begin) shape_.push_back(' ');
    shape_.append(s.data(), s.size());
  }
  /// Appends `mask` + `suffix` for an occurrence of `sym` spelled `name`.
  void symbol(uint32_t sym, std::string_view name, bool is_def, std::string_view suffix = {}) {
    if (shape_.size() > cur_.shape_begin) shape_.push_back(' ');
    const SymRec& s = syms_[sym];
    occs_.push_back(Occ{sym, static_cast<uint32_t>(shape_.size()), off(name.data()),
                        static_cast<uint32_t>(name.size()),
                        static_cast<uint16_t>(s.mask.size()), is_def});
    shape_.append(s.mask.data(), s.mask.size());
    shape_.append(suffix.data(), suffix.size());
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
    return static_cast<uint32_t>(shape_.size() + (shape_.size() > cur_.shape_begin ? 1 : 0));
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

  /// Symbols. `key` identifies it within its table; `name` is the spelling
  /// kept for Module::symbols (usually the same view).
  uint32_t value(std::string_view key, std::string_view mask = kValueMask);
  uint32_t block(std::string_view key, std::string_view mask = kBlockMask);
  uint32_t global(std::string_view key, SymbolClass cls, std::string_view mask);
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
  uint32_t depth_after() const { return brace_depth_; }

  void add_resource(std::string key, int64_t n) { resources_[std::move(key)] += n; }

 private:
  struct Drop {
    uint32_t from, to;
  };
  struct UnitRec {
    std::string_view name;
  };

  uint32_t lookup(SymbolMap& map, std::string_view key, SymbolClass cls, std::string_view mask,
                  uint32_t unit);
  Status scan();
  Status check_bracket(const ir::Token& t);
  Status error_at(size_t offset, std::string message) const;
  void begin_line(uint32_t line_no, uint32_t src_begin);
  void end_line(uint32_t src_end);
  void finish();
  void mark_live();
  void number_symbols();
  uint64_t resolve(uint32_t sym, int depth, int32_t* min_ref);
  void resolve_py();
  void append_line(std::string& out, const LineRec& l) const;
  void append_unit(std::string& out, uint32_t unit) const;
  std::string display_of(const LineRec& l, std::vector<uint32_t>* occ_disp) const;

  const TextBuffer& text_;
  const char* base_;
  ir::Dialect dialect_;
  NormalizeOptions opts_;
  bool full_;
  std::unique_ptr<DialectHandler> handler_;

  std::string shape_;
  std::vector<Occ> occs_;
  std::vector<Drop> drops_;
  std::vector<LineRec> lines_;
  std::vector<SymRec> syms_;
  std::vector<UnitRec> units_;
  std::vector<bool> kept_;                       ///< Per line, after finish().
  std::vector<std::vector<uint32_t>> unit_lines_;  ///< Kept lines per unit.
  std::map<std::string, int64_t> resources_;

  SymbolMap globals_;
  SymbolMap module_values_, module_blocks_;
  SymbolMap unit_values_, unit_blocks_;
  uint32_t unit_ = 0;

  LineRec cur_;
  bool skip_ = false;
  std::vector<ir::Token> toks_;
  struct Open {
    char c;
    uint32_t off;
  };
  std::vector<Open> brackets_;
  uint32_t brace_depth_ = 0, depth_at_line_start_ = 0;
  std::vector<uint32_t> defs_this_line_;
  bool check_angles_ = true;
  uint32_t resolve_budget_ = 0;
  std::vector<uint32_t> stack_;
};

}  // namespace ksnap::norm::detail

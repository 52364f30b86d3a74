// MLIR rules (TTIR, TTGIR, any MLIR text). Worked example:
//
//   #blocked1 = #ttg.blocked<{sizePerThread = [2], order = [0]}>
//   #loc3 = loc("/w/kernels.py":9:24)
//   #loc20 = loc("block_start"(#loc3))
//   tt.func public @k(%x_ptr: !tt.ptr<f32> loc("x_ptr"(#loc))) {
//     %block_start = arith.muli %pid, %c256_i32 : tensor<4xi32, #blocked1> loc(#loc20)
//
// gives, for the last line,
//   shape   "%_ = arith.muli %_ , %_ : tensor < 4xi32 , #blocked >"
//   display "%block_start = arith.muli %pid, %c256_i32 : tensor<4xi32, #blocked1>"
//   op "arith.muli", py_line 9 (#loc20 -> #loc3 -> line 9); an inlined call's
//   `loc(callsite(#loc5 at #loc6))` takes the caller's line (#loc6), and
//   line 0 means none
// The `#loc` table lines vanish; `#blocked1 = ...` is an order-free line whose
// symbol is named by the hash of `#ttg.blocked < { ... } >`.
#include <algorithm>
#include <cstring>
#include <memory>

#include "normalize/engine.h"
#include "normalize/handler_util.h"

namespace ksnap::norm::detail {
namespace {

using ir::TokenKind;

/// `#blocked1`, `!alias`, `#loc3`: an alias name (no dialect dot) that is not
/// the start of an opaque dialect attribute `#dialect<...>`.
bool is_alias(const ir::Token& t) {
  if (t.kind != TokenKind::kHashId && t.kind != TokenKind::kBangId) return false;
  if (t.text.size() < 2 || find_char(t.text, '.') != std::string_view::npos) return false;
  return char_after(t) != '<';
}

/// The mask of an alias: its sigil only (`#alias`, `!alias`). An alias is
/// identified by its definition, so its name, prefix included, is free to
/// change (`#blocked3` -> `#mma`): only what it stands for counts.
std::string_view alias_mask(std::string_view name) {
  return name[0] == '!' ? std::string_view("!alias") : std::string_view("#alias");
}

/// Aliases named inside dropped location text (`loc(fused<#di_subprogram>[...])`)
/// other than the `#loc` table itself: their definitions are debug info, kept
/// only when something that survives uses them.
void flag_debug_refs(Engine& e, TokenSpan toks, size_t from, size_t to) {
  for (size_t i = from; i < to && i < toks.size(); ++i) {
    const ir::Token& t = toks[i];
    if (t.kind != TokenKind::kHashId && t.kind != TokenKind::kBangId) continue;
    if (t.text.size() >= 4 && std::memcmp(t.text.data(), "#loc", 4) == 0) continue;  // the table
    if (is_alias(t)) e.sym(e.global(t.text, SymbolClass::kAlias, alias_mask(t.text))).debug_ref = true;
  }
}

/// Where the result number of a value name (`#1` of `%0#1`) starts, or
/// npos. The lexer puts a '#' in an unquoted MLIR value name only as `#` and
/// digits at its end, so the name is read from its end; a quoted name
/// (`%"a#1"`) is searched from its start, as any '#' in it counts.
size_t result_number_at(std::string_view key) {
  if (key.size() > 1 && key[1] == '"') return find_char(key, '#', 1);
  size_t j = key.size();
  while (j > 1 && key[j - 1] >= '0' && key[j - 1] <= '9') --j;
  return j > 1 && j < key.size() && key[j - 1] == '#' ? j - 1 : std::string_view::npos;
}

/// Past `#loc` followed by the rest of a hash id's characters ([A-Za-z0-9_.$-],
/// as the lexer takes them after '#'); `dots` says whether '.' may occur.
/// Character classes of the location-table check, by table like the lexer's.
enum : uint8_t {
  kWord = 1,   ///< [A-Za-z0-9_$]: starts a word or number
  kWordOn = 2,  ///< kWord and '.': goes on with one
  kLocName = 4,  ///< [A-Za-z0-9_$-]: an alias name after `#loc`
};
struct LocChars {
  uint8_t bits[256] = {};
  constexpr LocChars() {
    for (int c = 0; c < 256; ++c) {
      bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '$';
      if (word) bits[c] |= kWord | kWordOn | kLocName;
    }
    bits[static_cast<uint8_t>('.')] |= kWordOn;
    bits[static_cast<uint8_t>('-')] |= kLocName;
  }
};
constexpr LocChars kLocChars;
bool loc_char(char c, uint8_t cls) { return kLocChars.bits[static_cast<uint8_t>(c)] & cls; }

const char* skip_loc_name(const char* p, bool dots) {
  p = skip_literal(p, "#loc");
  if (!p) return nullptr;
  while (loc_char(*p, kLocName) || (dots && *p == '.')) ++p;
  return p;
}

/// A location table line of the simple kinds Triton prints, checked byte by
/// byte without the lexer:
///
///   #loc3 = loc("/w/kernels.py":9:24)
///   #loc20 = loc("block_start"(#loc3))
///   #loc7 = loc(callsite(#loc5 at #loc6))
///   #loc9 = loc(fused[#loc1, #loc2])
///
/// What a hash-only scan does with such a line: line() takes it for an
/// alias definition (`#loc..` then `=`), sees `loc (` and drops it, after
/// flag_debug_refs looked for aliases other than the `#loc` table (there
/// are none here: every '#' is a `#loc..` name). So the line leaves no
/// trace if it lexes without error and its brackets pair up. Anything else
/// (another '#' or '!', `<`, '{', an escape in a string, a tab, a byte
/// outside printable ASCII outside strings) answers nullptr: the lexer and
/// line() take the line as before.
const char* loc_table_line_end(const char* p) {
  // `#loc12`: an alias name (no '.'; not followed by '<'), then ` = loc(`.
  p = skip_loc_name(p, false);
  if (p) p = skip_literal(p, " = loc(");
  if (!p) return nullptr;
  char open[32];
  int depth = 0;
  open[depth++] = '(';
  while (true) {
    const char c = *p;
    if (loc_char(c, kWord)) {
      // Words and numbers (`callsite`, `at`, `9`): tokens line() passes over.
      ++p;
      while (loc_char(*p, kWordOn)) ++p;
      continue;
    }
    switch (c) {
      case ' ':
      case ',':
      case ':':
        ++p;
        continue;
      case '"':  // a string: anything but an escape, a newline or a NUL inside
        p += 1 + std::strcspn(p + 1, "\"\\\n");  // stops at a NUL too
        if (*p != '"') return nullptr;
        ++p;
        continue;
      case '#':
        p = skip_loc_name(p, true);
        if (!p) return nullptr;
        continue;
      case '(':
      case '[':
        if (depth == static_cast<int>(sizeof open)) return nullptr;
        open[depth++] = c;
        ++p;
        continue;
      case ')':
      case ']':
        if (depth == 0 || open[depth - 1] != (c == ')' ? '(' : '[')) return nullptr;
        --depth;
        ++p;
        continue;
      case '\n':
      case '\0':  // the line's end, or the buffer's (a NUL inside it is an error: the lexer's)
        return depth == 0 ? p : nullptr;
      default:
        return nullptr;
    }
  }
}

class MlirHandler : public DialectHandler {
 public:
  void line(Engine& e, TokenSpan toks) override;
  const char* skippable_line(const char* p, const char* /*end*/) const override {
    return drop_locations_ && *p == '#' ? loc_table_line_end(p) : nullptr;
  }
  void skippable_starts(bool* starts) const override {
    if (drop_locations_) starts[static_cast<uint8_t>('#')] = true;
  }
  explicit MlirHandler(bool drop_locations) : drop_locations_(drop_locations) {}

 private:
  void alias_definition(Engine& e, TokenSpan toks);
  void emit(Engine& e, TokenSpan toks, size_t from, bool results);
  /// Python line of a `loc(...)` spanning toks[open..close]: the first file
  /// location or location alias inside (callee of a callsite, child of a
  /// name-loc, first of a fused).
  void location_ref(Engine& e, TokenSpan toks, size_t open, size_t close, int32_t* line,
                    uint32_t* sym);

  bool drop_locations_;
  uint32_t unit_depth_ = 0;
  /// `(` still open from earlier lines: an argument list written over
  /// several lines (hand-written MLIR), where `%x: type` declares `%x`.
  int paren_carry_ = 0;
};

void MlirHandler::location_ref(Engine& e, TokenSpan toks, size_t open, size_t close,
                               int32_t* line, uint32_t* sym) {
  if (!e.full()) return;  // py_line exists only in the Module
  // Nested callsites are followed through their callers, at most this deep:
  // a hostile line of nested callsites costs no stack and no quadratic time.
  constexpr int kMaxCallsites = 64;
  int callsites = 0;
  for (size_t i = open + 1; i < close; ++i) {
    const ir::Token& t = toks[i];
    // `callsite(callee at caller)`: an inlined call (tl.max from Triton's
    // standard.py); the kernel's own line is the caller's, outermost last.
    if (is_bare(t, "callsite") && i + 1 < close && is_punct(toks[i + 1], '(')) {
      if (++callsites > kMaxCallsites) return;
      size_t end = std::min(match_close(toks, i + 1, '(', ')'), close);
      int depth = 0;
      size_t at = 0;
      for (size_t k = i + 2; k < end && !at; ++k) {
        if (is_punct(toks[k], '(')) ++depth;
        else if (is_punct(toks[k], ')')) --depth;
        else if (depth == 0 && is_bare(toks[k], "at")) at = k;
      }
      if (at) {  // go on inside the caller
        i = at;
        close = end;
        continue;
      }
    }
    if (t.kind == TokenKind::kHashId && is_alias(t)) {
      *sym = e.global(t.text, SymbolClass::kAlias, alias_mask(t.text));
      *line = -1;
      return;
    }
    if (t.kind == TokenKind::kString && i + 2 < close && is_punct(toks[i + 1], ':') &&
        toks[i + 2].kind == TokenKind::kInteger) {
      // Line 0 is "no line" (a location Triton could not place).
      int32_t n = static_cast<int32_t>(parse_int(toks[i + 2].text));
      *line = n > 0 ? n : -1;
      *sym = kNone;
      return;
    }
  }
}

void MlirHandler::alias_definition(Engine& e, TokenSpan toks) {
  const NormalizeOptions& o = e.opts();
  const ir::Token& name = toks[0];
  bool is_loc = toks.size() >= 4 && is_bare(toks[2], "loc") && is_punct(toks[3], '(');
  if (is_loc && o.drop_locations && !e.full()) {  // the hash needs nothing else from it
    flag_debug_refs(e, toks, 4, toks.size());
    e.skip_line();
    return;
  }
  if (is_loc && o.drop_locations) flag_debug_refs(e, toks, 4, toks.size());
  uint32_t s = e.global(name.text, SymbolClass::kAlias, alias_mask(name.text));
  if (is_loc) {
    int32_t line = -1;
    uint32_t ref = kNone;
    location_ref(e, toks, 3, match_close(toks, 3, '(', ')'), &line, &ref);
    e.sym(s).py_line = line;
    e.sym(s).py_sym = ref;
    if (o.drop_locations) {
      e.skip_line();
      return;
    }
  }
  if (!o.rename_aliases) {
    emit(e, toks, 0, false);
    return;
  }
  e.symbol(s, name.text, true);
  e.text(toks[1].text);
  e.define(s);
  e.cur().cond_sym = s;
  e.cur().order_free = true;
  emit(e, toks, 2, false);
}

void MlirHandler::line(Engine& e, TokenSpan toks) {
  if (toks.empty()) return;
  const ir::Token& t0 = toks[0];
  if (is_alias(t0) && toks.size() >= 2 && is_punct(toks[1], '=')) {
    alias_definition(e, toks);
    return;
  }
  // The op: after `%results =`, or the first word (`tt.store`, `scf.yield`),
  // or the generic form's string (`"tt.reduce"(...)`).
  bool results = t0.kind == TokenKind::kValueId && paren_carry_ == 0;
  size_t op_at = 0;
  if (results) {
    op_at = toks.size();
    for (size_t i = 1; i < toks.size(); ++i) {
      if (is_punct(toks[i], '=')) {
        op_at = i + 1;
        break;
      }
    }
  }
  std::string_view op;
  if (op_at < toks.size()) {
    const ir::Token& t = toks[op_at];
    if (t.kind == TokenKind::kBareId) op = t.text;
    else if (t.kind == TokenKind::kString && t.text.size() >= 2) op = t.text.substr(1, t.text.size() - 2);
  }
  bool started = false;
  if (!op.empty()) {
    e.set_op(op);
    bool is_func = op == "func" || (op.size() > 5 && op.substr(op.size() - 5) == ".func");
    bool is_call = op == "call" || (op.size() > 5 && op.substr(op.size() - 5) == ".call");
    if (is_func || is_call) {
      for (size_t i = op_at + 1; i < toks.size(); ++i) {
        if (toks[i].kind != TokenKind::kSymbolRef) continue;
        std::string_view name = symbol_name(toks[i].text);
        if (is_call) {
          e.set_callee(name);
        } else if (!e.in_unit() && e.depth_after() > e.depth_before()) {
          e.start_unit(name);
          unit_depth_ = e.depth_before();
          started = true;
        }
        break;
      }
    }
  }
  emit(e, toks, 0, results);
  if (e.in_unit() && !started && e.depth_after() <= unit_depth_) e.end_unit();
}

void MlirHandler::emit(Engine& e, TokenSpan toks, size_t from, bool results) {
  const NormalizeOptions& o = e.opts();
  bool before_eq = results;
  bool opens_region = e.depth_after() > e.depth_before();
  int paren = paren_carry_;
  // `last`: one past the last token that is not a comment; `lead`: the
  // leading run of `}` / `)` tokens.
  size_t last = toks.size();
  while (last > from && toks[last - 1].kind == TokenKind::kComment) --last;
  size_t lead = from;
  while (lead < toks.size() && (is_punct(toks[lead], '}') || is_punct(toks[lead], ')'))) ++lead;
  for (size_t i = from; i < toks.size(); ++i) {
    const ir::Token& t = toks[i];
    switch (t.kind) {
      case TokenKind::kComment:
        e.comment(t, o.drop_comments);
        continue;
      case TokenKind::kBareId:
        if (t.text == "loc" && i + 1 < toks.size() && is_punct(toks[i + 1], '(')) {
          size_t close = match_close(toks, i + 1, '(', ')');
          if (paren <= 0) {  // the op's own location, not an argument's
            location_ref(e, toks, i + 1, close, &e.cur().py_line, &e.cur().py_sym);
          }
          if (o.drop_locations) {
            // `loc(#loc12)`, the usual case, names the table only.
            if (close != i + 3 || toks[i + 2].kind != TokenKind::kHashId) flag_debug_refs(e, toks, i + 2, close);
            e.drop(t, toks[close]);
            i = close;
            continue;
          }
        }
        e.text(t.text);
        continue;
      case TokenKind::kValueId: {
        if (!o.rename_values) {
          e.text(t.text);
          continue;
        }
        std::string_view key = t.text, suffix;
        size_t hash = result_number_at(key);
        if (hash != std::string_view::npos) {  // %0#1: result 1 of %0
          suffix = key.substr(hash);
          key = key.substr(0, hash);
        }
        bool def = before_eq;
        if (!def && i + 1 < toks.size()) {
          const ir::Token& n = toks[i + 1];
          // `%acc = %init` in iter_args / `scf.for %iv = ...`; `(%arg0: i32`
          // (block and function arguments print the colon glued on, inside
          // the parentheses: `tt.return %1: i32` is a use).
          def = is_punct(n, '=') || (paren > 0 && is_punct(n, ':') &&
                                     n.text.data() == t.text.data() + t.text.size());
        }
        // The results of an op that opens regions are visible after them.
        uint32_t sym = !def ? e.value_use(key)
                       : before_eq && opens_region ? e.value_def_after_regions(key)
                                                   : e.value_def(key);
        e.symbol(sym, key, def, suffix);
        continue;
      }
      case TokenKind::kBlockId:
        if (o.rename_blocks) {
          e.symbol(i == 0 ? e.block_def(t.text) : e.block_use(t.text), t.text, i == 0);
        } else {
          e.text(t.text);
        }
        continue;
      case TokenKind::kHashId:
      case TokenKind::kBangId:
        if (o.rename_aliases && is_alias(t)) {
          uint32_t a = e.global(t.text, SymbolClass::kAlias, alias_mask(t.text));
          e.sym(a).referenced = true;
          e.symbol(a, t.text, false);
        } else {
          e.text(t.text);
        }
        continue;
      case TokenKind::kPunct:
        if (t.text.size() == 1) {
          char c = t.text[0];
          if (c == '(') ++paren;
          else if (c == ')') --paren;
          else if (c == '=' && paren == 0) before_eq = false;
          // Regions are scopes: the names defined in one (block labels,
          // values) are forgotten when it closes, so a sibling region that
          // reuses a name defines a new symbol. A region opens with the `{`
          // that ends a line and closes with the `}`s that start one
          // (`} else {`, `}) : ...`); other braces are attribute dictionaries.
          else if (c == '{' && i + 1 == last) e.scope_push();
          else if (c == '}' && i < lead) e.scope_pop();
        }
        e.text(t.text);
        continue;
      default:
        e.text(t.text);
        continue;
    }
  }
  paren_carry_ = paren > 0 ? paren : 0;
}

}  // namespace

std::unique_ptr<DialectHandler> make_mlir_handler(const NormalizeOptions& o) {
  return std::make_unique<MlirHandler>(o.drop_locations);
}

}  // namespace ksnap::norm::detail

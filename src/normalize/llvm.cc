// LLVM IR rules. Worked example:
//
//   ; Function Attrs: nounwind
//   define ptx_kernel void @k(ptr addrspace(1) %0, i32 %1) #0 !dbg !4 {
//   7:                                    ; preds = %2
//     %8 = phi i32 [ 0, %2 ], [ %9, %7 ]
//     %9 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !7
//   attributes #0 = { nounwind }
//   !7 = !DILocation(line: 8, column: 24, scope: !4)
//
// gives (shapes)
//   "define ptx_kernel void @k ( ptr addrspace ( 1 ) %_ , i32 %_ ) #attrs {"
//   "^:"
//   "%_ = phi i32 [ 0 , ^ ] , [ %_ , ^ ]"
//   "%_ = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x ( )"   op "call", callee
//                                     "llvm.nvvm.read.ptx.sreg.tid.x", py_line 8
//   "#attrs = { nounwind }"          (order-free; #0 is named by its content)
// The comment, `!dbg` attachments and all DI* metadata are gone; `!N` nodes
// that only debug info used are dropped with it.
//
// Module-local globals are named by what they hold, like metadata: Triton
// numbers `@assertMessage_N` by what the module already has, LLVM `@.str.N`
// and `@N` by creation order, so
//   @assertMessage_3 = internal constant [7 x i8] c"x > 0\00"
//   call void @__assertfail(ptr @assertMessage_3, ...)
// gives "@_ = internal constant [ 7 x i8 ] c"x > 0\00"" (order-free) and
// "call void @__assertfail ( ptr @_ , ... )", the name `@c<hash of the
// definition>` in the canonical text. Global variables only (functions keep
// their names), and only those defined before their uses (LLVM prints
// globals first).
#include <memory>
#include <unordered_set>

#include "normalize/engine.h"
#include "normalize/handler_util.h"

namespace ksnap::norm::detail {
namespace {

using ir::TokenKind;

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

class LlvmHandler : public DialectHandler {
 public:
  void line(Engine& e, TokenSpan toks) override;

 private:
  void metadata_definition(Engine& e, TokenSpan toks);
  bool local_global_definition(Engine& e, TokenSpan toks);
  void emit(Engine& e, TokenSpan toks, size_t from, bool results, bool all_defs, bool phi);

  uint32_t unit_depth_ = 0;
  std::unordered_set<std::string_view> local_globals_;  ///< `@name` tokens, views into the source.
};

/// `@x = [linkage ...] global|constant ...` with `private` or `internal`
/// linkage: a module-local global variable, defined by the rest of the line.
bool LlvmHandler::local_global_definition(Engine& e, TokenSpan toks) {
  if (!e.opts().rename_globals || e.in_unit()) return false;
  bool local = false, constant = false;
  size_t i = 2;
  for (; i < toks.size(); ++i) {
    const ir::Token& t = toks[i];
    if (is_bare(t, "private") || is_bare(t, "internal")) local = true;
    if (is_bare(t, "global") || is_bare(t, "constant")) {
      constant = t.text == "constant";
      break;
    }
    if (t.kind != TokenKind::kBareId && !is_punct(t, '(') && !is_punct(t, ')') &&
        t.kind != TokenKind::kInteger && t.kind != TokenKind::kString)
      return false;  // `addrspace(3)`, `section "x"` pass; anything else is not a variable
  }
  if (!local || i == toks.size()) return false;
  uint32_t s = e.global(toks[0].text, SymbolClass::kGlobal, kGlobalMask);
  local_globals_.insert(toks[0].text);
  // A variable is an identity (two of equal content are two places); two
  // constants of equal content are interchangeable.
  e.sym(s).distinct = !constant;
  e.symbol(s, toks[0].text, true);
  e.text(toks[1].text);
  e.define(s);
  e.cur().order_free = true;
  emit(e, toks, 2, false, false, false);
  return true;
}

void LlvmHandler::metadata_definition(Engine& e, TokenSpan toks) {
  const NormalizeOptions& o = e.opts();
  uint32_t s = e.global(toks[0].text, SymbolClass::kMetadata, kMetadataMask);
  size_t k = 2;
  if (k < toks.size() && is_bare(toks[k], "distinct")) {
    e.sym(s).distinct = true;
    ++k;
  }
  bool debug = k < toks.size() && toks[k].kind == TokenKind::kBangId &&
               (starts_with(toks[k].text, "!DI") || starts_with(toks[k].text, "!DW"));
  // A location inlined from another function (`inlinedAt: !13`: a
  // tl.max from Triton's standard.py) stands for its caller's line, the
  // kernel's own outermost; `line: 0` is no line.
  int32_t line = -1;
  for (size_t i = k; debug && i + 2 < toks.size(); ++i) {
    if (is_bare(toks[i], "inlinedAt") && is_punct(toks[i + 1], ':') &&
        toks[i + 2].kind == TokenKind::kBangId) {
      e.sym(s).py_sym = e.global(toks[i + 2].text, SymbolClass::kMetadata, kMetadataMask);
      line = -1;
      break;
    }
    if (line < 0 && is_bare(toks[i], "line") && is_punct(toks[i + 1], ':') &&
        toks[i + 2].kind == TokenKind::kInteger) {
      int32_t n = static_cast<int32_t>(parse_int(toks[i + 2].text));
      if (n > 0) line = n;
    }
  }
  if (line > 0) e.sym(s).py_line = line;
  if (!debug) {  // module flags that only describe debug info
    for (size_t i = k; i < toks.size(); ++i) {
      if (toks[i].kind == TokenKind::kString &&
          (toks[i].text == "\"Debug Info Version\"" || toks[i].text == "\"Dwarf Version\"")) {
        debug = true;
        break;
      }
    }
  }
  if (debug && o.drop_locations) {
    e.sym(s).dropped = true;
    e.skip_line();
    return;
  }
  if (!o.rename_metadata) {
    emit(e, toks, 0, false, false, false);
    return;
  }
  e.symbol(s, toks[0].text, true);
  e.text(toks[1].text);
  e.define(s);
  e.cur().cond_sym = s;
  e.cur().order_free = true;
  emit(e, toks, 2, false, false, false);
}

void LlvmHandler::line(Engine& e, TokenSpan toks) {
  if (toks.empty()) return;
  const NormalizeOptions& o = e.opts();
  const ir::Token& t0 = toks[0];
  switch (t0.kind) {
    case TokenKind::kBareId:
      if (t0.text == "source_filename" && o.drop_locations) {
        e.skip_line();
        return;
      }
      if (t0.text == "attributes" && toks.size() >= 3 && toks[1].kind == TokenKind::kHashId &&
          is_punct(toks[2], '=') && o.rename_metadata) {
        uint32_t s = e.global(toks[1].text, SymbolClass::kAttrGroup, kAttrGroupMask);
        e.text(t0.text);
        e.symbol(s, toks[1].text, true);
        e.text(toks[2].text);
        e.define(s);
        e.cur().cond_sym = s;
        e.cur().order_free = true;
        emit(e, toks, 3, false, false, false);
        return;
      }
      break;
    case TokenKind::kBangId:
      if (toks.size() >= 2 && is_punct(toks[1], '=')) {
        if (numbered(t0.text)) {
          metadata_definition(e, toks);
          return;
        }
        if ((t0.text == "!llvm.dbg.cu" && o.drop_locations) ||
            (t0.text == "!llvm.ident" && o.drop_ident)) {
          e.skip_line();
          return;
        }
      }
      break;
    case TokenKind::kHashId:
      if (starts_with(t0.text, "#dbg_") && o.drop_locations) {  // debug records
        e.skip_line();
        return;
      }
      break;
    case TokenKind::kSymbolRef:
      if (toks.size() >= 3 && is_punct(toks[1], '=') && local_global_definition(e, toks)) return;
      break;
    default:
      break;
  }
  // The op: after `%x =`, past `tail` / `musttail` / `notail`.
  bool results = t0.kind == TokenKind::kValueId && toks.size() >= 2 && is_punct(toks[1], '=');
  size_t at = results ? 2 : 0;
  while (at < toks.size() && (is_bare(toks[at], "tail") || is_bare(toks[at], "musttail") ||
                              is_bare(toks[at], "notail"))) {
    ++at;
  }
  std::string_view op;
  if (at < toks.size() && toks[at].kind == TokenKind::kBareId) op = toks[at].text;
  bool started = false;
  if (!op.empty()) {
    e.set_op(op);
    if (op == "call" || op == "invoke" || op == "callbr") {
      for (size_t i = at + 1; i < toks.size(); ++i) {
        if (toks[i].kind == TokenKind::kSymbolRef) {
          std::string_view callee = symbol_name(toks[i].text);
          if (starts_with(callee, "llvm.dbg.") && o.drop_locations) {
            e.skip_line();
            return;
          }
          e.set_callee(callee);
          break;
        }
        if (is_bare(toks[i], "asm")) {
          e.set_callee(toks[i].text);
          break;
        }
      }
    } else if (op == "define" && !e.in_unit() && e.depth_after() > e.depth_before()) {
      for (size_t i = at + 1; i < toks.size(); ++i) {
        if (toks[i].kind == TokenKind::kSymbolRef) {
          e.start_unit(symbol_name(toks[i].text));
          unit_depth_ = e.depth_before();
          started = true;
          break;
        }
      }
    }
  }
  emit(e, toks, 0, results, op == "define", op == "phi");
  if (e.in_unit() && !started && e.depth_after() <= unit_depth_) e.end_unit();
}

void LlvmHandler::emit(Engine& e, TokenSpan toks, size_t from, bool results, bool all_defs,
                       bool phi) {
  const NormalizeOptions& o = e.opts();
  for (size_t i = from; i < toks.size(); ++i) {
    const ir::Token& t = toks[i];
    // Names are most tokens (`{ float, float, ...}`) and go as they are: a
    // test that the branch predictor learns, before the switch's jump.
    if (t.kind == TokenKind::kBareId) {
      e.text(t.text);
      continue;
    }
    switch (t.kind) {
      case TokenKind::kTypeList:  // `float, float, ...`: type names and commas, as they are
        e.text_list(t.text);
        continue;
      case TokenKind::kComment:
        e.comment(t, o.drop_comments);
        continue;
      case TokenKind::kLabelDef:
        if (o.rename_blocks) {  // `7:`, `.lr.ph:`, `"45":` name the block `7`, `.lr.ph`, `"45"`
          std::string_view name = t.text.substr(0, t.text.size() - 1);
          e.symbol(e.block_def(name), name, true, ":");
        } else {
          e.text(t.text);
        }
        continue;
      case TokenKind::kValueId: {
        bool is_block = (i > 0 && is_bare(toks[i - 1], "label")) ||
                        (phi && i + 1 < toks.size() && is_punct(toks[i + 1], ']'));
        if (is_block) {
          if (o.rename_blocks) {
            e.symbol(e.block_use(t.text.substr(1)), t.text, false);
          } else {
            e.text(t.text);
          }
        } else if (o.rename_values) {
          bool def = all_defs || (results && i == 0);
          e.symbol(def ? e.value_def(t.text) : e.value_use(t.text), t.text, def);
        } else {
          e.text(t.text);
        }
        continue;
      }
      case TokenKind::kPunct:
        // `, !dbg !7` and the define line's ` !dbg !4`: the op's location.
        if (is_punct(t, ',') && i + 2 < toks.size() && toks[i + 1].text == "!dbg" &&
            numbered(toks[i + 2].text) && o.drop_locations) {
          if (e.full()) {
            e.cur().py_sym = e.global(toks[i + 2].text, SymbolClass::kMetadata, kMetadataMask);
          }
          e.drop(t, toks[i + 2]);
          i += 2;
          continue;
        }
        e.text(t.text);
        continue;
      case TokenKind::kBangId:
        if (t.text == "!dbg" && i + 1 < toks.size() && numbered(toks[i + 1].text)) {
          if (e.full()) {
            e.cur().py_sym = e.global(toks[i + 1].text, SymbolClass::kMetadata, kMetadataMask);
          }
          if (o.drop_locations) {
            e.drop(t, toks[i + 1]);
            ++i;
            continue;
          }
        }
        if (numbered(t.text) && o.rename_metadata) {
          e.symbol(e.global(t.text, SymbolClass::kMetadata, kMetadataMask), t.text, false);
        } else {
          e.text(t.text);
        }
        continue;
      case TokenKind::kHashId:
        if (numbered(t.text) && o.rename_metadata) {
          e.symbol(e.global(t.text, SymbolClass::kAttrGroup, kAttrGroupMask), t.text, false);
        } else {
          e.text(t.text);
        }
        continue;
      case TokenKind::kSymbolRef:
        if (!local_globals_.empty() && local_globals_.count(t.text)) {
          e.symbol(e.global(t.text, SymbolClass::kGlobal, kGlobalMask), t.text, false);
        } else {
          e.text(t.text);
        }
        continue;
      case TokenKind::kString:
        if (o.drop_ident && i >= 2 && is_punct(toks[i - 1], ':') && is_bare(toks[i - 2], "producer")) {
          e.drop(t, t);
          continue;
        }
        e.text(t.text);
        continue;
      default:
        e.text(t.text);
        continue;
    }
  }
}

}  // namespace

std::unique_ptr<DialectHandler> make_llvm_handler() { return std::make_unique<LlvmHandler>(); }

}  // namespace ksnap::norm::detail

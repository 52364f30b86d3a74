// Rules for the assembly-like texts: AMDGCN (`.amdgcn`) and SPIR-V
// disassembly (`.spvdis`). Worked examples:
//
//   AMDGCN                                    shape
//   add_kernel:                ; @add_kernel  "add_kernel:"  (starts unit)
//     s_load_dwordx2 s[0:1], s[4:5], 0x0      "s_load_dwordx2 s [ 0 : 1 ] , ..."
//     s_cbranch_scc1 .LBB0_2                  "s_cbranch_scc1 .L"
//   .LBB0_2:                                  ".L:"
//     .loc 1 12 3                             (dropped, py_line 12 for what follows)
//
//   SPIR-V
//   %uint = OpTypeInt 32 0                    "%_ = OpTypeInt 32 0"
//   OpName %main "main"                       (dropped: it only names a value)
//   OpLine %file 12 3                         (dropped: a location)
//
// Physical registers (`s5`, `v[0:3]`) are real names and stay. SPIR-V ids are
// module-wide, so a SPIR-V file is a single unit.
#include <memory>

#include "normalize/engine.h"
#include "normalize/handler_util.h"

namespace ksnap::norm::detail {
namespace {

using ir::TokenKind;

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

constexpr std::string_view kAsmLabelMask = ".L";

bool is_debug_label(std::string_view name) {
  return starts_with(name, ".Ltmp") || starts_with(name, ".Lfunc_begin") ||
         starts_with(name, ".Ldebug") || starts_with(name, ".Linfo_string") ||
         starts_with(name, ".Lsec_end") || starts_with(name, ".Lcu_begin");
}

class AsmHandler : public DialectHandler {
 public:
  explicit AsmHandler(ir::Dialect d) : spirv_(d == ir::Dialect::kSpirv) {}
  void line(Engine& e, TokenSpan toks) override;

 private:
  bool amdgcn_directive(Engine& e, TokenSpan toks);
  bool spirv_dropped(Engine& e, TokenSpan toks);
  void emit(Engine& e, TokenSpan toks);

  bool spirv_;
  bool in_debug_section_ = false;
  int32_t pending_py_ = -1;
};

bool AsmHandler::amdgcn_directive(Engine& e, TokenSpan toks) {
  const NormalizeOptions& o = e.opts();
  std::string_view d = toks[0].text;
  if (d == ".section" || d == ".text" || d == ".data" || d == ".rodata" || d == ".bss") {
    bool debug = d == ".section" && toks.size() >= 2 && starts_with(toks[1].text, ".debug");
    in_debug_section_ = debug && o.drop_locations;
    if (in_debug_section_) e.skip_line();
    return in_debug_section_;
  }
  if (in_debug_section_) {
    e.skip_line();
    return true;
  }
  if (d == ".loc") {
    if (toks.size() >= 3) pending_py_ = static_cast<int32_t>(parse_int(toks[2].text));
    if (o.drop_locations) e.skip_line();
    return o.drop_locations;
  }
  if ((d == ".file" || starts_with(d, ".cfi_")) && o.drop_locations) {
    e.skip_line();
    return true;
  }
  if (d == ".ident" && o.drop_ident) {
    e.skip_line();
    return true;
  }
  return false;
}

bool AsmHandler::spirv_dropped(Engine& e, TokenSpan toks) {
  const NormalizeOptions& o = e.opts();
  size_t at = (toks.size() >= 2 && is_punct(toks[1], '=')) ? 2 : 0;
  if (at >= toks.size() || toks[at].kind != TokenKind::kBareId) return false;
  std::string_view op = toks[at].text;
  bool loc = op == "OpLine" || op == "OpNoLine" || op == "OpSource" ||
             op == "OpSourceContinued" || op == "OpSourceExtension" || op == "OpString" ||
             op == "OpModuleProcessed";
  bool name = op == "OpName" || op == "OpMemberName";
  if (op == "OpLine" && toks.size() >= 3) pending_py_ = static_cast<int32_t>(parse_int(toks[2].text));
  if ((loc && o.drop_locations) || (name && o.rename_values)) {
    e.skip_line();
    return true;
  }
  return false;
}

void AsmHandler::line(Engine& e, TokenSpan toks) {
  if (toks.empty()) return;
  const ir::Token& t0 = toks[0];
  if (!spirv_) {
    if (t0.kind == TokenKind::kDirective && amdgcn_directive(e, toks)) return;
    if (in_debug_section_) {
      e.skip_line();
      return;
    }
    if (t0.kind == TokenKind::kLabelDef && t0.text[0] != '.') {  // a function's entry label
      if (e.in_unit()) e.end_unit();
      e.start_unit(t0.text.substr(0, t0.text.size() - 1));
    }
  } else if (spirv_dropped(e, toks)) {
    return;
  }
  size_t at = (spirv_ && toks.size() >= 2 && is_punct(toks[1], '=')) ? 2 : 0;
  if (at < toks.size() && toks[at].kind == TokenKind::kBareId) {
    e.set_op(toks[at].text);
    // `%r = OpFunctionCall %type %callee args...`
    if (toks[at].text == "OpFunctionCall" && at + 2 < toks.size() &&
        toks[at + 2].kind == TokenKind::kValueId) {
      e.set_callee(toks[at + 2].text);
    }
    e.cur().py_line = pending_py_;
  }
  emit(e, toks);
  if (!spirv_ && e.in_unit() && t0.kind == TokenKind::kLabelDef &&
      starts_with(t0.text, ".Lfunc_end")) {
    e.end_unit();
  }
}

void AsmHandler::emit(Engine& e, TokenSpan toks) {
  const NormalizeOptions& o = e.opts();
  for (size_t i = 0; i < toks.size(); ++i) {
    const ir::Token& t = toks[i];
    switch (t.kind) {
      case TokenKind::kComment:
        e.comment(t, o.drop_comments ||
                         (o.drop_ident && (t.text.find("Generator:") != std::string_view::npos ||
                                           t.text.find("clang version") != std::string_view::npos)));
        continue;
      case TokenKind::kLabelDef:
        if (o.rename_blocks && starts_with(t.text, ".L")) {
          e.label(t, kAsmLabelMask, is_debug_label(t.text));
        } else {
          e.text(t.text);
        }
        continue;
      case TokenKind::kDirective:
        if (o.rename_blocks && i > 0 && starts_with(t.text, ".L")) {
          e.symbol(e.block(t.text, kAsmLabelMask), t.text, false);
        } else {
          e.text(t.text);
        }
        continue;
      case TokenKind::kValueId:
        if (spirv_ && o.rename_values) {
          bool def = i == 0 && toks.size() >= 2 && is_punct(toks[1], '=');
          e.symbol(def ? e.value_def(t.text) : e.value_use(t.text), t.text, def);
        } else {
          e.text(t.text);
        }
        continue;
      default:
        e.text(t.text);
        continue;
    }
  }
}

}  // namespace

std::unique_ptr<DialectHandler> make_asm_handler(ir::Dialect d) {
  return std::make_unique<AsmHandler>(d);
}

}  // namespace ksnap::norm::detail

// Rules for NVIDIA SASS: `nvdisasm -c` and `cuobjdump -sass` text of a cubin
// (the `sass` stage). Lexed by PTX rules. Worked example (nvdisasm):
//
//   source                                              shape
//   //------------ .text.saxpy ------------             (comment: dropped)
//   	.sectioninfo	@"SHI_REGISTERS=10"                ".sectioninfo @ "SHI_REGISTERS=10""
//                                                       resource sass.registers = 10
//   saxpy:                                              "saxpy:" (starts unit saxpy)
//           /*0040*/   IMAD R0, R0, c[0x0][0x0], R3 ;   "IMAD R , R , c [ 0x0 ] [ 0x0 ] , R ;"
//           /*0060*/   @!P0 BRA `(.L_x_0) ;             "@ ! P BRA ` ( .L ) ;" (op "BRA")
//   .L_x_0:                                             ".L:"
//           /*0100*/   FFMA R5, R2.reuse, R4, R5 ;      "FFMA R , R.reuse , R , R ;"
//   cuobjdump:  /*0010*/ S2R R0, SR_TID.X ;  /* 0x0000000000007919 */
//                                                       "S2R R , SR_TID.X ;"
//
// Addresses (`/*0040*/`) and instruction encodings (`/* 0x... */`) are always
// dropped: they move whenever code above them changes. Registers R, UR, P,
// UP, B (and uniform / barrier kinds) are renamed by first occurrence within
// the function when values are renamed (the default; `--keep-values` keeps
// register numbers), so a different allocation of the same code is no
// change; RZ, URZ, PT, UPT and special registers (SR_TID.X) keep their names.
// Branch labels (`.L_x_3`) are renamed like blocks; cuobjdump's numeric
// branch targets (`BRA 0x110`) are masked as labels numbered by first use.
// The op of a line is its full mnemonic (`IMAD.WIDE.U32`), so op-count deltas
// are the instruction mix. Resources: `sass.registers` (SHI_REGISTERS, the
// registers per thread the cubin asks for) and `sass.R.used` / `sass.UR.used`
// / `sass.P.used` (highest register number used + 1, per function, summed).
#include <memory>
#include <string>

#include "normalize/engine.h"
#include "normalize/handler_util.h"

namespace ksnap::norm::detail {
namespace {

using ir::TokenKind;

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

constexpr std::string_view kLabelMask = ".L";

/// Register classes and their masks: the name less its number.
struct RegClass {
  std::string_view prefix;
  std::string_view mask;
};
constexpr RegClass kRegClasses[] = {
    {"UR", "UR"}, {"UP", "UP"}, {"SB", "SB"}, {"R", "R"}, {"P", "P"}, {"B", "B"},
};

/// `R12`, `UR4`, `P0`, `B1` (optionally followed by `.suffix`): the mask and
/// the length of the register name; {"", 0} for anything else (RZ, PT,
/// SR_TID.X, opcodes).
std::pair<std::string_view, size_t> register_of(std::string_view t, int64_t* number) {
  for (const RegClass& c : kRegClasses) {
    if (!starts_with(t, c.prefix)) continue;
    size_t i = c.prefix.size();
    size_t j = i;
    while (j < t.size() && t[j] >= '0' && t[j] <= '9') ++j;
    if (j == i || (j < t.size() && t[j] != '.')) return {{}, 0};
    *number = parse_count(t.substr(i, j - i));
    return {c.mask, j};
  }
  return {{}, 0};
}

/// Instructions whose first operand is read, not written.
bool no_destination(std::string_view op) {
  static constexpr std::string_view kOps[] = {
      "ST",     "RED",    "BRA",     "BRX",   "JMP",   "JMX",   "EXIT",  "RET",  "BAR",
      "BSSY",   "BSYNC",  "BREAK",   "WARPSYNC", "NOP", "CALL", "CAL",   "MEMBAR", "FENCE",
      "ERRBAR", "CCTL",   "YIELD",   "DEPBAR", "ARRIVES", "SYNCS", "KILL", "BPT", "WARPGROUP",
      "UBLKCP", "UTMALDG", "UTMASTG", "UTMAPF", "ACQBULK", "ELECT"};
  for (std::string_view p : kOps)
    if (starts_with(op, p)) return true;
  return false;
}

/// A line of only punctuation (cuobjdump's `..........` and `=====` rules).
bool decoration(TokenSpan toks) {
  for (const ir::Token& t : toks)
    if (t.kind != TokenKind::kPunct && t.kind != TokenKind::kComment) return false;
  return true;
}

class SassHandler : public DialectHandler {
 public:
  void line(Engine& e, TokenSpan toks) override;

 private:
  void note_register(Engine& e, std::string_view mask, int64_t n);
  void start_unit(Engine& e, std::string_view name);

  int64_t used_r_ = 0, used_ur_ = 0, used_p_ = 0;
};

void SassHandler::note_register(Engine& e, std::string_view mask, int64_t n) {
  int64_t* slot = mask == "R" ? &used_r_ : mask == "UR" ? &used_ur_ : mask == "P" ? &used_p_
                                                                                  : nullptr;
  if (!slot || n + 1 <= *slot) return;
  // Per function the highest number + 1; the module figure sums functions.
  e.add_resource(mask == "R" ? "sass.R.used" : mask == "UR" ? "sass.UR.used" : "sass.P.used",
                 n + 1 - *slot);
  *slot = n + 1;
}

void SassHandler::start_unit(Engine& e, std::string_view name) {
  if (e.in_unit()) e.end_unit();
  used_r_ = used_ur_ = used_p_ = 0;
  e.start_unit(name);
}

void SassHandler::line(Engine& e, TokenSpan toks) {
  const NormalizeOptions& o = e.opts();
  if (toks.empty()) return;
  if (decoration(toks)) {
    for (const ir::Token& t : toks)
      if (t.kind == TokenKind::kComment) e.comment(t, true);
    e.skip_line();
    return;
  }
  size_t first = 0;  // first token that is not an address comment
  while (first < toks.size() && toks[first].kind == TokenKind::kComment) {
    e.comment(toks[first], true);
    ++first;
  }
  if (first == toks.size()) return;
  const ir::Token& t0 = toks[first];
  // A function starts at its symbol label (nvdisasm) or `Function : name` (cuobjdump).
  if (t0.kind == TokenKind::kLabelDef && t0.text[0] != '.') {
    start_unit(e, t0.text.substr(0, t0.text.size() - 1));
  } else if (is_bare(t0, "Function") && first + 2 < toks.size() && is_punct(toks[first + 1], ':')) {
    start_unit(e, toks[first + 2].text);
  }
  if (t0.kind == TokenKind::kDirective && t0.text == ".sectioninfo" && first + 2 < toks.size()) {
    std::string_view v = toks[first + 2].text;  // "SHI_REGISTERS=10" (quoted)
    size_t at = v.find("SHI_REGISTERS=");
    if (at != std::string_view::npos) {
      std::string_view num = v.substr(at + 14);
      size_t end = 0;
      while (end < num.size() && num[end] >= '0' && num[end] <= '9') ++end;
      e.add_resource("sass.registers", parse_count(num.substr(0, end)));
    }
  }
  // The opcode: the first bare word after an optional `@P0` / `@!P0` guard.
  size_t op_at = first;
  if (op_at < toks.size() && is_punct(toks[op_at], '@')) {
    ++op_at;
    if (op_at < toks.size() && is_punct(toks[op_at], '!')) ++op_at;
    ++op_at;
  }
  bool instruction = false;  // an opcode followed, somewhere, by the closing ';'
  if (op_at < toks.size() && toks[op_at].kind == TokenKind::kBareId) {
    for (size_t i = op_at + 1; i < toks.size() && !instruction; ++i)
      instruction = is_punct(toks[i], ';');
  }
  std::string_view op = instruction ? toks[op_at].text : std::string_view{};
  if (instruction) e.set_op(op);
  bool dest_pending = instruction && !no_destination(op);
  bool branch = instruction && (starts_with(op, "BRA") || starts_with(op, "BRX") ||
                                starts_with(op, "JMP") || starts_with(op, "CAL") ||
                                starts_with(op, "BSSY") || starts_with(op, "BREAK"));
  for (size_t i = first; i < toks.size(); ++i) {
    const ir::Token& t = toks[i];
    switch (t.kind) {
      case TokenKind::kComment:
        // `/* 0x000fe40000000800 */` encodings always go; `//` as asked.
        e.comment(t, starts_with(t.text, "/*") || o.drop_comments);
        continue;
      case TokenKind::kLabelDef:
        if (o.rename_blocks && starts_with(t.text, ".L")) {
          e.label(t, kLabelMask, false);
        } else {
          e.text(t.text);
        }
        continue;
      case TokenKind::kDirective:
        if (o.rename_blocks && starts_with(t.text, ".L")) {
          e.symbol(e.block(t.text, kLabelMask), t.text, false);
        } else {
          e.text(t.text);
        }
        continue;
      case TokenKind::kInteger:
        if (branch && i > op_at && o.rename_blocks && starts_with(t.text, "0x")) {
          e.symbol(e.block(t.text, kLabelMask), t.text, false);  // cuobjdump target
        } else {
          e.text(t.text);
        }
        continue;
      case TokenKind::kBareId: {
        int64_t n = 0;
        auto [mask, len] = i == op_at ? std::pair<std::string_view, size_t>{} : register_of(t.text, &n);
        if (len == 0) {
          e.text(t.text);
          continue;
        }
        note_register(e, mask, n);
        bool def = dest_pending && i > op_at;
        if (i > op_at) dest_pending = false;
        if (o.rename_values) {
          e.symbol(e.value(t.text.substr(0, len), mask), t.text.substr(0, len), def,
                   t.text.substr(len));
        } else {
          e.text(t.text);
        }
        continue;
      }
      case TokenKind::kPunct:
        if (is_punct(t, ',') && i > op_at) dest_pending = false;
        e.text(t.text);
        continue;
      default:
        e.text(t.text);
        continue;
    }
  }
}

}  // namespace

std::unique_ptr<DialectHandler> make_sass_handler() { return std::make_unique<SassHandler>(); }

}  // namespace ksnap::norm::detail

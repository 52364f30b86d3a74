#include "ksnap/ir/lexer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ksnap::ir {
namespace {

// "kind:text" for every token up to (not including) kEof; newlines are "nl".
std::vector<std::string> lex_all(const std::string& text, Dialect d) {
  std::string buf = text;  // std::string keeps a NUL after size()
  Lexer lx(buf.c_str(), buf.size(), d);
  std::vector<std::string> out;
  for (int guard = 0; guard < 10000; ++guard) {
    Token t = lx.next();
    if (t.kind == TokenKind::kEof) break;
    if (t.kind == TokenKind::kNewline) {
      out.push_back("nl");
    } else {
      out.push_back(std::string(token_kind_name(t.kind)) + ":" + std::string(t.text));
    }
  }
  return out;
}

struct Case {
  const char* name;
  Dialect dialect;
  const char* text;
  std::vector<std::string> want;
};

class LexerTableTest : public ::testing::TestWithParam<Case> {};

TEST_P(LexerTableTest, Tokens) {
  const Case& c = GetParam();
  EXPECT_EQ(lex_all(c.text, c.dialect), c.want);
}

const Case kCases[] = {
    {"mlir_op", Dialect::kMlir,
     "%x_3 = tt.addptr %x, %offsets_1 : tensor<256x!tt.ptr<f32>> loc(#loc24)",
     {"value-id:%x_3", "punct:=", "bare-id:tt.addptr", "value-id:%x", "punct:,",
      "value-id:%offsets_1", "punct::", "bare-id:tensor", "punct:<", "bare-id:256x",
      "bang-id:!tt.ptr", "punct:<", "bare-id:f32", "punct:>", "punct:>", "bare-id:loc",
      "punct:(", "hash-id:#loc24", "punct:)"}},
    {"mlir_result_group_and_use", Dialect::kMlir, "%acc:9 = scf.for %iv = %c0 to %c4\n%0#1",
     {"value-id:%acc", "punct::", "integer:9", "punct:=", "bare-id:scf.for", "value-id:%iv",
      "punct:=", "value-id:%c0", "bare-id:to", "value-id:%c4", "nl", "value-id:%0#1"}},
    {"mlir_negative_constant_name", Dialect::kMlir, "%c-1_i32 = arith.constant -1 : i32",
     {"value-id:%c-1_i32", "punct:=", "bare-id:arith.constant", "integer:-1", "punct::",
      "bare-id:i32"}},
    {"mlir_block_and_alias", Dialect::kMlir,
     "^bb1(%a: f32):\n#blocked1 = #ttg.blocked<{order = [0]}>",
     {"block-id:^bb1", "punct:(", "value-id:%a", "punct::", "bare-id:f32", "punct:)",
      "punct::", "nl", "hash-id:#blocked1", "punct:=", "hash-id:#ttg.blocked", "punct:<",
      "punct:{", "bare-id:order", "punct:=", "punct:[", "integer:0", "punct:]", "punct:}",
      "punct:>"}},
    {"mlir_comment_and_arrow", Dialect::kMlir, "tt.splat %a : i32 -> tensor<4xi32> // hi",
     {"bare-id:tt.splat", "value-id:%a", "punct::", "bare-id:i32", "punct:->",
      "bare-id:tensor", "punct:<", "bare-id:4xi32", "punct:>", "comment:// hi"}},
    {"mlir_generic_op_and_float", Dialect::kMlir,
     "%0 = \"tt.reduce\"(%1) <{axis = 1 : i32}> : 1.0e+00 0x7F800000",
     {"value-id:%0", "punct:=", "string:\"tt.reduce\"", "punct:(", "value-id:%1", "punct:)",
      "punct:<", "punct:{", "bare-id:axis", "punct:=", "integer:1", "punct::", "bare-id:i32",
      "punct:}", "punct:>", "punct::", "float:1.0e+00", "integer:0x7F800000"}},
    {"mlir_string_escape", Dialect::kMlir, R"(loc("a\"b":3:4))",
     {"bare-id:loc", "punct:(", R"(string:"a\"b")", "punct::", "integer:3", "punct::",
      "integer:4", "punct:)"}},
    {"llvm_instruction", Dialect::kLlvm, "  %8 = shl i32 %7, 8, !dbg !8 ; c\n",
     {"value-id:%8", "punct:=", "bare-id:shl", "bare-id:i32", "value-id:%7", "punct:,",
      "integer:8", "punct:,", "bang-id:!dbg", "bang-id:!8", "comment:; c", "nl"}},
    {"llvm_labels", Dialect::kLlvm, "7:\nbb3:   ; preds = %5\n  br label %7",
     {"label-def:7:", "nl", "label-def:bb3:", "comment:; preds = %5", "nl", "bare-id:br",
      "bare-id:label", "value-id:%7"}},
    {"llvm_metadata_field_is_not_label", Dialect::kLlvm,
     "!7 = !DILocation(line: 8, scope: !4)",
     {"bang-id:!7", "punct:=", "bang-id:!DILocation", "punct:(", "bare-id:line", "punct::",
      "integer:8", "punct:,", "bare-id:scope", "punct::", "bang-id:!4", "punct:)"}},
    {"llvm_attr_group_and_globals", Dialect::kLlvm,
     "call i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1, !\"s\" %\"q r\" 0xH3C00",
     {"bare-id:call", "bare-id:i32", "symbol-ref:@llvm.nvvm.read.ptx.sreg.tid.x", "punct:(",
      "punct:)", "hash-id:#1", "punct:,", "punct:!", "string:\"s\"", "value-id:%\"q r\"",
      "integer:0xH3C00"}},
    {"llvm_inline_asm_string", Dialect::kLlvm, R"(asm "mov.u32 $0, 0x0;\0A\09@$3 ld", "=r")",
     {"bare-id:asm", R"(string:"mov.u32 $0, 0x0;\0A\09@$3 ld")", "punct:,",
      "string:\"=r\""}},
    {"ptx_instruction", Dialect::kPtx, "\t@%p1 ld.global.v2.b32 { %r1, %r2 }, [ %rd1 + 0 ];",
     {"punct:@", "value-id:%p1", "bare-id:ld.global.v2.b32", "punct:{", "value-id:%r1",
      "punct:,", "value-id:%r2", "punct:}", "punct:,", "punct:[", "value-id:%rd1", "punct:+",
      "integer:0", "punct:]", "punct:;"}},
    {"ptx_reg_decl_and_special", Dialect::kPtx, ".reg .b32 %r<14>;\nmov.u32 %r7, %ctaid.x;",
     {"directive:.reg", "directive:.b32", "value-id:%r", "punct:<", "integer:14", "punct:>",
      "punct:;", "nl", "bare-id:mov.u32", "value-id:%r7", "punct:,", "value-id:%ctaid.x",
      "punct:;"}},
    {"ptx_labels_and_negated_guard", Dialect::kPtx,
     "$L__BB0_2:\n@!%p3 bra $L__BB0_2; // x\n.loc 1 8 24",
     {"label-def:$L__BB0_2:", "nl", "punct:@", "punct:!", "value-id:%p3", "bare-id:bra",
      "dollar-id:$L__BB0_2", "punct:;", "comment:// x", "nl", "directive:.loc",
      "integer:1", "integer:8", "integer:24"}},
    {"ptx_float_literals", Dialect::kPtx, "mov.f32 %f1, 0f3F800000; 0d3FF0000000000000",
     {"bare-id:mov.f32", "value-id:%f1", "punct:,", "float:0f3F800000", "punct:;",
      "float:0d3FF0000000000000"}},
    {"ptx_block_comment", Dialect::kPtx, "/* a\nb */ ret;",
     {"comment:/* a\nb */", "bare-id:ret", "punct:;"}},
    {"amdgcn", Dialect::kAmdgcn,
     ".LBB0_1:\n  s_load_dwordx2 s[0:1], s[4:5], 0x0 ; c\n  .amdhsa_next_free_vgpr 3",
     {"label-def:.LBB0_1:", "nl", "bare-id:s_load_dwordx2", "bare-id:s", "punct:[",
      "integer:0", "punct::", "integer:1", "punct:]", "punct:,", "bare-id:s", "punct:[",
      "integer:4", "punct::", "integer:5", "punct:]", "punct:,", "integer:0x0", "comment:; c",
      "nl", "directive:.amdhsa_next_free_vgpr", "integer:3"}},
    {"spirv", Dialect::kSpirv, "; SPIR-V\n%1 = OpTypeInt 32 0",
     {"comment:; SPIR-V", "nl", "value-id:%1", "punct:=", "bare-id:OpTypeInt", "integer:32",
      "integer:0"}},
    {"utf8_text_is_bare_id", Dialect::kMlir, "caf\xc3\xa9 x",
     {"bare-id:caf", "bare-id:\xc3\xa9", "bare-id:x"}},
};

INSTANTIATE_TEST_SUITE_P(All, LexerTableTest, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

struct ErrorCase {
  const char* name;
  Dialect dialect;
  std::string text;
  size_t error_offset;
  std::string message_part;
};

class LexerErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(LexerErrorTest, ReportsErrorAndOffset) {
  const ErrorCase& c = GetParam();
  Lexer lx(c.text.c_str(), c.text.size(), c.dialect);
  bool saw = false;
  for (int guard = 0; guard < 1000; ++guard) {
    Token t = lx.next();
    if (t.kind == TokenKind::kError) {
      saw = true;
      EXPECT_EQ(lx.error_offset(), c.error_offset);
      EXPECT_NE(std::string(lx.error_message()).find(c.message_part), std::string::npos)
          << lx.error_message();
      break;
    }
    if (t.kind == TokenKind::kEof) break;
  }
  EXPECT_TRUE(saw);
}

const ErrorCase kErrorCases[] = {
    {"string_at_newline", Dialect::kMlir, "a \"abc\nd", 2, "unterminated string"},
    {"string_at_eof", Dialect::kLlvm, "x = \"abc", 4, "unterminated string"},
    {"string_backslash_at_eof", Dialect::kMlir, "\"ab\\", 0, "unterminated string"},
    {"block_comment_at_eof", Dialect::kPtx, "ret; /* x", 5, "unterminated /*"},
    {"control_byte", Dialect::kPtx, "ret;\x01", 4, "control byte"},
    {"invalid_utf8", Dialect::kLlvm, "ret \xff", 4, "not UTF-8"},
    {"truncated_utf8", Dialect::kMlir, "x \xc3", 2, "not UTF-8"},
    {"embedded_nul", Dialect::kMlir, std::string("ab\0cd", 5), 2, "NUL byte"},
};

INSTANTIATE_TEST_SUITE_P(All, LexerErrorTest, ::testing::ValuesIn(kErrorCases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(LexerTest, EofIsStickyAndNeverPassesTheSentinel) {
  std::string text = "a";
  Lexer lx(text.c_str(), text.size(), Dialect::kPtx);
  EXPECT_EQ(lx.next().kind, TokenKind::kBareId);
  for (int i = 0; i < 3; ++i) {
    Token t = lx.next();
    EXPECT_EQ(t.kind, TokenKind::kEof);
    EXPECT_EQ(lx.offset(), 1u);
  }
}

TEST(LexerTest, ContinuesAfterAnError) {
  std::string text = "\"open\nnext";
  Lexer lx(text.c_str(), text.size(), Dialect::kMlir);
  EXPECT_EQ(lx.next().kind, TokenKind::kError);
  EXPECT_EQ(lx.next().kind, TokenKind::kNewline);
  Token t = lx.next();
  EXPECT_EQ(t.kind, TokenKind::kBareId);
  EXPECT_EQ(t.text, "next");
}

TEST(LexerTest, SameBytesDifferByDialect) {
  // `;` is a comment in LLVM but ends a statement in PTX; `!` is metadata in
  // LLVM but negation in PTX.
  EXPECT_EQ(lex_all("ret; !x", Dialect::kLlvm),
            (std::vector<std::string>{"bare-id:ret", "comment:; !x"}));
  EXPECT_EQ(lex_all("ret; !x", Dialect::kPtx),
            (std::vector<std::string>{"bare-id:ret", "punct:;", "punct:!", "bare-id:x"}));
}

TEST(LexerTest, NextLineGivesTheSameTokensAsNext) {
  std::string text = "%x = tt.load %p : tensor<4xf32> loc(#loc3)\n\n  tt.return\n}";
  Lexer a(text.c_str(), text.size(), Dialect::kMlir);
  Lexer b(text.c_str(), text.size(), Dialect::kMlir);
  std::vector<Token> via_next;
  for (Token t = a.next(); t.kind != TokenKind::kEof; t = a.next()) via_next.push_back(t);
  std::vector<Token> via_lines;
  Token buf[3];  // smaller than a line: next_line must resume
  size_t lines = 0;
  while (true) {
    size_t n = 0;
    Token end;
    bool done = b.next_line(buf, 3, &n, &end);
    via_lines.insert(via_lines.end(), buf, buf + n);
    if (!done) continue;
    ++lines;
    if (end.kind == TokenKind::kEof) break;
    via_lines.push_back(end);
  }
  EXPECT_EQ(lines, 4u);
  ASSERT_EQ(via_lines.size(), via_next.size());
  for (size_t i = 0; i < via_next.size(); ++i) {
    EXPECT_EQ(via_lines[i].kind, via_next[i].kind) << i;
    EXPECT_EQ(via_lines[i].text, via_next[i].text) << i;
  }
}

struct BracketCase {
  const char* name;
  Dialect dialect;
  const char* text;
  bool ok;
  size_t error_offset;
  const char* message_part;
};

class BracketTest : public ::testing::TestWithParam<BracketCase> {};

TEST_P(BracketTest, PairsUpOrReports) {
  const BracketCase& c = GetParam();
  std::string text = c.text;
  Lexer lx(text.c_str(), text.size(), c.dialect);
  lx.check_brackets(c.dialect != Dialect::kAmdgcn);
  Token t;
  do {
    t = lx.next();
  } while (t.kind != TokenKind::kEof && t.kind != TokenKind::kError);
  EXPECT_EQ(t.kind == TokenKind::kEof, c.ok);
  if (!c.ok) {
    EXPECT_EQ(lx.error_offset(), c.error_offset);
    EXPECT_NE(std::string(lx.error_message()).find(c.message_part), std::string::npos)
        << lx.error_message();
    if (std::string(c.message_part).find("never closed") != std::string::npos) {
      EXPECT_EQ(lx.next().kind, TokenKind::kEof);  // the last word; then the end
    }
  }
}

const BracketCase kBrackets[] = {
    {"balanced", Dialect::kMlir, "f(%a) {\n  x = [1, <2>] {}\n}", true, 0, ""},
    {"arrow_and_compare_do_not_count", Dialect::kMlir, "(d0) -> (d0 >= 0) <= x", true, 0, ""},
    {"strings_and_comments_do_not_count", Dialect::kLlvm, "call \"(\" ; )\n", true, 0, ""},
    {"assembly_shifts", Dialect::kAmdgcn, ".set x, 1<<4", true, 0, ""},
    {"never_closed", Dialect::kMlir, "a {\n b (\n", false, 7, "'(' is never closed"},
    {"wrong_closer", Dialect::kPtx, "{ ( }", false, 4, "opened at line 1:3"},
    {"nothing_open", Dialect::kLlvm, "ret )", false, 4, "nothing is open"},
};

INSTANTIATE_TEST_SUITE_P(All, BracketTest, ::testing::ValuesIn(kBrackets),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(LexerTest, BraceDepthAndInnerNewlines) {
  std::string text = "{ {\n } /* a\nb\nc */ x";
  Lexer lx(text.c_str(), text.size(), Dialect::kPtx);
  lx.check_brackets(true);
  std::vector<uint32_t> depth;
  for (Token t = lx.next(); t.kind != TokenKind::kEof; t = lx.next()) depth.push_back(lx.brace_depth());
  EXPECT_EQ(depth, (std::vector<uint32_t>{1, 2, 2, 1, 1, 1, 1}));  // the newline too
  EXPECT_EQ(lx.inner_newlines(), 2u);
}

TEST(LexerTest, StageNamesMapToDialects) {
  Dialect d;
  ASSERT_TRUE(dialect_for_stage("ttgir", &d));
  EXPECT_EQ(d, Dialect::kMlir);
  ASSERT_TRUE(dialect_for_stage("llir", &d));
  EXPECT_EQ(d, Dialect::kLlvm);
  ASSERT_TRUE(dialect_for_stage("ptx", &d));
  EXPECT_EQ(d, Dialect::kPtx);
  EXPECT_FALSE(dialect_for_stage("cubin", &d));
  EXPECT_STREQ(dialect_name(Dialect::kAmdgcn), "amdgcn");
}

// ---- fold_type_lists(): `{ T, T, ... }` as one token (LLVM IR) ----

std::vector<std::string> lex_folded(const std::string& text, bool by_line) {
  std::string buf = text;
  Lexer lx(buf.c_str(), buf.size(), Dialect::kLlvm);
  lx.check_brackets(true);
  lx.fold_type_lists();
  std::vector<std::string> out;
  auto name = [](const Token& t) {
    if (t.kind == TokenKind::kNewline) return std::string("nl");
    return std::string(token_kind_name(t.kind)) + ":" + std::string(t.text);
  };
  if (!by_line) {
    for (Token t = lx.next(); t.kind != TokenKind::kEof; t = lx.next()) out.push_back(name(t));
    return out;
  }
  Token toks[2];  // smaller than most lines: next_line must resume
  while (true) {
    size_t n = 0;
    Token end;
    bool done = lx.next_line(toks, 2, &n, &end);
    for (size_t i = 0; i < n; ++i) out.push_back(name(toks[i]));
    if (!done) continue;
    if (end.kind == TokenKind::kEof) break;
    out.push_back(name(end));
  }
  return out;
}

struct FoldCase {
  const char* name;
  const char* text;
  std::vector<std::string> want;
};

class TypeListTest : public ::testing::TestWithParam<FoldCase> {};

TEST_P(TypeListTest, FoldsOnlyARunOfOneTypeAfterABrace) {
  const FoldCase& c = GetParam();
  EXPECT_EQ(lex_folded(c.text, false), c.want);
  EXPECT_EQ(lex_folded(c.text, true), c.want);  // next_line gives next()'s tokens
}

const FoldCase kFoldCases[] = {
    {"two", "%1 = extractvalue { float, float } %0, 1",
     {"value-id:%1", "punct:=", "bare-id:extractvalue", "punct:{", "type-list:float, float",
      "punct:}", "value-id:%0", "punct:,", "integer:1"}},
    // 12 elements: the 8-byte compares run, then the byte loop ends it.
    {"long", "{ i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32 }",
     {"punct:{", "type-list:i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32",
      "punct:}"}},
    // A run of one type, then others (Triton's `{ float x 128, ptr
    // addrspace(3), i32, i32 }`): only the run is folded.
    {"mixed_tail", "{ float, float, ptr addrspace(3), i32, i32 }",
     {"punct:{", "type-list:float, float", "punct:,", "bare-id:ptr", "bare-id:addrspace",
      "punct:(", "integer:3", "punct:)", "punct:,", "bare-id:i32", "punct:,", "bare-id:i32",
      "punct:}"}},
    {"one_element", "{ float }", {"punct:{", "bare-id:float", "punct:}"}},
    {"two_types", "{ float, i32 }",
     {"punct:{", "bare-id:float", "punct:,", "bare-id:i32", "punct:}"}},
    // A longer name that starts like the type ends the run before it.
    {"longer_name", "{ float, float, floaty }",
     {"punct:{", "type-list:float, float", "punct:,", "bare-id:floaty", "punct:}"}},
    {"longer_second", "{ float, floaty }",
     {"punct:{", "bare-id:float", "punct:,", "bare-id:floaty", "punct:}"}},
    {"dotted_name", "{ float, float.x }",
     {"punct:{", "bare-id:float", "punct:,", "bare-id:float.x", "punct:}"}},
    // Not LLVM type keywords: names stay names (a handler looks for
    // `asm`, `label`, `global` ... by token).
    {"not_a_type", "{ asm, asm }",
     {"punct:{", "bare-id:asm", "punct:,", "bare-id:asm", "punct:}"}},
    {"bare_i", "{ i, i }", {"punct:{", "bare-id:i", "punct:,", "bare-id:i", "punct:}"}},
    {"value_elements", "{ float 1.0, float 2.0 }",
     {"punct:{", "bare-id:float", "float:1.0", "punct:,", "bare-id:float", "float:2.0",
      "punct:}"}},
    // Only right after `{ `: not after `(`, not after two spaces.
    {"in_parens", "call void @f(float, float)",
     {"bare-id:call", "bare-id:void", "symbol-ref:@f", "punct:(", "bare-id:float", "punct:,",
      "bare-id:float", "punct:)"}},
    {"two_spaces", "{  float, float }",
     {"punct:{", "bare-id:float", "punct:,", "bare-id:float", "punct:}"}},
    {"no_space_after_comma", "{ float,float }",
     {"punct:{", "bare-id:float", "punct:,", "bare-id:float", "punct:}"}},
    {"lines", "{ half, half }\n{ bfloat, bfloat, bfloat }",
     {"punct:{", "type-list:half, half", "punct:}", "nl", "punct:{",
      "type-list:bfloat, bfloat, bfloat", "punct:}"}},
};

INSTANTIATE_TEST_SUITE_P(All, TypeListTest, ::testing::ValuesIn(kFoldCases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(LexerTest, TypeListAtTheEndOfTheBufferStopsAtTheSentinel) {
  // Truncated inside the run: the run is the whole units before the end,
  // then the unclosed `{` is an error, and nothing reads past the NUL.
  for (std::string text : {"{ float, float", "{ float, float, flo", "{ i8, i8, i8, i8, i8, i8, i8",
                           "{ float, float,", "{ float, float, "}) {
    auto toks = lex_folded(text, false);
    ASSERT_GE(toks.size(), 2u) << text;
    EXPECT_EQ(toks[1].rfind("type-list:", 0), 0u) << text;
    EXPECT_EQ(toks.back(), "error:") << text;
  }
}

TEST(LexerTest, TypeListsAreOffUnlessAsked) {
  EXPECT_EQ(lex_all("{ float, float }", Dialect::kLlvm),
            (std::vector<std::string>{"punct:{", "bare-id:float", "punct:,", "bare-id:float",
                                      "punct:}"}));
}

}  // namespace
}  // namespace ksnap::ir

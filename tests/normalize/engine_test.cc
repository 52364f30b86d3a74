// The common machinery (engine.cc): bad input errors with the right line,
// bracket checking, line records (depth, skipping empty lines), display
// trimming and symbol offsets.
#include <gtest/gtest.h>

#include "normalize/test_util.h"

namespace ksnap::norm {
namespace {

using ir::Dialect;
using testing::norm_ok;

struct BadCase {
  const char* name;
  Dialect dialect;
  std::string text;
  uint32_t line;
  uint32_t column;
  const char* message_part;
};

class BadInputTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadInputTest, ParseErrorAtTheRightPlace) {
  const BadCase& c = GetParam();
  TextBuffer buf("bad.ir", c.text);
  for (bool fast : {false, true}) {
    Status s = fast ? normalized_hash(buf, c.dialect).status() : normalize(buf, c.dialect).status();
    ASSERT_FALSE(s.is_ok());
    EXPECT_EQ(s.code(), ErrorCode::kParseError);
    EXPECT_EQ(s.location().file, "bad.ir");
    EXPECT_EQ(s.location().line, c.line) << s.to_string();
    EXPECT_EQ(s.location().column, c.column) << s.to_string();
    EXPECT_NE(s.message().find(c.message_part), std::string::npos) << s.to_string();
  }
}

std::string long_line_file() {
  std::string s = "tt.func @k() {\n  %0 = arith.constant dense<[";
  while (s.size() < (1u << 20)) s += "1, ";
  s += "1]> : tensor<4xi32>\n}\n";
  return s;
}

const BadCase kBad[] = {
    {"unterminated_string_mlir", Dialect::kMlir, "module {\n  %0 = \"tt.x(%a)\n}\n", 2, 8,
     "unterminated string"},
    {"unterminated_string_llvm_at_eof", Dialect::kLlvm, "define void @k() {\n  call void asm \"mov",
     2, 17, "unterminated string"},
    {"region_never_closes", Dialect::kMlir,
     "module {\n  tt.func @k() {\n    scf.for %i = %a to %b step %c {\n      scf.yield\n", 3, 35,
     "never closed"},
    {"truncated_in_parens", Dialect::kLlvm, "define void @k(i32 %0, ", 1, 15, "never closed"},
    {"closing_the_wrong_bracket", Dialect::kMlir, "tt.func @k(%a: tensor<4xi32) {\n}\n", 1, 28,
     "does not close"},
    {"closing_nothing", Dialect::kPtx, "ret;\n}\n", 2, 1, "nothing is open"},
    {"one_megabyte_line", Dialect::kMlir, long_line_file(), 2, 1, "max_line_bytes"},
    {"binary_junk", Dialect::kPtx, std::string("ret;\n\x7f\x01\x02ELF", 9), 2, 1, "control byte"},
    {"stray_byte", Dialect::kLlvm, "ret void \xfe\n", 1, 10, "not UTF-8"},
    {"nul_inside", Dialect::kMlir, std::string("a\nb\0c\n", 6), 2, 2, "NUL"},
};

INSTANTIATE_TEST_SUITE_P(All, BadInputTest, ::testing::ValuesIn(kBad),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(EngineTest, MaxLineBytesIsAnOption) {
  TextBuffer buf("x.ir", long_line_file());
  NormalizeOptions o;
  o.max_line_bytes = 2u << 20;
  EXPECT_TRUE(normalize(buf, Dialect::kMlir, o));
}

TEST(EngineTest, DepthEmptyLinesAndTrimmedDisplay) {
  Module m = norm_ok("module {\n\n   tt.func @k() {   \n\t  tt.return   // bye\n  }\n}\n",
                     Dialect::kMlir);
  auto lines = testing::all_lines(m);
  ASSERT_EQ(lines.size(), 5u);  // the empty line and nothing else is skipped
  std::vector<uint32_t> nos, depths;
  for (const Line* l : lines) {
    nos.push_back(l->line_no);
    depths.push_back(l->depth);
  }
  // unit 0 (module, final brace) first, then the function unit.
  EXPECT_EQ(nos, (std::vector<uint32_t>{1, 6, 3, 4, 5}));
  EXPECT_EQ(depths, (std::vector<uint32_t>{0, 1, 1, 2, 2}));
  EXPECT_EQ(testing::find_line(m, "tt.return")->display, "tt.return");
  EXPECT_EQ(testing::find_line(m, "tt.func")->display, "tt.func @k() {");
}

TEST(EngineTest, SymbolOffsetsIndexTheDisplayAfterDrops) {
  // A location in the middle of the line is dropped with the space before it.
  Module m = norm_ok(
      "tt.func @k(%a: i32 loc(\"a\"(#loc)), %bb: i32 loc(\"b\"(#loc))) {\n}\n#loc = loc(\"f\":1:1)\n",
      Dialect::kMlir);
  const Line* f = testing::find_line(m, "tt.func");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->display, "tt.func @k(%a: i32, %bb: i32) {");
  EXPECT_EQ(testing::symbol_texts(*f), (std::vector<std::string>{"%a=%_!", "%bb=%_!"}));
}

TEST(EngineTest, CanonicalTextOfEveryLineMatchesTheFastPath) {
  // Order-free definitions sort; everything else keeps its order.
  const char* text =
      "#z = #ttg.blocked<{order = [1]}>\n#a = #ttg.blocked<{order = [0]}>\n"
      "tt.func @k(%x: tensor<4xi32, #z>, %y: tensor<4xi32, #a>) {\n}\n";
  TextBuffer buf("x", text);
  auto m = normalize(buf, Dialect::kMlir);
  ASSERT_TRUE(m);
  std::string canon = canonical_text(*m);
  size_t first = canon.find("#a");
  size_t second = canon.find("#a", first + 1);
  ASSERT_NE(second, std::string::npos);
  EXPECT_LT(canon.substr(first, 18), canon.substr(second, 18)) << canon;
  EXPECT_EQ(*normalized_hash(buf, Dialect::kMlir), m->hash);
}

TEST(EngineTest, ReentrantUseOnOneThreadIsSafe) {
  // normalize() reuses a per-thread scratch; two modules alive at once and
  // interleaved calls must not share state.
  Module a = norm_ok("tt.func @a(%x: i32) {\n}\n", Dialect::kMlir);
  Module b = norm_ok("define void @b(i32 %0) {\n  ret void\n}\n", Dialect::kLlvm);
  Module a2 = norm_ok("tt.func @a(%x: i32) {\n}\n", Dialect::kMlir);
  EXPECT_EQ(a.hash, a2.hash);
  EXPECT_NE(a.hash, b.hash);
  EXPECT_EQ(a.symbols.size(), 1u);
}

}  // namespace
}  // namespace ksnap::norm

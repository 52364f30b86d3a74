// MLIR's location table lines (`#loc12 = loc(...)`), which a hash-only scan
// passes over unlexed when it can prove the lexer and the handler would
// leave no trace of them (MlirHandler::skippable_line, mlir.cc). Each case
// says whether the line is passed over, and in a whole TTGIR module, at the
// top, in a function and as the file's last line (no newline after it),
// normalized_hash() must give exactly what normalize() gives: the same hash,
// or the same error at the same place.
#include <gtest/gtest.h>

#include <string>

#include "ksnap/normalize/normalize.h"
#include "normalize/engine.h"
#include "normalize/test_util.h"

namespace ksnap::norm {
namespace {

struct LocCase {
  const char* name;
  std::string line;
  bool skipped;
};

class LocTableSkipTest : public ::testing::TestWithParam<LocCase> {};

std::string module_with(const std::string& line, int where) {
  std::string head =
      "#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], "
      "order = [0]}>\n"
      "#loc = loc(\"/w/k.py\":3:0)\n";
  std::string body =
      "module attributes {\"ttg.num-warps\" = 4 : i32} {\n"
      "  tt.func public @k(%x: !tt.ptr<f32> loc(\"x\"(#loc))) attributes {noinline = false} {\n"
      "    %c1_i32 = arith.constant 1 : i32 loc(#loc5)\n";
  std::string tail =
      "    %0 = tt.get_program_id x : i32 loc(#loc6)\n"
      "    %1 = arith.addi %0, %c1_i32 : i32 loc(#loc5)\n"
      "    tt.return loc(#loc6)\n"
      "  } loc(#loc)\n"
      "} loc(#loc)\n"
      "#loc5 = loc(\"/w/k.py\":4:12)\n"
      "#loc6 = loc(\"/w/k.py\":5:7)\n";
  switch (where) {
    case 0:
      return head + line + "\n" + body + tail;
    case 1:
      return head + body + line + "\n" + tail;
    default:
      return head + body + tail + line;  // the last line, no newline after it
  }
}

TEST_P(LocTableSkipTest, PassedOverOnlyWhereNothingChanges) {
  const LocCase& c = GetParam();
  std::string text = c.line + "\n";
  auto handler = detail::make_mlir_handler(NormalizeOptions{});
  const char* end = handler->skippable_line(text.c_str(), text.c_str() + text.size());
  if (c.skipped) {
    EXPECT_EQ(end, text.c_str() + c.line.size());  // at its newline
  } else {
    EXPECT_EQ(end, nullptr);
  }
  NormalizeOptions keep;
  keep.drop_locations = false;  // locations kept: line() needs every line's tokens
  EXPECT_EQ(
      detail::make_mlir_handler(keep)->skippable_line(text.c_str(), text.c_str() + text.size()),
      nullptr);

  for (int where : {0, 1, 2}) {
    testing::expect_hash_path_agrees(module_with(c.line, where), ir::Dialect::kMlir,
                                     "placement " + std::to_string(where));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Lines, LocTableSkipTest,
    ::testing::Values(LocCase{"FileLineColumn", "#loc3 = loc(\"/w/kernels.py\":9:24)", true},
                      LocCase{"Named", "#loc20 = loc(\"block_start\"(#loc3))", true},
                      LocCase{"Callsite", "#loc7 = loc(callsite(#loc5 at #loc6))", true},
                      LocCase{"Fused", "#loc9 = loc(fused[#loc1, #loc2])", true},
                      LocCase{"Unknown", "#loc = loc(unknown)", true},
                      LocCase{"NonAsciiInString", "#loc8 = loc(\"/w/k\xc3\xa9.py\":1:2)", true},
                      LocCase{"TrailingWords", "#loc8 = loc(\"x\":1:2) more words 7", true},
                      LocCase{"DashedName", "#loc-8 = loc(\"x\":1:2)", true},
                      // Not passed over: line() or the lexer does something with these.
                      LocCase{"DebugInfoAlias", "#loc5 = loc(fused<#di_subprogram>[#loc1])", false},
                      LocCase{"OtherHashAlias", "#loc5 = loc(fused[#di1, #loc1])", false},
                      LocCase{"BangAlias", "#loc5 = loc(!foo)", false},
                      LocCase{"EscapeInString", "#loc5 = loc(\"a\\\"b\":1:2)", false},
                      LocCase{"Unclosed", "#loc5 = loc(\"x\":1:2", false},
                      LocCase{"ClosesTooMuch", "#loc5 = loc(\"x\":1:2))", false},
                      LocCase{"Mismatched", "#loc5 = loc(\"x\":1:2]", false},
                      LocCase{"Tab", "#loc5 = loc(\"x\"\t:1:2)", false},
                      LocCase{"DottedName", "#loc.x = loc(\"x\":1:2)", false},
                      LocCase{"NegativeNumber", "#loc5 = loc(\"x\":-1:2)", false},
                      LocCase{"TwoSpaces", "#loc5  = loc(\"x\":1:2)", false},
                      LocCase{"UnterminatedString", "#loc5 = loc(\"x:1:2)", false},
                      LocCase{"CarriageReturn", "#loc5 = loc(\"x\":1:2)\r", false},
                      LocCase{"NotALocTable", "#locx5 = #ttg.blocked<{order = [0]}>", false},
                      LocCase{"ControlByte", "#loc5 = loc(\"x\":1:2) \x01", false},
                      LocCase{"TooDeep",
                              "#loc5 = loc(" + std::string(40, '(') + std::string(40, ')') + ")",
                              false},
                      LocCase{"ShortAtTheEnd", "#lo", false}),
    [](const ::testing::TestParamInfo<LocCase>& i) { return std::string(i.param.name); });

// A NUL byte in a skippable line is the lexer's error, at the same place.
TEST(LocTableSkip, NulByteIsStillAnError) {
  testing::expect_hash_path_agrees(
      module_with(std::string("#loc8 = loc(\"x\":1:2)") + '\0' + "x", 1), ir::Dialect::kMlir,
      "a NUL after the line");
  TextBuffer buf("k.ttgir", module_with(std::string("#loc8 = loc(\"x\":1:2)") + '\0' + "x", 1));
  EXPECT_FALSE(normalized_hash(buf, ir::Dialect::kMlir).has_value());
}

}  // namespace
}  // namespace ksnap::norm

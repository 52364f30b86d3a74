// The structural diff's equal-unit shortcut (StructuralOptions::
// equal_units_by_position): a unit pair equal line by line has its symbols
// mapped position by position instead of aligned and voted on. Those
// mappings still decide how other units spell HEAD-only names (an h_ prefix
// where BASE uses the name for a symbol HEAD shows), so each case below has
// an unchanged unit whose mapping shows in a changed one. Every case must
// give the same output and the same symbol map with the shortcut as without,
// and exactly the expected lines. (tests/diff/perturb_test.cc checks the same
// equality on every mutation of the real-IR corpora.)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "diff/stage_dump.h"
#include "ksnap/diff/structural.h"
#include "ksnap/normalize/normalize.h"

namespace ksnap::diff {
namespace {

struct Case {
  const char* name;
  ir::Dialect dialect;
  const char* base;
  const char* head;
  std::vector<std::string> removed, added;  // texts of the changed lines, in order
};

const Case kCases[] = {
    {"llvm: a value renamed in an unchanged function claims its BASE name",
     ir::Dialect::kLlvm,
     R"(define i32 @f(i32 %a) {
entry:
  %x = add i32 %a, 1
  %z = mul i32 %x, 3
  ret i32 %z
}

define i32 @g(i32 %b) {
entry:
  %t = add i32 %b, 2
  ret i32 %t
}
)",
     R"(define i32 @f(i32 %a) {
entry:
  %y = add i32 %a, 1
  %z = mul i32 %y, 3
  ret i32 %z
}

define i32 @g(i32 %b) {
entry:
  %t = add i32 %b, 2
  %x = shl i32 %t, 1
  ret i32 %x
}
)",
     {"ret i32 %t"},
     {"%h_x = shl i32 %t, 1", "ret i32 %h_x"}},
    {"ttgir: two equal aliases in BASE, one in HEAD, an unchanged function between",
     ir::Dialect::kMlir,
     R"(#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func public @f(%arg0: i32) {
    %0 = tt.splat %arg0 : i32 -> tensor<128xi32, #blocked>
    tt.return
  }
  tt.func public @g(%arg0: i32) {
    %0 = tt.splat %arg0 : i32 -> tensor<128xi32, #blocked1>
    %1 = arith.addi %0, %0 : tensor<128xi32, #blocked1>
    tt.return
  }
}
)",
     R"(#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func public @f(%arg0: i32) {
    %0 = tt.splat %arg0 : i32 -> tensor<128xi32, #blocked>
    tt.return
  }
  tt.func public @g(%arg0: i32) {
    %0 = tt.splat %arg0 : i32 -> tensor<128xi32, #blocked>
    %1 = arith.muli %0, %0 : tensor<128xi32, #blocked>
    tt.return
  }
}
)",
     {"#blocked1 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], "
      "order = [0]}>",
      "%1 = arith.addi %0, %0 : tensor<128xi32, #blocked1>"},
     {"%1 = arith.muli %0, %0 : tensor<128xi32, #blocked>"}},
    {"ptx: a register written twice in an unchanged kernel",
     ir::Dialect::kPtx,
     ".version 8.7\n.target sm_90a\n.address_size 64\n\n"
     ".visible .entry f(\n\t.param .u32 f_param_0\n)\n{\n\t.reg .b32 \t%r<4>;\n"
     "\tld.param.u32 \t%r1, [f_param_0];\n\tadd.s32 \t%r2, %r1, 1;\n\tadd.s32 \t%r2, %r2, 1;\n"
     "\tmul.lo.s32 \t%r3, %r2, %r1;\n\tret;\n}\n\n"
     ".visible .entry g(\n\t.param .u32 g_param_0\n)\n{\n\t.reg .b32 \t%r<4>;\n"
     "\tld.param.u32 \t%r1, [g_param_0];\n\tadd.s32 \t%r2, %r1, 7;\n\tret;\n}\n",
     ".version 8.7\n.target sm_90a\n.address_size 64\n\n"
     ".visible .entry f(\n\t.param .u32 f_param_0\n)\n{\n\t.reg .b32 \t%r<4>;\n"
     "\tld.param.u32 \t%r1, [f_param_0];\n\tadd.s32 \t%r2, %r1, 1;\n\tadd.s32 \t%r2, %r2, 1;\n"
     "\tmul.lo.s32 \t%r3, %r2, %r1;\n\tret;\n}\n\n"
     ".visible .entry g(\n\t.param .u32 g_param_0\n)\n{\n\t.reg .b32 \t%r<4>;\n"
     "\tld.param.u32 \t%r1, [g_param_0];\n\tadd.s32 \t%r2, %r1, 8;\n"
     "\tadd.s32 \t%r3, %r2, %r1;\n\tret;\n}\n",
     {"add.s32 \t%r2, %r1, 7;"},
     {"add.s32 \t%r2, %r1, 8;", "add.s32 \t%h_r3, %r2, %r1;"}},
};

std::vector<std::string> texts(const StageDiff& sd, LineKind kind) {
  std::vector<std::string> out;
  for (const Hunk& h : sd.hunks)
    for (const DiffLine& l : h.lines)
      if (l.kind == kind) out.push_back(l.text);
  return out;
}

TEST(EqualUnitsTest, ShortcutGivesTheFullAlignmentsOutputAndMap) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    auto base = norm::normalize(TextBuffer("base", c.base), c.dialect);
    auto head = norm::normalize(TextBuffer("head", c.head), c.dialect);
    ASSERT_TRUE(base) << base.status().to_string();
    ASSERT_TRUE(head) << head.status().to_string();
    ASSERT_GE(base->units.size(), 3u);  // module level and two functions
    // The first function is the unchanged unit the shortcut takes.
    EXPECT_EQ(base->units[1].hash, head->units[1].hash);
    StageDiff fast, full;
    std::vector<int32_t> fast_map, full_map;
    StructuralOptions opts{1};
    structural_diff(*base, *head, opts, &fast, &fast_map);
    opts.equal_units_by_position = false;
    structural_diff(*base, *head, opts, &full, &full_map);
    EXPECT_EQ(fast_map, full_map);
    EXPECT_EQ(testing::dump_structural(fast), testing::dump_structural(full));
    EXPECT_EQ(texts(fast, LineKind::kRemoved), c.removed);
    EXPECT_EQ(texts(fast, LineKind::kAdded), c.added);
    EXPECT_TRUE(fast.fallback.empty()) << fast.fallback;
  }
}

}  // namespace
}  // namespace ksnap::diff

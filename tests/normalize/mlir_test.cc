// MLIR rules (mlir.cc): line fields, symbols, locations -> py_line, units.
#include <gtest/gtest.h>

#include "normalize/test_util.h"

namespace ksnap::norm {
namespace {

using ir::Dialect;
using testing::find_line;
using testing::norm_ok;
using testing::symbol_texts;

constexpr const char* kKernel = R"(#blocked = #ttg.blocked<{sizePerThread = [2], order = [0]}>
#loc = loc("/w/kernels.py":7:0)
module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func public @add_kernel(%x_ptr: !tt.ptr<f32> loc("x_ptr"(#loc)), %n: i32 loc("n"(#loc))) attributes {noinline = false} {
    %c256_i32 = arith.constant 256 : i32 loc(#loc1)
    %offsets_0 = tt.splat %n : i32 -> tensor<256xi32, #blocked> loc(#loc5)
    %offsets_1 = arith.addi %offsets_0, %offsets_0 : tensor<256xi32, #blocked> loc(#loc6)
    %r:2 = "tt.reduce"(%offsets_1, %offsets_1) <{axis = 0 : i32}> ({
    ^bb0(%a: i32 loc(unknown), %b: i32 loc(unknown)):
      %s = arith.addi %a, %b : i32 loc(#loc7)
      tt.reduce.return %s : i32 loc(#loc7)
    }) : (tensor<256xi32, #blocked>, tensor<256xi32, #blocked>) -> (i32, i32) loc(#loc7)
    tt.call @helper(%r#1) : (i32) -> () loc(#loc8)
    tt.call @helper2(%r#1) : (i32) -> () loc(#loc9)
    tt.call @helper3(%r#1) : (i32) -> () loc(callsite(#loc6 at #loc8))
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc1 = loc(unknown)
#loc2 = loc("/w/kernels.py":10:28)
#loc3 = loc("/w/std.py":43:17)
#loc4 = loc("/w/kernels.py":12:9)
#loc5 = loc("offsets"(#loc2))
#loc6 = loc(callsite(#loc3 at #loc4))
#loc7 = loc(fused[#loc2, #loc4])
#loc8 = loc("/w/kernels.py":13:5)
#loc9 = loc("/w/kernels.py":0:0)
)";

TEST(MlirTest, HeaderExampleLine) {
  Module m = norm_ok(kKernel, Dialect::kMlir);
  const Line* l = find_line(m, "%offsets_1 =");
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->shape, "%_ = arith.addi %_ , %_ : tensor < 256xi32 , #alias >");
  EXPECT_EQ(l->display, "%offsets_1 = arith.addi %offsets_0, %offsets_0 : tensor<256xi32, #blocked>");
  EXPECT_EQ(symbol_texts(*l),
            (std::vector<std::string>{"%offsets_1=%_!", "%offsets_0=%_", "%offsets_0=%_",
                                      "#blocked=#alias"}));
  EXPECT_EQ(l->op, "arith.addi");
  EXPECT_EQ(l->line_no, 7u);
  EXPECT_EQ(l->depth, 2u);
}

TEST(MlirTest, PythonLinesFollowTheLocTable) {
  Module m = norm_ok(kKernel, Dialect::kMlir);
  struct Want {
    const char* needle;
    int32_t py;
  };
  const Want kWant[] = {
      {"arith.constant", -1},     // loc(unknown)
      {"tt.splat", 10},           // name-loc -> file loc
      {"%offsets_1 =", 12},       // callsite: the caller, the kernel's own line (not std.py's 43)
      {"\"tt.reduce\"", -1},      // its loc is on the closing line
      {"}) :", 10},               // fused: the first
      {"tt.call @helper(", 13},   // a file loc directly
      {"@helper2", -1},           // line 0: no line
      {"@helper3", 13},           // nested callsites: the outermost caller
      {"tt.return", 7},
  };
  for (const Want& w : kWant) {
    const Line* l = find_line(m, w.needle);
    ASSERT_NE(l, nullptr) << w.needle;
    EXPECT_EQ(l->py_line, w.py) << w.needle;
  }
}

TEST(MlirTest, LocationsAndLocTableLeaveNoTrace) {
  Module m = norm_ok(kKernel, Dialect::kMlir);
  for (const Line* l : testing::all_lines(m)) {
    EXPECT_EQ(l->display.find("loc("), std::string::npos) << l->display;
    EXPECT_EQ(l->shape.find("loc ("), std::string::npos) << l->shape;
    EXPECT_EQ(l->shape.find("#loc"), std::string::npos) << l->shape;
  }
  const Line* f = find_line(m, "tt.func public");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->display,
            "tt.func public @add_kernel(%x_ptr: !tt.ptr<f32>, %n: i32) attributes {noinline = false} {");
  EXPECT_EQ(symbol_texts(*f), (std::vector<std::string>{"%x_ptr=%_!", "%n=%_!"}));
}

TEST(MlirTest, GenericOpsResultGroupsAndBlockArguments) {
  Module m = norm_ok(kKernel, Dialect::kMlir);
  const Line* red = find_line(m, "\"tt.reduce\"");
  ASSERT_NE(red, nullptr);
  EXPECT_EQ(red->op, "tt.reduce");
  EXPECT_EQ(red->shape.substr(0, 14), "%_ : 2 = \"tt.r");
  const Line* bb = find_line(m, "^bb0");
  ASSERT_NE(bb, nullptr);
  EXPECT_EQ(bb->op, "");
  EXPECT_EQ(symbol_texts(*bb), (std::vector<std::string>{"^bb0=^!", "%a=%_!", "%b=%_!"}));
  const Line* call = find_line(m, "tt.call");
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->callee, "helper");
  EXPECT_EQ(call->shape, "tt.call @helper ( %_#1 ) : ( i32 ) -> ( )");
  EXPECT_EQ(symbol_texts(*call), (std::vector<std::string>{"%r=%_"}));
}

TEST(MlirTest, UnitsSplitModuleLevelAndFunctions) {
  Module m = norm_ok(kKernel, Dialect::kMlir);
  ASSERT_EQ(m.units.size(), 2u);
  EXPECT_EQ(m.units[0].name, "");
  EXPECT_EQ(m.units[1].name, "add_kernel");
  EXPECT_EQ(m.units[1].lines.front().op, "tt.func");
  EXPECT_EQ(m.units[1].lines.back().display, "}");
  // module-level: the alias definition, `module attributes {`, the final `}`
  ASSERT_EQ(m.units[0].lines.size(), 3u);
  EXPECT_TRUE(m.units[0].lines[0].order_free);
  EXPECT_EQ(m.units[0].lines[0].shape,
            "#alias = #ttg.blocked < { sizePerThread = [ 2 ] , order = [ 0 ] } >");
  // Values are per unit, aliases module-wide.
  for (const Line& l : m.units[1].lines) {
    for (const SymbolRef& r : l.symbols) {
      const Symbol& s = m.symbols[r.id];
      EXPECT_EQ(s.unit, s.cls == SymbolClass::kAlias ? -1 : 1) << s.name;
    }
  }
}

TEST(MlirTest, ValuesAreNumberedByFirstOccurrence) {
  Module m = norm_ok("tt.func @k(%z: i32, %a: i32) {\n  %q = arith.addi %a, %z : i32\n}\n",
                     Dialect::kMlir);
  std::vector<uint64_t> ids;
  for (const Line* l : testing::all_lines(m)) {
    for (const SymbolRef& r : l->symbols) ids.push_back(m.symbols[r.id].canonical);
  }
  EXPECT_EQ(ids, (std::vector<uint64_t>{0, 1, 2, 1, 0}));
}

TEST(MlirTest, AliasIdentityIsItsDefinitionWithNestedAliasesResolved) {
  // #shared names #cta; renaming #cta everywhere changes nothing, changing
  // its definition changes #shared's identity and so every use.
  const char* a =
      "#cta = #ttg.cta_layout<{order = [0]}>\n#shared = #ttg.swizzled<{vec = 8, cta = #cta}>\n"
      "tt.func @k(%a: tensor<4xf16, #shared>) {\n}\n";
  const char* b =
      "#cta7 = #ttg.cta_layout<{order = [0]}>\n#shared = #ttg.swizzled<{vec = 8, cta = #cta7}>\n"
      "tt.func @k(%a: tensor<4xf16, #shared>) {\n}\n";
  const char* c =
      "#cta = #ttg.cta_layout<{order = [1]}>\n#shared = #ttg.swizzled<{vec = 8, cta = #cta}>\n"
      "tt.func @k(%a: tensor<4xf16, #shared>) {\n}\n";
  Module ma = norm_ok(a, Dialect::kMlir), mb = norm_ok(b, Dialect::kMlir),
         mc = norm_ok(c, Dialect::kMlir);
  EXPECT_EQ(ma.hash, mb.hash);
  EXPECT_NE(ma.hash, mc.hash);
  // The use line's shape is the same in all three: only identities differ.
  EXPECT_EQ(find_line(ma, "tt.func")->shape, find_line(mc, "tt.func")->shape);
}

// MLIR prints only aliases that something uses, so an alias nothing names
// is text someone wrote (a lit test): kept, and a change to it is visible
// (issue 8 item 10). Aliases that only dropped debug info names go with it.
TEST(MlirTest, UnusedAliasesStayDebugOnlyAliasesVanish) {
  const std::string unused = "#unused = #ttg.blocked<{order = [0]}>\ntt.func @k() {\n}\n";
  Module m = norm_ok(unused, Dialect::kMlir);
  EXPECT_NE(find_line(m, "#unused"), nullptr);
  Module only = norm_ok("#blocked = #ttg.blocked<{order = [0]}>\n", Dialect::kMlir);
  ASSERT_EQ(testing::all_lines(only).size(), 1u);
  EXPECT_NE(only.hash, norm_ok("#blocked = #ttg.blocked<{order = [1]}>\n", Dialect::kMlir).hash);
  const std::string debug_only =
      "#di_file = #llvm.di_file<\"k.py\" in \"/w\">\n"
      "#di_sub = #llvm.di_subprogram<file = #di_file, name = \"k\">\n"
      "#loc1 = loc(\"/w/k.py\":3:4)\n"
      "llvm.func @k() {\n"
      "  llvm.return loc(#loc2)\n"
      "}\n"
      "#loc2 = loc(fused<#di_sub>[#loc1])\n";
  Module d = norm_ok(debug_only, Dialect::kMlir);
  EXPECT_EQ(find_line(d, "#di_file"), nullptr);
  EXPECT_EQ(find_line(d, "#di_sub"), nullptr);
  EXPECT_NE(find_line(d, "llvm.return"), nullptr);
}

TEST(MlirTest, DialectAttributesAreNotAliases) {
  Module m = norm_ok("tt.func @k(%a: !tt.ptr<f32>) attributes {x = #tt<cache ca>} {\n}\n",
                     Dialect::kMlir);
  const Line* f = find_line(m, "tt.func");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->shape.find("!tt.ptr"), std::string::npos);
  EXPECT_NE(f->shape.find("#tt <"), std::string::npos);
  EXPECT_EQ(symbol_texts(*f), (std::vector<std::string>{"%a=%_!"}));
}

}  // namespace
}  // namespace ksnap::norm

namespace ksnap::norm {
namespace {

// Nested callsites name the outermost caller's line; a hostile line of
// ten thousand of them costs no stack and no quadratic time (it is
// followed 64 levels deep, then the line has no Python line).
TEST(MlirTest, NestedCallsitesAreFollowedAndBounded) {
  auto kernel = [](size_t depth) {
    std::string loc;
    for (size_t i = 0; i < depth; ++i) loc += "callsite(#loc1 at ";
    loc += "#loc2";
    loc += std::string(depth, ')');
    return "module {\n  tt.func public @k() {\n    %c1_i32 = arith.constant 1 : i32 loc(" + loc +
           ")\n    tt.return loc(#loc2)\n  } loc(#loc2)\n} loc(#loc2)\n"
           "#loc1 = loc(\"/w/std.py\":43:17)\n#loc2 = loc(\"/w/kernels.py\":12:9)\n";
  };
  Module shallow = norm_ok(kernel(3), Dialect::kMlir);
  const Line* c = find_line(shallow, "arith.constant");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->py_line, 12);
  Module deep = norm_ok(kernel(10000), Dialect::kMlir);  // 190 KB, under max_line_bytes
  const Line* d = find_line(deep, "arith.constant");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->py_line, -1);
}

}  // namespace
}  // namespace ksnap::norm

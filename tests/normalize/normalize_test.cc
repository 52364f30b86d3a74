// Every normalization rule, per dialect: two inputs that differ only in what
// the rule removes hash equal with the rule on, and differ with it off, and
// then the removed text is still in the shapes.
#include "ksnap/normalize/normalize.h"

#include <gtest/gtest.h>

#include "ksnap/support/hash.h"
#include "normalize/test_util.h"

namespace ksnap::norm {
namespace {

using ir::Dialect;
using testing::hash_ok;
using testing::joined_shapes;
using testing::norm_ok;

struct RuleCase {
  const char* name;
  Dialect dialect;
  bool NormalizeOptions::*rule;
  const char* a;
  const char* b;
  const char* kept;  ///< In a's shapes when the rule is off, absent when on.
  NormalizeOptions base = {};
};

NormalizeOptions comments_kept() {
  NormalizeOptions o;
  o.drop_comments = false;
  return o;
}

const RuleCase kRules[] = {
    // ---- MLIR ----
    {"mlir_values", Dialect::kMlir, &NormalizeOptions::rename_values,
     "tt.func @k(%arg0: i32) {\n  %x = arith.addi %arg0, %arg0 : i32\n  tt.return\n}\n",
     "tt.func @k(%a: i32) {\n  %sum_7 = arith.addi %a, %a : i32\n  tt.return\n}\n", "%x"},
    {"mlir_result_groups", Dialect::kMlir, &NormalizeOptions::rename_values,
     "tt.func @k() {\n  %acc:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%p = %z, %q = %z) -> (i32, i32) {\n"
     "    scf.yield %p, %q : i32, i32\n  }\n  tt.return %acc#1 : i32\n}\n",
     "tt.func @k() {\n  %r:2 = scf.for %j = %c0 to %c4 step %c1 iter_args(%s = %z, %t = %z) -> (i32, i32) {\n"
     "    scf.yield %s, %t : i32, i32\n  }\n  tt.return %r#1 : i32\n}\n",
     "%acc"},
    {"mlir_blocks", Dialect::kMlir, &NormalizeOptions::rename_blocks,
     "tt.func @k() {\n  cf.br ^bb1\n^bb1:\n  tt.return\n}\n",
     "tt.func @k() {\n  cf.br ^bb9\n^bb9:\n  tt.return\n}\n", "^bb1"},
    {"mlir_aliases_renumbered_and_reordered", Dialect::kMlir, &NormalizeOptions::rename_aliases,
     "#blocked = #ttg.blocked<{sizePerThread = [1]}>\n#blocked1 = #ttg.blocked<{sizePerThread = [4]}>\n"
     "tt.func @k(%a: tensor<4xi32, #blocked1>) {\n  %b = ttg.convert_layout %a : tensor<4xi32, #blocked1> -> "
     "tensor<4xi32, #blocked>\n  tt.return\n}\n",
     "#blocked1 = #ttg.blocked<{sizePerThread = [1]}>\n#blocked = #ttg.blocked<{sizePerThread = [4]}>\n"
     "tt.func @k(%a: tensor<4xi32, #blocked>) {\n  %b = ttg.convert_layout %a : tensor<4xi32, #blocked> -> "
     "tensor<4xi32, #blocked1>\n  tt.return\n}\n",
     "#blocked1"},
    {"mlir_type_alias", Dialect::kMlir, &NormalizeOptions::rename_aliases,
     "!t0 = !llvm.struct<(i32, f32)>\nllvm.func @k(%a: !t0) {\n  llvm.return\n}\n",
     "!s = !llvm.struct<(i32, f32)>\nllvm.func @k(%a: !s) {\n  llvm.return\n}\n", "!t0"},
    {"mlir_locations", Dialect::kMlir, &NormalizeOptions::drop_locations,
     "#loc = loc(\"/a/k.py\":7:0)\n#loc1 = loc(\"/a/k.py\":8:24)\n#loc2 = loc(\"pid\"(#loc1))\n"
     "tt.func @k(%x: i32 loc(\"x\"(#loc))) {\n  %0 = tt.get_program_id x : i32 loc(#loc2)\n"
     "  tt.return loc(callsite(#loc1 at #loc))\n} loc(#loc)\n",
     "#loc2 = loc(\"/b/c/k.py\":14:24)\n#loc = loc(\"/b/c/k.py\":13:0)\n#loc9 = loc(\"pid\"(#loc2))\n"
     "tt.func @k(%x: i32 loc(\"x\"(#loc))) {\n  %0 = tt.get_program_id x : i32 loc(#loc9)\n"
     "  tt.return loc(fused[#loc2, #loc])\n} loc(#loc)\n",
     "loc ("},
    {"mlir_comments", Dialect::kMlir, &NormalizeOptions::drop_comments,
     "// -----// IR Dump Before Foo //----- //\ntt.func @k() {\n  tt.return // done\n}\n",
     "tt.func @k() {\n  tt.return\n}\n", "// done"},
    // ---- LLVM IR ----
    {"llvm_values", Dialect::kLlvm, &NormalizeOptions::rename_values,
     "define void @k(i32 %0) {\n  %2 = add i32 %0, 1\n  ret void\n}\n",
     "define void @k(i32 %a) {\n  %b.1 = add i32 %a, 1\n  ret void\n}\n", "%2"},
    {"llvm_blocks", Dialect::kLlvm, &NormalizeOptions::rename_blocks,
     "define void @k(i1 %c) {\n  br i1 %c, label %3, label %4\n3:\n  br label %4\n4:\n"
     "  %5 = phi i32 [ 0, %1 ], [ 1, %3 ]\n  ret void\n}\n",
     "define void @k(i1 %c) {\n  br i1 %c, label %then, label %exit\nthen:\n  br label %exit\nexit:\n"
     "  %5 = phi i32 [ 0, %1 ], [ 1, %then ]\n  ret void\n}\n",
     "label %3"},
    {"llvm_metadata_and_attr_groups", Dialect::kLlvm, &NormalizeOptions::rename_metadata,
     "define void @k() #0 {\n  ret void, !range !5\n}\nattributes #0 = { nounwind }\n"
     "!nvvm.annotations = !{!4}\n!4 = !{ptr @k, !\"kernel\", i32 1}\n!5 = !{i32 0, i32 4}\n",
     "define void @k() #3 {\n  ret void, !range !1\n}\nattributes #3 = { nounwind }\n"
     "!nvvm.annotations = !{!0}\n!1 = !{i32 0, i32 4}\n!0 = !{ptr @k, !\"kernel\", i32 1}\n",
     "!5"},
    {"llvm_debug_info", Dialect::kLlvm, &NormalizeOptions::drop_locations,
     "source_filename = \"/a/k.py\"\ndefine void @k() !dbg !4 {\n  ret void, !dbg !7\n}\n"
     "!llvm.dbg.cu = !{!0}\n!llvm.module.flags = !{!2}\n"
     "!0 = distinct !DICompileUnit(language: DW_LANG_C, file: !1, producer: \"triton\")\n"
     "!1 = !DIFile(filename: \"k.py\", directory: \"/a\")\n!2 = !{i32 2, !\"Debug Info Version\", i32 3}\n"
     "!4 = distinct !DISubprogram(name: \"k\", file: !1, line: 7, unit: !0)\n"
     "!7 = !DILocation(line: 8, column: 24, scope: !4)\n",
     "source_filename = \"/b/c/k.py\"\ndefine void @k() !dbg !3 {\n  ret void, !dbg !9\n}\n"
     "!llvm.dbg.cu = !{!0}\n!llvm.module.flags = !{!2}\n"
     "!0 = distinct !DICompileUnit(language: DW_LANG_C, file: !1, producer: \"triton\")\n"
     "!1 = !DIFile(filename: \"k.py\", directory: \"/b/c\")\n!2 = !{i32 2, !\"Debug Info Version\", i32 3}\n"
     "!3 = distinct !DISubprogram(name: \"k\", file: !1, line: 14, unit: !0)\n"
     "!9 = !DILocation(line: 15, column: 24, scope: !3)\n",
     "!dbg"},
    {"llvm_ident", Dialect::kLlvm, &NormalizeOptions::drop_ident,
     "define void @k() {\n  ret void\n}\n!llvm.ident = !{!3}\n!3 = !{!\"clang version 18\"}\n",
     "define void @k() {\n  ret void\n}\n!llvm.ident = !{!3}\n!3 = !{!\"clang version 19\"}\n",
     "!llvm.ident"},
    {"llvm_comments", Dialect::kLlvm, &NormalizeOptions::drop_comments,
     "; ModuleID = 'LLVMDialectModule'\n; Function Attrs: nounwind\ndefine void @k() {\n  ret void\n}\n",
     "define void @k() {\n  ret void\n}\n", "; Function Attrs"},
    // ---- PTX ----
    {"ptx_registers", Dialect::kPtx, &NormalizeOptions::rename_values,
     ".visible .entry k()\n{\n\tmov.u32 %r5, %tid.x;\n\tshl.b32 %r6, %r5, 2;\n\tcvt.u64.u32 %rd1, %r6;\n\tret;\n}\n",
     ".visible .entry k()\n{\n\tmov.u32 %r1, %tid.x;\n\tshl.b32 %r12, %r1, 2;\n\tcvt.u64.u32 %rd9, %r12;\n\tret;\n}\n",
     "%r5"},
    {"ptx_labels", Dialect::kPtx, &NormalizeOptions::rename_blocks,
     ".visible .entry k()\n{\n\t@%p1 bra $L__BB0_2;\n$L__BB0_2:\n\tret;\n}\n",
     ".visible .entry k()\n{\n\t@%p1 bra $L__BB3_9;\n$L__BB3_9:\n\tret;\n}\n", "$L__BB0_2"},
    {"ptx_locations", Dialect::kPtx, &NormalizeOptions::drop_locations,
     ".visible .entry k()\n{\n\t.loc\t1 8 24\n$L__tmp0:\n\tret;\n$L__func_end0:\n}\n\t.file\t1 \"/a/k.py\"\n"
     "\t.section\t.debug_info\n\t{\n.b32 57\n.b8 47\n.b8 97\n\t}\n\t.section\t.debug_macinfo\t{\t}\n",
     ".visible .entry k()\n{\n\t.loc\t1 15 2\n$L__tmp4:\n\tret;\n$L__func_end0:\n}\n\t.file\t1 \"/b/c/k.py\"\n"
     "\t.section\t.debug_info\n\t{\n.b32 61\n.b8 47\n.b8 98\n.b8 47\n\t}\n\t.section\t.debug_macinfo\t{\t}\n",
     ".loc"},
    {"ptx_comments", Dialect::kPtx, &NormalizeOptions::drop_comments,
     "\t// .globl\tk\n.visible .entry k()\n{\n\t// begin inline asm\n\tret;\n}\n",
     ".visible .entry k()\n{\n\tret;\n}\n", "// begin inline asm"},
    // Triton's addStringToModule: `assertMessage_` + the first free number,
    // each new global first in the module.
    {"llvm_local_globals", Dialect::kLlvm, &NormalizeOptions::rename_globals,
     "@assertFunc_0 = internal constant [8 x i8] c\"unknown\\00\"\n"
     "@assertMessage_0 = internal constant [6 x i8] c\"x > 0\\00\"\n"
     "define void @k() {\n  call void @__assertfail(ptr @assertMessage_0, ptr @assertFunc_0)\n  ret void\n}\n",
     "@assertMessage_2 = internal constant [6 x i8] c\"x > 0\\00\"\n"
     "@assertFunc_1 = internal constant [8 x i8] c\"unknown\\00\"\n"
     "define void @k() {\n  call void @__assertfail(ptr @assertMessage_2, ptr @assertFunc_1)\n  ret void\n}\n",
     "@assertMessage_0"},
    {"ptx_local_globals", Dialect::kPtx, &NormalizeOptions::rename_globals,
     ".global .align 1 .b8 assertMessage_0[6] = {120, 32, 62, 32, 48};\n"
     ".visible .entry k()\n{\n\tmov.u64 \t%rd1, assertMessage_0;\n\tret;\n}\n",
     ".global .align 1 .b8 __unnamed_1[6] = {120, 32, 62, 32, 48};\n"
     ".visible .entry k()\n{\n\tmov.u64 \t%rd1, __unnamed_1;\n\tret;\n}\n",
     "assertMessage_0"},
    {"ptx_ident_header", Dialect::kPtx, &NormalizeOptions::drop_ident,
     "//\n// Generated by LLVM NVPTX Back-End\n//\n\n.version 8.7\n",
     "//\n// Generated by LLVM NVPTX Back-End 2\n//\n\n.version 8.7\n", "Generated by",
     comments_kept()},
    {"ptx_reg_decls", Dialect::kPtx, &NormalizeOptions::drop_reg_decls,
     ".visible .entry k()\n{\n\t.reg .b32 \t%r<14>;\n\t.reg .pred \t%p<2>;\n\tret;\n}\n",
     ".visible .entry k()\n{\n\t.reg .b32 \t%r<20>;\n\t.reg .pred \t%p<3>;\n\tret;\n}\n", ".reg"},
    // ---- AMDGCN / SPIR-V ----
    {"amdgcn_labels", Dialect::kAmdgcn, &NormalizeOptions::rename_blocks,
     "k:\n  s_cbranch_scc1 .LBB0_2\n.LBB0_2:\n  s_endpgm\n",
     "k:\n  s_cbranch_scc1 .LBB7_4\n.LBB7_4:\n  s_endpgm\n", ".LBB0_2"},
    {"amdgcn_locations", Dialect::kAmdgcn, &NormalizeOptions::drop_locations,
     "k:\n  .file 1 \"/a/k.py\"\n  .loc 1 8 3\n  s_endpgm\n",
     "k:\n  .file 1 \"/b/k.py\"\n  .loc 1 15 3\n  s_endpgm\n", ".loc"},
    {"spirv_ids", Dialect::kSpirv, &NormalizeOptions::rename_values,
     "%1 = OpTypeInt 32 0\n%2 = OpTypePointer Function %1\n",
     "%uint = OpTypeInt 32 0\n%ptr = OpTypePointer Function %uint\n", "%1"},
    {"spirv_comments", Dialect::kSpirv, &NormalizeOptions::drop_comments,
     "; SPIR-V\n; Generator: Khronos; 0\n%1 = OpTypeInt 32 0\n", "%1 = OpTypeInt 32 0\n", "; SPIR-V"},
};

class RuleTest : public ::testing::TestWithParam<RuleCase> {};

TEST_P(RuleTest, OnMakesEqualOffKeepsTheText) {
  const RuleCase& c = GetParam();
  NormalizeOptions on = c.base;
  NormalizeOptions off = c.base;
  off.*c.rule = false;
  EXPECT_EQ(hash_ok(c.a, c.dialect, on), hash_ok(c.b, c.dialect, on))
      << "A:\n" << joined_shapes(norm_ok(c.a, c.dialect, on)) << "B:\n"
      << joined_shapes(norm_ok(c.b, c.dialect, on));
  EXPECT_NE(hash_ok(c.a, c.dialect, off), hash_ok(c.b, c.dialect, off));
  EXPECT_EQ(joined_shapes(norm_ok(c.a, c.dialect, on)).find(c.kept), std::string::npos)
      << joined_shapes(norm_ok(c.a, c.dialect, on));
  EXPECT_NE(joined_shapes(norm_ok(c.a, c.dialect, off)).find(c.kept), std::string::npos)
      << joined_shapes(norm_ok(c.a, c.dialect, off));
}

INSTANTIATE_TEST_SUITE_P(All, RuleTest, ::testing::ValuesIn(kRules),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(NormalizeTest, RealChangesStillDiffer) {
  // Every rule on: an operand order, a constant, an op and a layout count.
  struct Pair {
    Dialect d;
    const char* a;
    const char* b;
  };
  const Pair kPairs[] = {
      {Dialect::kMlir, "tt.func @k(%a: i32, %b: i32) {\n  %0 = arith.subi %a, %b : i32\n}\n",
       "tt.func @k(%a: i32, %b: i32) {\n  %0 = arith.subi %b, %a : i32\n}\n"},
      {Dialect::kMlir, "tt.func @k() {\n  %c = arith.constant 256 : i32\n}\n",
       "tt.func @k() {\n  %c = arith.constant 257 : i32\n}\n"},
      {Dialect::kMlir,
       "#b = #ttg.blocked<{sizePerThread = [2]}>\ntt.func @k(%a: tensor<4xi32, #b>) {\n}\n",
       "#b = #ttg.blocked<{sizePerThread = [4]}>\ntt.func @k(%a: tensor<4xi32, #b>) {\n}\n"},
      {Dialect::kLlvm, "define void @k() {\n  %1 = fadd float 1.0, 2.0\n}\n",
       "define void @k() {\n  %1 = fmul float 1.0, 2.0\n}\n"},
      {Dialect::kLlvm,
       "define void @k() #0 {\n  ret void\n}\nattributes #0 = { nounwind }\n",
       "define void @k() #0 {\n  ret void\n}\nattributes #0 = { nounwind readnone }\n"},
      {Dialect::kPtx, ".entry k()\n{\n\tfma.rn.f32 %f3, %f1, %f2, %f0;\n}\n",
       ".entry k()\n{\n\tmul.rn.f32 %f3, %f1, %f2;\n}\n"},
      {Dialect::kPtx, ".entry k()\n{\n\tmov.u32 %r1, %tid.x;\n}\n",
       ".entry k()\n{\n\tmov.u32 %r1, %tid.y;\n}\n"},
  };
  for (const Pair& p : kPairs) {
    EXPECT_NE(hash_ok(p.a, p.d), hash_ok(p.b, p.d)) << p.a;
  }
}

TEST(NormalizeTest, HashIsTheHashOfTheCanonicalText) {
  Module m = norm_ok("tt.func @k(%a: i32) {\n  %0 = arith.addi %a, %a : i32\n}\n", Dialect::kMlir);
  EXPECT_EQ(m.hash, hash64(canonical_text(m)));
  EXPECT_EQ(canonical_text(m),
            "tt.func @k ( %v0 : i32 ) {\n%v1 = arith.addi %v0 , %v0 : i32\n}\n");
}

TEST(NormalizeTest, ErrorsCarryFileLineAndColumn) {
  TextBuffer buf("bad.ttgir", "tt.func @k() {\n  %0 = \"unterminated\n}\n");
  auto m = normalize(buf, Dialect::kMlir);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.status().code(), ErrorCode::kParseError);
  EXPECT_EQ(m.status().location().file, "bad.ttgir");
  EXPECT_EQ(m.status().location().line, 2u);
  EXPECT_EQ(m.status().location().column, 8u);
  auto h = normalized_hash(buf, Dialect::kMlir);
  ASSERT_FALSE(h);
  EXPECT_EQ(h.status().location().line, 2u);
}

TEST(NormalizeTest, EmptyInputIsAnEmptyModule) {
  Module m = norm_ok("", Dialect::kPtx);
  ASSERT_EQ(m.units.size(), 1u);
  EXPECT_TRUE(m.units[0].lines.empty());
  EXPECT_EQ(m.hash, hash64(""));
}

}  // namespace
}  // namespace ksnap::norm

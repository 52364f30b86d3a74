// LLVM IR rules (llvm.cc): ops and callees, blocks and phis, metadata by
// content (cycles too), debug info, attribute groups, py_line.
#include <gtest/gtest.h>

#include "normalize/test_util.h"

namespace ksnap::norm {
namespace {

using ir::Dialect;
using testing::find_line;
using testing::norm_ok;
using testing::symbol_texts;

constexpr const char* kModule = R"(; ModuleID = 'LLVMDialectModule'
source_filename = "LLVMDialectModule"

; Function Attrs: nounwind
define ptx_kernel void @k(ptr addrspace(1) %0, i32 %1) local_unnamed_addr #0 !dbg !4 {
  %3 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !7
  %4 = icmp slt i32 %3, %1, !dbg !8
  br i1 %4, label %5, label %7, !dbg !8

5:                                                ; preds = %2
  %6 = tail call i32 asm sideeffect "mov.u32 $0, 0x0;", "=r"() #1, !dbg !9
  br label %7, !dbg !9

7:                                                ; preds = %5, %2
  %8 = phi i32 [ %6, %5 ], [ 0, %2 ]
  ret void, !dbg !10, !llvm.loop !11
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1

attributes #0 = { nounwind "nvvm.reqntid"="128" }
attributes #1 = { nounwind }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3}

!0 = distinct !DICompileUnit(language: DW_LANG_C, file: !1, producer: "triton", isOptimized: true)
!1 = !DIFile(filename: "k.py", directory: "/w")
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !{i32 4, !"nvvm-reflect-ftz", i32 1}
!4 = distinct !DISubprogram(name: "k", scope: !1, file: !1, line: 7, unit: !0)
!5 = !DISubroutineType(cc: DW_CC_normal, types: !6)
!6 = !{}
!7 = !DILocation(line: 8, column: 24, scope: !4)
!8 = !DILocation(line: 9, column: 3, scope: !4)
!9 = !DILocation(line: 10, column: 5, scope: !12, inlinedAt: !8)
!10 = !DILocation(line: 11, column: 4, scope: !4)
!11 = distinct !{!11, !13}
!12 = distinct !DILexicalBlockFile(scope: !4, file: !1, discriminator: 0)
!13 = !{!"llvm.loop.mustprogress"}
)";

TEST(LlvmTest, InstructionsOpsAndCallees) {
  Module m = norm_ok(kModule, Dialect::kLlvm);
  const Line* tid = find_line(m, "%3 = tail call");
  ASSERT_NE(tid, nullptr);
  EXPECT_EQ(tid->op, "call");
  EXPECT_EQ(tid->callee, "llvm.nvvm.read.ptx.sreg.tid.x");
  EXPECT_EQ(tid->display, "%3 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()");
  EXPECT_EQ(tid->shape, "%_ = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x ( )");
  const Line* asm_call = find_line(m, "asm sideeffect");
  ASSERT_NE(asm_call, nullptr);
  EXPECT_EQ(asm_call->callee, "asm");
  EXPECT_EQ(find_line(m, "icmp")->op, "icmp");
  EXPECT_EQ(find_line(m, "define")->op, "define");
  auto calls = call_counts(m);
  EXPECT_EQ(calls["llvm.nvvm.read.ptx.sreg.tid.x"], 1);
  EXPECT_EQ(calls["asm"], 1);
  EXPECT_EQ(op_counts(m)["br"], 2);
}

TEST(LlvmTest, LabelsAndPhiBlocks) {
  Module m = norm_ok(kModule, Dialect::kLlvm);
  const Line* br = find_line(m, "br i1");
  ASSERT_NE(br, nullptr);
  EXPECT_EQ(br->shape, "br i1 %_ , label ^ , label ^");
  const Line* label = find_line(m, "5:");
  ASSERT_NE(label, nullptr);
  EXPECT_EQ(label->display, "5:");
  EXPECT_EQ(label->shape, "^:");
  EXPECT_EQ(symbol_texts(*label), (std::vector<std::string>{"5=^!"}));
  const Line* phi = find_line(m, "phi");
  ASSERT_NE(phi, nullptr);
  EXPECT_EQ(phi->shape, "%_ = phi i32 [ %_ , ^ ] , [ 0 , ^ ]");
  // The label and the phi operand %5 are one block symbol.
  EXPECT_EQ(phi->symbols[2].id, label->symbols[0].id);
  EXPECT_EQ(m.symbols[label->symbols[0].id].cls, SymbolClass::kBlock);
  // Blocks are numbered by first occurrence: `label %5` comes first.
  EXPECT_NE(canonical_text(m).find("\n^b0:\n"), std::string::npos) << canonical_text(m);
  EXPECT_NE(canonical_text(m).find("br i1 %v3 , label ^b0 , label ^b1"), std::string::npos);
}

TEST(LlvmTest, DebugInfoIsGoneButMapsPythonLines) {
  Module m = norm_ok(kModule, Dialect::kLlvm);
  std::string canon = canonical_text(m);
  for (const char* gone : {"DILocation", "DIFile", "!dbg", "llvm.dbg.cu", "DISubprogram",
                           "Debug Info Version", "ModuleID", "source_filename", "Function Attrs",
                           "preds"}) {
    EXPECT_EQ(canon.find(gone), std::string::npos) << gone;
  }
  EXPECT_EQ(find_line(m, "define")->py_line, 7);
  EXPECT_EQ(find_line(m, "%3 = tail call")->py_line, 8);
  // Inlined (line 10, inlinedAt !8): the kernel's own line of the call, 9.
  EXPECT_EQ(find_line(m, "asm sideeffect")->py_line, 9);
  EXPECT_EQ(find_line(m, "ret void")->py_line, 11);
  // `!6 = !{}` was used only by debug info: dropped with it.
  EXPECT_EQ(find_line(m, "!6 ="), nullptr);
  // Non-debug metadata stays, named by content.
  EXPECT_NE(find_line(m, "nvvm-reflect-ftz"), nullptr);
  EXPECT_NE(find_line(m, "llvm.loop.mustprogress"), nullptr);
  EXPECT_EQ(find_line(m, "ret void")->display, "ret void, !llvm.loop !11");
}

TEST(LlvmTest, MetadataIdentityIsContentEvenWithCycles) {
  // !11 = distinct !{!11, !13} refers to itself; renumbering and reordering
  // still give the same hash, changing the loop property does not.
  std::string a = kModule;
  std::string b = a;
  auto swap_all = [](std::string& s, const std::string& x, const std::string& y) {
    std::string tmp = "\x01";
    for (auto [from, to] : {std::pair{x, tmp}, std::pair{y, x}, std::pair{tmp, y}}) {
      for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) {
        s.replace(p, from.size(), to);
      }
    }
  };
  swap_all(b, "!11", "!13");
  swap_all(b, "#0", "#1");
  std::string c = a;
  c.replace(c.find("llvm.loop.mustprogress"), 22, "llvm.loop.unroll.disable");
  Module ma = norm_ok(a, Dialect::kLlvm), mb = norm_ok(b, Dialect::kLlvm),
         mc = norm_ok(c, Dialect::kLlvm);
  EXPECT_EQ(ma.hash, mb.hash) << canonical_text(ma) << "----\n" << canonical_text(mb);
  EXPECT_NE(ma.hash, mc.hash);
  const Line* self = find_line(ma, "distinct !{");
  ASSERT_NE(self, nullptr);
  EXPECT_TRUE(self->order_free);
  EXPECT_EQ(self->shape, "!md = distinct ! { !md , !md }");
}

TEST(LlvmTest, AttributeGroupsByContent) {
  Module m = norm_ok(kModule, Dialect::kLlvm);
  const Line* def = find_line(m, "attributes #1");
  ASSERT_NE(def, nullptr);
  EXPECT_EQ(def->shape, "attributes #attrs = { nounwind }");
  EXPECT_TRUE(def->order_free);
  const Line* decl = find_line(m, "declare");
  ASSERT_NE(decl, nullptr);
  EXPECT_EQ(m.symbols[decl->symbols.back().id].canonical,
            m.symbols[def->symbols[0].id].canonical);
  EXPECT_NE(canonical_text(m).find("declare i32 @llvm.nvvm.read.ptx.sreg.tid.x ( ) #g"),
            std::string::npos);
}

TEST(LlvmTest, FunctionsAreUnitsWithTheirOwnValues) {
  const char* two =
      "define void @a(i32 %0) {\n  %2 = add i32 %0, 1\n  ret void\n}\n"
      "define void @b(i32 %0) {\n  %2 = add i32 %0, 1\n  ret void\n}\n";
  Module m = norm_ok(two, Dialect::kLlvm);
  ASSERT_EQ(m.units.size(), 3u);
  EXPECT_EQ(m.units[1].name, "a");
  EXPECT_EQ(m.units[2].name, "b");
  EXPECT_EQ(m.units[1].hash == m.units[2].hash, false);  // the define lines name a and b
  EXPECT_EQ(m.units[1].lines[1].shape, m.units[2].lines[1].shape);
  EXPECT_EQ(m.symbols[m.units[1].lines[1].symbols[0].id].canonical,
            m.symbols[m.units[2].lines[1].symbols[0].id].canonical);
}


// Inlining the same function twice gives alias scopes of equal content that
// are still two scopes (`distinct`). Which accesses share a scope is
// meaning: re-pointing one access to the other scope is a change (issue 8
// item 8); swapping the two scopes everywhere is not.
constexpr const char* kScopes = R"(define void @k(ptr noalias %0, ptr noalias %1, ptr %2) {
  %4 = load float, ptr %0, align 4, !alias.scope !3, !noalias !6
  store float %4, ptr %1, align 4, !alias.scope !6, !noalias !3
  %5 = load float, ptr %2, align 4, !alias.scope !9, !noalias !3
  ret void
}

!0 = distinct !{!0, !"inlined"}
!1 = distinct !{!1, !0, !"inlined: %p"}
!2 = distinct !{!2, !0, !"inlined: %p"}
!3 = !{!1}
!6 = !{!2}
!9 = !{!2}
)";

TEST(LlvmTest, DistinctScopesOfEqualContentStayDistinct) {
  auto replace = [](std::string s, const std::string& from, const std::string& to) {
    size_t p = s.find(from);
    EXPECT_NE(p, std::string::npos) << from;
    return s.replace(p, from.size(), to);
  };
  uint64_t base = norm_ok(kScopes, Dialect::kLlvm).hash;
  // The third access moves from the second scope to the first.
  std::string repointed = replace(kScopes, "!alias.scope !9, !noalias !3", "!alias.scope !3, !noalias !3");
  EXPECT_NE(norm_ok(repointed, Dialect::kLlvm).hash, base);
  // Only the node it names changes: `!9 = !{!2}` becomes `!9 = !{!1}`.
  std::string renode = replace(kScopes, "!9 = !{!2}", "!9 = !{!1}");
  EXPECT_NE(norm_ok(renode, Dialect::kLlvm).hash, base);
  // The two scopes swap names everywhere: the same module.
  std::string swapped = replace(replace(replace(kScopes, "!1 = distinct !{!1,", "!7 = distinct !{!7,"),
                                        "!2 = distinct !{!2,", "!1 = distinct !{!1,"),
                                "!7 = distinct !{!7,", "!2 = distinct !{!2,");
  swapped = replace(replace(replace(swapped, "!3 = !{!1}", "!3 = !{!X}"), "!6 = !{!2}", "!6 = !{!1}"),
                    "!3 = !{!X}", "!3 = !{!2}");
  swapped = replace(swapped, "!9 = !{!2}", "!9 = !{!1}");
  EXPECT_EQ(norm_ok(swapped, Dialect::kLlvm).hash, base) << swapped;
}

// A group that is named but never defined (a truncated or hand-cut module)
// is numbered by first use: renumbering it is no change, using another
// group in its place is one.
TEST(LlvmTest, UndefinedAttributeGroupsAreNumberedByFirstUse) {
  const std::string a = "define void @k() #0 {\n  call void @f() #3\n  call void @g() #3\n  ret void\n}\n";
  std::string renumbered = a;
  for (size_t p = renumbered.find("#3"); p != std::string::npos; p = renumbered.find("#3", p))
    renumbered.replace(p, 2, "#7");
  std::string other = a;
  other.replace(other.rfind("#3"), 2, "#0");
  uint64_t h = norm_ok(a, Dialect::kLlvm).hash;
  EXPECT_EQ(norm_ok(renumbered, Dialect::kLlvm).hash, h);
  EXPECT_NE(norm_ok(other, Dialect::kLlvm).hash, h);
}

}  // namespace
}  // namespace ksnap::norm

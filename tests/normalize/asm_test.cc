// AMDGCN and SPIR-V rules (asm.cc).
#include <gtest/gtest.h>

#include "normalize/test_util.h"

namespace ksnap::norm {
namespace {

using ir::Dialect;
using testing::find_line;
using testing::norm_ok;
using testing::symbol_texts;

constexpr const char* kAmdgcn = R"(	.text
	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.globl	add_kernel                      ; -- Begin function add_kernel
	.type	add_kernel,@function
add_kernel:                             ; @add_kernel
.Lfunc_begin0:
	.file	1 "/w" "k.py"
	.loc	1 7 0                           ; k.py:7:0
	s_load_dwordx2 s[0:1], s[4:5], 0x0
.Ltmp0:
	.loc	1 9 12 prologue_end             ; k.py:9:12
	v_mov_b32_e32 v1, s2
	s_cbranch_scc1 .LBB0_2
.LBB0_2:
	s_endpgm
.Lfunc_end0:
	.size	add_kernel, .Lfunc_end0-add_kernel
	.section	.debug_abbrev,"",@progbits
	.byte	1
	.section	.AMDGPU.csdata,"",@progbits
	.ident	"clang version 19"
)";

TEST(AmdgcnTest, LabelsLocationsAndUnits) {
  Module m = norm_ok(kAmdgcn, Dialect::kAmdgcn);
  ASSERT_EQ(m.units.size(), 2u);
  EXPECT_EQ(m.units[1].name, "add_kernel");
  const Line* load = find_line(m, "s_load_dwordx2");
  ASSERT_NE(load, nullptr);
  EXPECT_EQ(load->op, "s_load_dwordx2");
  EXPECT_EQ(load->shape, "s_load_dwordx2 s [ 0 : 1 ] , s [ 4 : 5 ] , 0x0");
  EXPECT_EQ(load->py_line, 7);
  EXPECT_EQ(find_line(m, "v_mov_b32")->py_line, 9);
  const Line* br = find_line(m, "s_cbranch_scc1");
  ASSERT_NE(br, nullptr);
  EXPECT_EQ(br->shape, "s_cbranch_scc1 .L");
  EXPECT_EQ(symbol_texts(*br), (std::vector<std::string>{".LBB0_2=.L"}));
  std::string canon = canonical_text(m);
  for (const char* gone : {".loc", ".file", ".Ltmp0", ".Lfunc_begin0", "debug_abbrev", ".byte",
                           "clang version", "; @add_kernel"}) {
    EXPECT_EQ(canon.find(gone), std::string::npos) << gone;
  }
  // .Lfunc_end0 is used by `.size`: kept.
  EXPECT_NE(canon.find(".size add_kernel , .L"), std::string::npos) << canon;
}

TEST(SpirvTest, IdsAreRenamedNamesAndLinesDropped) {
  const char* text =
      "; SPIR-V\n; Version: 1.0\n               OpCapability Shader\n"
      "               OpName %main \"main\"\n       %uint = OpTypeInt 32 0\n"
      "               OpLine %file 12 3\n       %main = OpFunction %void None %fn\n"
      "          %5 = OpFunctionCall %void %helper\n               OpFunctionEnd\n";
  Module m = norm_ok(text, Dialect::kSpirv);
  EXPECT_EQ(find_line(m, "OpName"), nullptr);
  EXPECT_EQ(find_line(m, "OpLine"), nullptr);
  const Line* t = find_line(m, "OpTypeInt");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->shape, "%_ = OpTypeInt 32 0");
  EXPECT_EQ(t->op, "OpTypeInt");
  EXPECT_EQ(symbol_texts(*t), (std::vector<std::string>{"%uint=%_!"}));
  const Line* call = find_line(m, "OpFunctionCall");
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->callee, "%helper");
  EXPECT_EQ(call->py_line, 12);
  EXPECT_EQ(m.units.size(), 1u);  // SPIR-V ids are module-wide
}

}  // namespace
}  // namespace ksnap::norm

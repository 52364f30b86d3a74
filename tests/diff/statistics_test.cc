// Stage statistics: instruction classes of real machine code and counts of a
// normalized module.
#include "ksnap/diff/statistics.h"

#include <gtest/gtest.h>

namespace ksnap::diff {
namespace {

TEST(InstructionClass, Table) {
  struct Case {
    const char* stage;
    const char* op;
    const char* want;  // nullptr = not machine code
  } cases[] = {
      {"ptx", "ld.global.v4.b32", "global_mem"},
      {"ptx", "ld.global.nc.v2.b32", "global_mem"},
      {"ptx", "st.global.b32", "global_mem"},
      {"ptx", "cp.async.cg.shared.global", "global_mem"},
      {"ptx", "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes", "global_mem"},
      {"ptx", "ld.shared.v4.b32", "shared_mem"},
      {"ptx", "st.shared.b32", "shared_mem"},
      {"ptx", "ldmatrix.sync.aligned.m8n8.x4.shared.b16", "shared_mem"},
      {"ptx", "ld.local.b32", "local_mem"},
      {"ptx", "ld.param.b64", "alu"},
      {"ptx", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "tensor"},
      {"ptx", "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16", "tensor"},
      {"ptx", "bra.uni", "control"},
      {"ptx", "bar.sync", "control"},
      {"ptx", "mbarrier.try_wait.parity.shared::cta.b64", "control"},
      {"ptx", "cvt.rn.f16x2.f32", "convert"},
      {"ptx", "fma.rn.f32", "alu"},
      {"ptx", "mul.rn.f32", "alu"},
      {"sass", "LDG.E.128", "global_mem"},
      {"sass", "STS.128", "shared_mem"},
      {"sass", "LDSM.16.M88.4", "shared_mem"},
      {"sass", "STL", "local_mem"},
      {"sass", "HGMMA.64x128x16.F32", "tensor"},
      {"sass", "BRA", "control"},
      {"sass", "F2FP.F16.F32.PACK_AB", "convert"},
      {"sass", "FFMA", "alu"},
      {"amdgcn", "global_load_dwordx4", "global_mem"},
      {"amdgcn", "buffer_load_dword", "global_mem"},
      {"amdgcn", "ds_read_b128", "shared_mem"},
      {"amdgcn", "scratch_store_dword", "local_mem"},
      {"amdgcn", "v_mfma_f32_32x32x8f16", "tensor"},
      {"amdgcn", "s_cbranch_scc1", "control"},
      {"amdgcn", "s_waitcnt", "control"},
      {"amdgcn", "v_cvt_f16_f32_e32", "convert"},
      {"amdgcn", "v_add_f32_e32", "alu"},
      {"ttgir", "tt.load", nullptr},
      {"llir", "load", nullptr},
  };
  for (const auto& c : cases) {
    const char* got = instruction_class(c.stage, c.op);
    if (!c.want) {
      EXPECT_EQ(got, nullptr) << c.stage << " " << c.op;
    } else {
      ASSERT_NE(got, nullptr) << c.stage << " " << c.op;
      EXPECT_STREQ(got, c.want) << c.stage << " " << c.op;
    }
  }
}

TEST(StageStatistics, CountsInstructionsLinesAndClassesOfPtx) {
  const char* ptx = R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(
	.param .u64 k_param_0
)
{
	.reg .b32 	%r<8>;
	.reg .b64 	%rd<3>;
	ld.param.u64 	%rd1, [k_param_0];
	ld.global.v4.b32 	{%r1, %r2, %r3, %r4}, [%rd1];
	fma.rn.f32 	%r5, %r1, %r2, %r3;
	st.shared.b32 	[%r6], %r5;
	bar.sync 	0;
	ret;
}
)";
  auto m = norm::normalize(TextBuffer("k.ptx", ptx), ir::Dialect::kPtx);
  ASSERT_TRUE(m) << m.status().to_string();
  auto s = stage_statistics(*m, "ptx");
  EXPECT_EQ(s["instructions"], 6);
  EXPECT_EQ(s["class.alu"], 2);  // ld.param, fma
  EXPECT_EQ(s["class.global_mem"], 1);
  EXPECT_EQ(s["class.shared_mem"], 1);
  EXPECT_EQ(s["class.control"], 2);
  EXPECT_EQ(s.count("class.tensor"), 0u);
  EXPECT_GT(s["lines"], s["instructions"]);
  auto ir = stage_statistics(*m, "ttgir");  // not machine code: no classes
  EXPECT_EQ(ir.size(), 2u);
}

}  // namespace
}  // namespace ksnap::diff

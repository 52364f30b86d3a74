#include "ksnap/perf/verdict.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "perf/variant_info_fixture.h"

namespace ksnap::perf {
namespace {

struct CombineCase {
  PerfChange perf;
  PointIr ir;
  VerdictKind want;
};

class Combine : public ::testing::TestWithParam<CombineCase> {};

TEST_P(Combine, Table) {
  const CombineCase& c = GetParam();
  EXPECT_EQ(combine_verdict(c.perf, c.ir), c.want)
      << perf_change_name(c.perf) << " / " << point_ir_name(c.ir);
}

INSTANTIATE_TEST_SUITE_P(
    Table, Combine,
    ::testing::Values(
        CombineCase{PerfChange::kSlower, PointIr::kChanged, VerdictKind::kLikelyReal},
        CombineCase{PerfChange::kSlower, PointIr::kUnchanged, VerdictKind::kLikelyNoise},
        CombineCase{PerfChange::kSlower, PointIr::kUnknown, VerdictKind::kSlowerIrUnknown},
        CombineCase{PerfChange::kFaster, PointIr::kChanged, VerdictKind::kFaster},
        CombineCase{PerfChange::kFaster, PointIr::kUnchanged, VerdictKind::kFaster},
        CombineCase{PerfChange::kFaster, PointIr::kUnknown, VerdictKind::kFaster},
        CombineCase{PerfChange::kNoChange, PointIr::kChanged, VerdictKind::kIrChangedNoPerfChange},
        CombineCase{PerfChange::kNoChange, PointIr::kUnchanged, VerdictKind::kNoChange},
        CombineCase{PerfChange::kNoChange, PointIr::kUnknown, VerdictKind::kNoChange},
        CombineCase{PerfChange::kInsufficientData, PointIr::kChanged,
                    VerdictKind::kInsufficientData},
        CombineCase{PerfChange::kInsufficientData, PointIr::kUnknown,
                    VerdictKind::kInsufficientData}));

TEST(Verdict, NamesAreDistinct) {
  for (size_t i = 0; i < kVerdictKindCount; ++i) {
    for (size_t j = i + 1; j < kVerdictKindCount; ++j) {
      EXPECT_STRNE(verdict_name(static_cast<VerdictKind>(i)),
                   verdict_name(static_cast<VerdictKind>(j)));
      EXPECT_STRNE(verdict_id(static_cast<VerdictKind>(i)),
                   verdict_id(static_cast<VerdictKind>(j)));
    }
  }
}

BenchPoint pt(const std::string& name, ParamList params, std::vector<double> s) {
  BenchPoint p;
  p.id.name = name;
  p.id.params = std::move(params);
  p.id.script = "bench/mm.py";
  p.samples = std::move(s);
  p.unit = "us";
  return p;
}

std::vector<double> around(double c) {
  std::vector<double> v;
  for (int i = 0; i < 40; ++i) v.push_back(c * (1 + 0.001 * ((i * 7) % 11 - 5)));
  return v;
}

TEST(Verdict, EndToEnd) {
  // mm[N=1]: slower, its variant's IR changed      -> likely real
  // mm[N=2]: slower, its variant's IR unchanged    -> likely noise
  // mm[N=3]: same, IR changed                      -> IR changed, no perf change
  // other:   slower, no variant (other script)     -> slower (IR unknown)
  std::vector<VariantInfo> variants = {
      info("matmul_kernel", {{"BLOCK_M", "128"}}, "bench/mm.py", {"mm[N=1]", "mm[N=3]"},
           IrStatus::kChanged),
      info("matmul_kernel", {{"BLOCK_M", "64"}}, "bench/mm.py", {"mm[N=2]"}, IrStatus::kUnchanged)};
  BenchResults base, head;
  ASSERT_TRUE(add_point(base, pt("mm", {{"N", "1"}}, around(100))));
  ASSERT_TRUE(add_point(head, pt("mm", {{"N", "1"}}, around(105))));
  ASSERT_TRUE(add_point(base, pt("mm", {{"N", "2"}}, around(100))));
  ASSERT_TRUE(add_point(head, pt("mm", {{"N", "2"}}, around(104))));
  ASSERT_TRUE(add_point(base, pt("mm", {{"N", "3"}}, around(100))));
  ASSERT_TRUE(add_point(head, pt("mm", {{"N", "3"}}, around(100))));
  BenchPoint o = pt("other", {}, around(100));
  o.id.script = "bench/other.py";
  ASSERT_TRUE(add_point(base, o));
  o.samples = around(110);
  ASSERT_TRUE(add_point(head, o));

  VerdictReport r = make_verdicts(base, head, variants, {});
  ASSERT_EQ(r.points.size(), 4u);
  EXPECT_EQ(r.points[0].kind, VerdictKind::kLikelyReal);
  // Verdicts name a variant by its identity (capture::VariantKey::id()).
  EXPECT_EQ(r.points[0].variant_ids,
            (std::vector<std::string>{"matmul_kernel|{\"BLOCK_M\": 128}|{}"}));
  EXPECT_EQ(r.points[1].kind, VerdictKind::kLikelyNoise);
  EXPECT_EQ(r.points[2].kind, VerdictKind::kIrChangedNoPerfChange);
  EXPECT_EQ(r.points[3].kind, VerdictKind::kSlowerIrUnknown);
  EXPECT_EQ(r.counts[static_cast<size_t>(VerdictKind::kLikelyReal)], 1u);
  EXPECT_EQ(r.counts[static_cast<size_t>(VerdictKind::kNoChange)], 0u);
  // Every verdict carries ratio, CI, adjusted p and the counts.
  const PointComparison& c = r.points[0].perf;
  EXPECT_NEAR(c.ratio, 1.05, 1e-9);
  EXPECT_LT(c.ci_lo, c.ci_hi);
  EXPECT_LT(c.p_adjusted, 0.05);
  EXPECT_GE(c.p_adjusted, c.p_value);
  EXPECT_EQ(c.n_base, 40u);
  EXPECT_EQ(c.n_head, 40u);

  std::string text = describe(r.points[0], r.options);
  EXPECT_NE(text.find("slower, slowdown +5.0%"), std::string::npos) << text;
  EXPECT_NE(text.find("n 40/40"), std::string::npos) << text;
  EXPECT_NE(text.find("IR changed in 1 variant (point-label)"), std::string::npos) << text;
  EXPECT_NE(text.find("-> likely real"), std::string::npos) << text;
  EXPECT_NE(describe(r.points[3], r.options).find("unattributed"), std::string::npos);
}

TEST(Verdict, DescribeThroughputInterval) {
  PointVerdict v;
  v.perf.change = PerfChange::kSlower;
  v.perf.direction = MetricDirection::kHigherIsBetter;
  v.perf.method = TestMethod::kMannWhitney;
  v.perf.ratio = 0.8;  // throughput fell 20% -> 25% slowdown
  v.perf.ci_lo = 0.75;
  v.perf.ci_hi = 0.85;
  v.perf.p_value = v.perf.p_adjusted = 0.001;
  v.kind = VerdictKind::kSlowerIrUnknown;
  std::string text = describe(v, CompareOptions{});
  EXPECT_NE(text.find("slowdown +25.0% (95% CI +17.6%..+33.3%)"), std::string::npos) << text;
}

}  // namespace
}  // namespace ksnap::perf

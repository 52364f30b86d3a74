#include "ksnap/perf/attribution.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "perf/variant_info_fixture.h"

namespace ksnap::perf {
namespace {

/// The worked example of attribution.h.
std::vector<VariantInfo> example_variants() {
  return {
      info("matmul_kernel",
       {{"BLOCK_M", "128"}},
       "bench/matmul.py",
       {"matmul-performance[K=512,M=512,N=512,line=Triton]"},
       IrStatus::kChanged),
      info("matmul_kernel", {{"BLOCK_M", "64"}}, "bench/matmul.py", {}, IrStatus::kUnchanged),
      info("softmax_kernel", {{"BLOCK", "1024"}}, "bench/softmax.py", {}, IrStatus::kUnchanged),
  };
}

BenchPointId point(std::string name, ParamList params, std::string script = "",
                   std::string kernel = "") {
  return BenchPointId{std::move(name), std::move(params), std::move(script), std::move(kernel)};
}

struct AttrCase {
  const char* name;
  BenchPointId point;
  MatchRule rule;
  std::vector<size_t> variants;
  PointIr ir;
};

class Attribute : public ::testing::TestWithParam<AttrCase> {};

TEST_P(Attribute, Table) {
  const AttrCase& c = GetParam();
  auto variants = example_variants();
  Attribution a = Attributor(variants).attribute(c.point);
  EXPECT_EQ(a.rule, c.rule) << match_rule_name(a.rule) << " " << a.note;
  EXPECT_EQ(a.variants, c.variants);
  EXPECT_EQ(a.ir, c.ir) << point_ir_name(a.ir);
}

const ParamList kMm512 = {{"K", "512"}, {"M", "512"}, {"N", "512"}, {"line", "Triton"}};
const ParamList kMm1024 = {{"K", "1024"}, {"M", "1024"}, {"N", "1024"}, {"line", "Triton"}};

INSTANTIATE_TEST_SUITE_P(
    Table, Attribute,
    ::testing::Values(AttrCase{"label_match",
                               point("matmul-performance", kMm512),
                               MatchRule::kPointLabel,
                               {0},
                               PointIr::kChanged},
                      AttrCase{"script_and_kernel_token",
                               point("matmul-performance", kMm1024, "/ci/repo/bench/matmul.py"),
                               MatchRule::kScriptAndKernel,
                               {0, 1},
                               PointIr::kChanged},
                      AttrCase{"only_kernel_of_script",
                               point("fused-softmax", {{"N", "4096"}}, "./bench/softmax.py"),
                               MatchRule::kScriptAndKernel,
                               {2},
                               PointIr::kUnchanged},
                      AttrCase{"constexpr_narrows",
                               point("matmul-performance", {{"BLOCK_M", "64"}, {"M", "8"}},
                                     "bench/matmul.py"),
                               MatchRule::kScriptAndKernel,
                               {1},
                               PointIr::kUnchanged},
                      AttrCase{"constexpr_excludes_all",
                               point("matmul-performance", {{"BLOCK_M", "32"}}, "bench/matmul.py"),
                               MatchRule::kUnattributed,
                               {},
                               PointIr::kUnknown},
                      AttrCase{"named_kernel",
                               point("anything", {}, "bench/matmul.py", "matmul_kernel"),
                               MatchRule::kScriptAndKernel,
                               {0, 1},
                               PointIr::kChanged},
                      AttrCase{"named_kernel_absent",
                               point("matmul", {}, "bench/matmul.py", "other_kernel"),
                               MatchRule::kUnattributed,
                               {},
                               PointIr::kUnknown},
                      AttrCase{"no_script",
                               point("layernorm", {{"N", "4096"}}),
                               MatchRule::kUnattributed,
                               {},
                               PointIr::kUnknown},
                      AttrCase{"unknown_script",
                               point("matmul", {}, "bench/other.py"),
                               MatchRule::kUnattributed,
                               {},
                               PointIr::kUnknown},
                      // A file name that only shares a suffix is not the same script.
                      AttrCase{"suffix_not_component",
                               point("matmul", {}, "bench/xmatmul.py"),
                               MatchRule::kUnattributed,
                               {},
                               PointIr::kUnknown}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(Attribution, LabelWithSubsetOfParams) {
  std::vector<VariantInfo> v = {
      info("add_kernel", {}, "", {"vector-add[size=4096]"}, IrStatus::kUnchanged),
      info("add_kernel", {}, "", {"vector-add"}, IrStatus::kAdded)};
  Attributor at(v);
  Attribution hit = at.attribute(point("vector-add", {{"line", "Triton"}, {"size", "4096.0"}}));
  EXPECT_EQ(hit.rule, MatchRule::kPointLabel);
  EXPECT_EQ(hit.variants, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(hit.ir, PointIr::kChanged);  // an added variant counts as changed IR
  Attribution other = at.attribute(point("vector-add", {{"size", "8192"}}));
  EXPECT_EQ(other.variants, (std::vector<size_t>{1}));
}

TEST(Attribution, UnparsableLabelMatchesVerbatim) {
  std::vector<VariantInfo> v = {info("k", {}, "", {"weird[label"}, IrStatus::kUnchanged)};
  EXPECT_EQ(Attributor(v).attribute(point("weird[label", {})).rule, MatchRule::kUnattributed);
  // format_point_label escapes '[', so the verbatim text only matches itself.
  std::vector<VariantInfo> w = {info("k", {}, "", {"weird\\[label"}, IrStatus::kUnchanged)};
  EXPECT_EQ(Attributor(w).attribute(point("weird[label", {})).rule, MatchRule::kPointLabel);
}

TEST(Attribution, SameScript) {
  EXPECT_TRUE(same_script("bench/mm.py", "bench/mm.py"));
  EXPECT_TRUE(same_script("./bench/mm.py", "bench/mm.py"));
  EXPECT_TRUE(same_script("/home/ci/repo/bench/mm.py", "bench/mm.py"));
  EXPECT_TRUE(same_script("mm.py", "/x/mm.py"));
  EXPECT_FALSE(same_script("bench/xmm.py", "mm.py"));
  EXPECT_FALSE(same_script("", "mm.py"));
}

TEST(Attribution, ManyPoints) {
  auto variants = example_variants();
  std::vector<BenchPointId> pts = {point("matmul-performance", kMm512), point("x", {})};
  auto out = attribute_points(pts, variants);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].rule, MatchRule::kPointLabel);
  EXPECT_EQ(out[1].rule, MatchRule::kUnattributed);
  EXPECT_FALSE(out[1].note.empty());
}

}  // namespace
}  // namespace ksnap::perf

namespace ksnap::perf {
namespace {

// The capture plugin's spelling: a JSON object of labels, line_arg = line value.
TEST(Attribution, PluginJsonLabels) {
  std::vector<VariantInfo> v = {info("matmul_kernel",
                                 {},
                                 "",
                                 {"{\"K\": 512, \"M\": 512, \"N\": 512, \"provider\": \"triton\"}"},
                                 IrStatus::kChanged),
                                info("matmul_kernel",
                                 {},
                                 "",
                                 {"{\"M\": 1024, \"test\": \"tests/x.py::t\"}"},
                                 IrStatus::kUnchanged)};
  Attributor at(v);
  // perf_report point for the Triton line: provider=triton names line=Triton.
  Attribution triton = at.attribute(point(
      "matmul-performance-fp16", {{"K", "512"}, {"M", "512"}, {"N", "512"}, {"line", "Triton"}}));
  EXPECT_EQ(triton.rule, MatchRule::kPointLabel);
  EXPECT_EQ(triton.variants, (std::vector<size_t>{0}));
  EXPECT_EQ(triton.ir, PointIr::kChanged);
  // The cuBLAS line of the same x values did not launch the Triton variant.
  Attribution cublas = at.attribute(point(
      "matmul-performance-fp16", {{"K", "512"}, {"M", "512"}, {"N", "512"}, {"line", "cuBLAS"}}));
  EXPECT_EQ(cublas.rule, MatchRule::kUnattributed);
  // Per-sample point without a line: shared keys decide, unknown keys ignored.
  Attribution m = at.attribute(point("mm", {{"M", "1024"}}));
  EXPECT_EQ(m.variants, (std::vector<size_t>{1}));
  // No shared key: no match.
  EXPECT_EQ(at.attribute(point("mm", {{"Z", "1"}})).rule, MatchRule::kUnattributed);
  // A shared key with another value: no match.
  EXPECT_EQ(at.attribute(point("mm", {{"M", "2048"}})).rule, MatchRule::kUnattributed);
}

}  // namespace
}  // namespace ksnap::perf

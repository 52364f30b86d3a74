#include "render/html_data.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "html_fixture.h"

namespace ksnap::render::html {
namespace {

using testing::changed_stage;
using testing::unchanged_stage;
using testing::variant;

diff::DiffResult fixture() {
  diff::DiffResult r;
  r.base_name = "a";
  r.head_name = "b";
  diff::StageDiff ttgir = changed_stage("ttgir", {"%a = tt.load %p : tensor<64xf32>"},
                                        {"%b = arith.addf %a, %a : tensor<64xf32>"},
                                        {"%b = arith.mulf %a, %a : tensor<64xf32>"}, 40);
  ttgir.hunks[0].lines[1].highlights = {{11, 15}};
  ttgir.op_deltas = {{"arith.addf", -1}, {"arith.mulf", 1}, {"ttg.local_load", 3}};
  ttgir.resources["ptx.reg.b32"] = {10, 12};
  ttgir.resources["same"] = {4, 4};
  r.variants.push_back(variant("softmax", "1", {unchanged_stage("ttir"), ttgir}));
  r.variants.push_back(variant("softmax", "2", {unchanged_stage("ttir"), ttgir}));
  diff::VariantDiff added = variant("add", "9", {unchanged_stage("ttir")});
  added.pairing = diff::Pairing::kAdded;
  added.stages[0].status = diff::ChangeStatus::kAdded;
  added.stages[0].lines_added = 12;
  diff::StageDiff amd;  // a stage outside the summary's list
  amd.stage = "amdgcn";
  added.stages.push_back(amd);
  r.variants.push_back(added);
  testing::finish(&r);
  return r;
}

TEST(HtmlDataTest, StageOrderIsSummaryThenOthers) {
  EXPECT_EQ(stage_order(fixture()),
            (std::vector<std::string>{"ttir", "ttgir", "llir", "ptx", "amdgcn"}));
}

TEST(HtmlDataTest, StatusChars) {
  diff::DiffResult r = fixture();
  std::vector<std::string> st = stage_order(r);
  EXPECT_EQ(status_chars(r.variants[0], st), "uc...");
  EXPECT_EQ(status_chars(r.variants[2], st), "a...u");
}

TEST(HtmlDataTest, GroupsVariantsAndLines) {
  diff::DiffResult r = fixture();
  nlohmann::json d = nlohmann::json::parse(report_data(r));
  EXPECT_EQ(d["schema"], "ksnap-html-data");
  EXPECT_EQ(d["kernels"], (std::vector<std::string>{"add", "softmax"}));
  ASSERT_EQ(d["groups"].size(), 1u);
  const auto& g = d["groups"][0];
  EXPECT_EQ(g["k"], 1);
  EXPECT_EQ(g["s"], 1);  // ttgir
  EXPECT_EQ(g["v"], (std::vector<size_t>{0, 1}));
  // Ops by |delta|, biggest first; only figures that differ.
  EXPECT_EQ(g["ops"][0][0], "ttg.local_load");
  EXPECT_EQ(g["ops"][0][1], 3);
  ASSERT_EQ(g["res"].size(), 1u);
  EXPECT_EQ(g["res"][0], nlohmann::json::array({"ptx.reg.b32", 10, 12}));
  EXPECT_EQ(g["py"], (std::vector<int>{41, 42}));  // changed lines only, not context (40)
  const auto& h = g["h"][0];
  EXPECT_EQ(h[0], "@kernel");
  ASSERT_EQ(h[7].size(), 3u);
  const auto& removed = h[7][1];
  EXPECT_EQ(removed[0], 2);
  EXPECT_EQ(removed[1], "%b = arith.addf %a, %a : tensor<64xf32>");
  EXPECT_EQ(removed[2], 2);  // base line
  EXPECT_EQ(removed[3], 0);  // no head line
  EXPECT_EQ(removed[4], 41);
  EXPECT_EQ(removed[5], "v2_3o10_1v2_2v2_3t6_1t6_1");  // %b = arith.addf %a, %a : tensor<64xf32>
  EXPECT_EQ(removed[6], (std::vector<uint32_t>{11, 15}));
  EXPECT_EQ(h[7][2][0], 1);
  EXPECT_EQ(h[7][0][0], 0);
  // Variants: status chars, group per stage, lines per stage.
  const auto& v0 = d["variants"][0];
  EXPECT_EQ(v0["s"], "uc...");
  EXPECT_EQ(v0["g"], (std::vector<int>{-1, 0, -1, -1, -1}));
  EXPECT_EQ(v0["n"][1], (std::vector<int>{1, 1}));
  const auto& v2 = d["variants"][2];
  EXPECT_EQ(v2["p"], "added");
  EXPECT_EQ(v2["n"][0], (std::vector<int>{12, 0}));
  EXPECT_FALSE(v2.contains("r"));
}

TEST(HtmlDataTest, StringsAreValidJson) {
  diff::DiffResult r = fixture();
  r.base_name =
      "q\"\\\n\x01\xff\xe2\x86\x92";  // quote, backslash, newline, control, bad byte, arrow
  nlohmann::json d = nlohmann::json::parse(report_data(r));
  EXPECT_EQ(d["base"], "q\"\\\n\x01\xef\xbf\xbd\xe2\x86\x92");  // the bad byte is U+FFFD
}

TEST(HtmlDataTest, LineCapCountsTheRest) {
  DataLimits limits;
  limits.max_lines_per_group = 2;
  nlohmann::json d = nlohmann::json::parse(report_data(fixture(), limits));
  EXPECT_EQ(d["groups"][0]["h"][0][7].size(), 2u);
  EXPECT_EQ(d["groups"][0]["cut"], 1);
  EXPECT_FALSE(nlohmann::json::parse(report_data(fixture()))["groups"][0].contains("cut"));
}

}  // namespace
}  // namespace ksnap::render::html

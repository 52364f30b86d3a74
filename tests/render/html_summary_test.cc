#include "render/html_summary.h"

#include <gtest/gtest.h>

#include <regex>

#include "html_fixture.h"
#include "ksnap/report/report.h"

namespace ksnap::render::html {
namespace {

using testing::changed_stage;
using testing::unchanged_stage;
using testing::variant;

diff::DiffResult fixture() {
  diff::DiffResult r;
  diff::StageDiff c =
      changed_stage("ptx", {}, {"\tadd.s32 %r1, %r2, 1;"}, {"\tadd.s32 %r1, %r2, 2;"});
  c.op_deltas = {{"add.s32", 2}, {"mul.lo.s32", -7}};
  c.resources["ptx.reg.b32"] = {100, 110};  // +10%
  for (int i = 0; i < 4; ++i) {
    diff::VariantDiff v = variant("matmul", std::to_string(i),
                                  {unchanged_stage("ttgir"), i < 3 ? c : unchanged_stage("ptx")});
    r.variants.push_back(v);
  }
  r.variants[0].resources["n_regs"] = {40, 80};      // +100%: ranks first
  r.variants[1].resources["shared"] = {1000, 1200};  // +20%
  r.variants[2].resources["n_spills"] = {-1, 3};     // one side missing: not ranked
  r.variants.push_back(variant("add", "1", {unchanged_stage("ttgir"), unchanged_stage("ptx")}));
  testing::finish(&r);
  return r;
}

/// The report of `r` with default options (r must outlive it).
report::Report rep(const diff::DiffResult& r) { return report::build_report(r, nullptr); }

std::vector<std::string> column(const std::string& html, const std::string& attr) {
  std::vector<std::string> out;
  std::regex re(attr + "=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), re); it != std::sregex_iterator();
       ++it)
    out.push_back((*it)[1]);
  return out;
}

TEST(HtmlSummaryTest, StageTableWithTotals) {
  diff::DiffResult r = fixture();
  std::string t = stage_table_html(rep(r));
  EXPECT_NE(t.find("data-stage=\"ptx\" data-status=\"changed\">3</td>"), std::string::npos);
  EXPECT_NE(t.find("data-stage=\"ptx\" data-status=\"unchanged\">2</td>"), std::string::npos);
  EXPECT_NE(t.find("data-stage=\"all\" data-status=\"unchanged\">7</td>"), std::string::npos);
  EXPECT_NE(t.find("data-stage=\"all\" data-status=\"changed\">3</td>"), std::string::npos);
}

TEST(HtmlSummaryTest, KernelChartsMostChangedFirst) {
  diff::DiffResult r = fixture();
  std::string k = kernel_charts_html(rep(r));
  EXPECT_NE(k.find("id=\"kernel-legend\""), std::string::npos);
  EXPECT_EQ(column(k, "data-kernel"), (std::vector<std::string>{"matmul", "add"}));
  // 1 of 4 matmul variants unchanged in ptx, then 3 of 4 changed: 37.5 and 112.5 of 150 px.
  EXPECT_NE(k.find("class=\"s-u\" x=\"46.0\" width=\"37.5\""), std::string::npos);
  EXPECT_NE(k.find("class=\"s-c\" x=\"83.5\" width=\"112.5\""), std::string::npos);
  EXPECT_NE(k.find("ptx changed: 3 of 4 variants"), std::string::npos);
  SummaryLimits one;
  one.max_kernel_charts = 1;
  std::string cut = kernel_charts_html(rep(r), one);
  EXPECT_EQ(cut.find("data-kernel=\"add\""), std::string::npos);
  EXPECT_NE(cut.find("… 1 more kernels"), std::string::npos);
}

TEST(HtmlSummaryTest, ResourcesRankedByRelativeChange) {
  diff::DiffResult r = fixture();
  std::string t = resource_rank_html(rep(r));
  EXPECT_EQ(column(t, "data-figure"), (std::vector<std::string>{"n_regs", "shared", "ptx.reg.b32",
                                                                "ptx.reg.b32", "ptx.reg.b32"}));
  EXPECT_EQ(t.find("n_spills"), std::string::npos);
  SummaryLimits two;
  two.max_rank_rows = 2;
  EXPECT_NE(resource_rank_html(rep(r), two).find("… 3 more figure changes"), std::string::npos);
  diff::DiffResult none;
  EXPECT_EQ(resource_rank_html(rep(none)), "");
}

TEST(HtmlSummaryTest, OpsRankedByDelta) {
  diff::DiffResult r = fixture();
  std::string t = op_rank_html(rep(r));
  std::regex op(R"(data-open-group="0">([^<]*)</button>)");
  std::vector<std::string> ops;
  for (auto it = std::sregex_iterator(t.begin(), t.end(), op); it != std::sregex_iterator(); ++it)
    ops.push_back((*it)[1]);
  EXPECT_EQ(ops, (std::vector<std::string>{"mul.lo.s32", "add.s32"}));
  EXPECT_NE(t.find(">-7</td>"), std::string::npos);
  EXPECT_NE(t.find(">+2</td>"), std::string::npos);
}

TEST(HtmlSummaryTest, SummaryEscapesNames) {
  diff::DiffResult r = fixture();
  r.variants[4].key.kernel = "a<b>";
  r.warnings.push_back("x & y");
  report::Report m = rep(r);
  std::string s = summary_html(m) + overview_html(m);
  EXPECT_EQ(s.find("a<b>"), std::string::npos);
  EXPECT_NE(s.find("a&lt;b&gt;"), std::string::npos);
  EXPECT_NE(s.find("warning: x &amp; y"), std::string::npos);
}

}  // namespace
}  // namespace ksnap::render::html

// The HTML page as a whole: self-contained, safe with hostile IR text, shows
// the summary figures, embeds lexer token classes for MLIR / LLVM IR / PTX,
// and keeps IR text out of the initial DOM (the script renders it lazily).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "html_fixture.h"
#include "ksnap/diff/engine.h"
#include "ksnap/render/render.h"
#include "ksnap/report/report.h"
#include "support/corpus_dir.h"

namespace ksnap::render {
namespace {

using diff::LineKind;
using nlohmann::json;
using testing::changed_stage;
using testing::unchanged_stage;
using testing::variant;

constexpr char kHostileLine[] = "@s = constant [24 x i8] c\"</script><b>&amp;<!--x\\00\"";

diff::DiffResult fixture() {
  diff::DiffResult r;
  r.base_name = "base";
  r.head_name = "head<&>";
  r.variants.push_back(variant(
      "matmul_kernel", "64",
      {changed_stage("ttgir", {"%a = tt.load %p : tensor<64x!tt.ptr<f16>, #blocked>"},
                     {"%b = tt.dot %a, %a, %c : tensor<64x64xf16, #blocked1>"},
                     {"%b = tt.dot %a, %a, %c : tensor<64x64xf16, #mma>", "unique_marker_op %b"}),
       changed_stage("llir", {"%5 = getelementptr half, ptr addrspace(1) %0, i64 %4"},
                     {kHostileLine}, {"  br label %10"}),
       changed_stage("ptx", {"\tmov.u32 \t%r1, %tid.x;"}, {"\tld.global.b32 %r2, [%rd1];"},
                     {"\t@%p1 bra $L__BB0_2;"})}));
  r.variants.push_back(
      variant("matmul_kernel", "128",
              {unchanged_stage("ttgir"), unchanged_stage("llir"), unchanged_stage("ptx")}));
  r.variants.push_back(variant("k<&>", "1", {unchanged_stage("ttgir")}));
  r.variants[0].resources["n_regs"] = {207, 232};
  testing::finish(&r);
  return r;
}

std::string page_of(const diff::DiffResult& r) { return render(Format::kHtml, r); }

json data_island(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"ksnap-data\">";
  size_t b = page.find(open);
  EXPECT_NE(b, std::string::npos);
  b += open.size();
  size_t e = page.find("</script>", b);
  return json::parse(page.substr(b, e - b));
}

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

/// Calls fn(line) for every embedded diff line of every group of the island.
template <typename Fn>
void for_each_line(const json& d, Fn fn) {
  for (const auto& g : d["groups"])
    for (const auto& h : g["hunks"])
      for (const auto& l : h["lines"]) fn(l);
}

/// "v2_3o7" -> {(2, "v"), (3, ""), (7, "o")}; fails the test on a malformed string.
std::vector<std::pair<size_t, std::string>> parse_runs(const std::string& s) {
  std::vector<std::pair<size_t, std::string>> out;
  std::regex run("([_a-z])([0-9]+)");
  size_t covered = 0;
  for (auto it = std::sregex_iterator(s.begin(), s.end(), run); it != std::sregex_iterator();
       ++it) {
    std::string c = (*it)[1];
    out.push_back({std::stoul((*it)[2]), c == "_" ? "" : c});
    covered += it->length();
  }
  EXPECT_EQ(covered, s.size()) << s;
  return out;
}

/// The CSS class of `token` in line `text` of the island's groups (first match).
std::string token_class_in_island(const json& d, const std::string& text,
                                  const std::string& token) {
  std::string found = "<no line>";
  for_each_line(d, [&](const json& l) {
    if (l[1] != text || found != "<no line>") return;
    size_t at = text.find(token), pos = 0;
    found = "<no run>";
    for (const auto& [len, cls] : parse_runs(l[6]))
      if ((pos += len) - len == at && len == token.size()) found = cls;
  });
  return found;
}

TEST(HtmlTest, OneFileWithoutExternalReferences) {
  std::string page = page_of(fixture());
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  std::smatch m;
  std::regex attr(R"re(\b(src|href|action|srcset)\s*=\s*["']?([^"' >]*))re", std::regex::icase);
  for (auto it = std::sregex_iterator(page.begin(), page.end(), attr); it != std::sregex_iterator();
       ++it)
    EXPECT_EQ((*it)[2].str().rfind("#", 0), 0u) << "external reference: " << (*it)[0].str();
  EXPECT_EQ(count(page, "http:"), 0u);
  EXPECT_EQ(count(page, "https:"), 0u);
  EXPECT_EQ(count(page, "//cdn"), 0u);
  EXPECT_EQ(count(page, "<link"), 0u);
  EXPECT_EQ(count(page, "@import"), 0u);
  EXPECT_EQ(count(page, "url("), 0u);
  EXPECT_NE(page.find("Content-Security-Policy\" content=\"default-src 'none'"), std::string::npos);
  // Exactly one data island and one script, both inline.
  EXPECT_EQ(count(page, "<script"), 2u);
  EXPECT_EQ(count(page, "<style>"), 1u);
}

TEST(HtmlTest, IrTextIsEscaped) {
  diff::DiffResult r = fixture();
  std::string page = page_of(r);
  // Only the two real end tags; the IR's "</script>" and "<!--" never appear raw.
  EXPECT_EQ(count(page, "</script>"), 2u);
  EXPECT_EQ(count(page, "<!--"), 0u);
  // Outside the island (HTML parsed as markup) names are entity-escaped; inside
  // it only "</" and "<!--" could end or confuse the script element.
  size_t b = page.find("id=\"ksnap-data\">"), e = page.find("</script>", b);
  std::string markup = page.substr(0, b) + page.substr(e), island = page.substr(b, e - b);
  EXPECT_EQ(count(markup, "k<&>"), 0u);
  EXPECT_EQ(count(markup, "<b>&amp;"), 0u);
  EXPECT_GT(count(markup, "k&lt;&amp;&gt;"), 0u);
  EXPECT_GT(count(markup, "head&lt;&amp;&gt;"), 0u);
  EXPECT_EQ(count(island, "</"), 0u);
  EXPECT_GT(count(island, "<\\/script>"), 0u);
  // The island reads back to the exact IR text.
  json d = data_island(page);
  bool found = false;
  for_each_line(d, [&](const json& l) { found |= l[1] == kHostileLine; });
  EXPECT_TRUE(found);
  EXPECT_EQ(d["head"]["name"], "head<&>");
}

TEST(HtmlTest, SummaryFiguresAreShown) {
  diff::DiffResult r = fixture();
  std::string page = page_of(r);
  const char* names[] = {"unchanged", "changed", "added", "removed"};
  for (const auto& s : r.summary) {
    uint32_t v[] = {s.unchanged, s.changed, s.added, s.removed};
    for (int c = 0; c < 4; ++c) {
      std::string cell = "data-stage=\"" + s.stage + "\" data-status=\"" + names[c] + "\">" +
                         std::to_string(v[c]) + "</td>";
      EXPECT_NE(page.find(cell), std::string::npos) << cell;
    }
  }
  report::Totals t = report::build_report(r, nullptr).totals;
  EXPECT_NE(page.find("data-total=\"variants\">" + std::to_string(t.variants) + "<"),
            std::string::npos);
  EXPECT_NE(page.find("data-total=\"changed_stages\">" + std::to_string(t.changed_stages) + "<"),
            std::string::npos);
  EXPECT_NE(page.find("data-total=\"groups\">" + std::to_string(t.groups) + "<"),
            std::string::npos);
  // The resource delta and a kernel chart.
  EXPECT_NE(page.find("+25"), std::string::npos);
  EXPECT_NE(page.find("<svg class=\"kchart\""), std::string::npos);
}

TEST(HtmlTest, TokenClassesForMlirLlvmAndPtx) {
  json d = data_island(page_of(fixture()));
  struct Case {
    std::string line, token, cls;
  } cases[] = {
      {"%a = tt.load %p : tensor<64x!tt.ptr<f16>, #blocked>", "tt.load", "o"},
      {"%a = tt.load %p : tensor<64x!tt.ptr<f16>, #blocked>", "#blocked", "a"},
      {"%5 = getelementptr half, ptr addrspace(1) %0, i64 %4", "getelementptr", "o"},
      {"%5 = getelementptr half, ptr addrspace(1) %0, i64 %4", "half", "t"},
      {kHostileLine, "@s", "s"},
      {"\t@%p1 bra $L__BB0_2;", "bra", "o"},
      {"\t@%p1 bra $L__BB0_2;", "$L__BB0_2", "l"},
      {"\tmov.u32 \t%r1, %tid.x;", "%tid.x", "v"},
  };
  for (const auto& c : cases) EXPECT_EQ(token_class_in_island(d, c.line, c.token), c.cls) << c.line;
}

TEST(HtmlTest, IrTextOnlyInTheDataIsland) {
  std::string page = page_of(fixture());
  // Rendered lazily by the script: the HTML itself holds no hunk markup.
  EXPECT_EQ(count(page, "unique_marker_op"), 1u);
  size_t island = page.find("id=\"ksnap-data\"");
  EXPECT_GT(page.find("unique_marker_op"), island);
  EXPECT_EQ(page.substr(0, island).find("class=\"hunk\""), std::string::npos);
}

TEST(HtmlTest, NoDiffsKeepsGroupsButNoLines) {
  diff::DiffResult r = fixture();
  report::ReportOptions o = default_report_options(Format::kHtml);
  o.show_diffs = false;
  json d = data_island(render_html(report::build_report(r, nullptr, o)));
  ASSERT_EQ(d["groups"].size(), 3u);
  for (const auto& g : d["groups"]) {
    EXPECT_GT(g["lines_total"].get<int>(), 0);
    EXPECT_TRUE(g["hunks"].empty());
  }
}

TEST(HtmlTest, CorpusReportMatchesJson) {
  std::string corpus = ksnap::testing::corpus_dir();  // the shared one, else the example
  auto r = diff::diff_paths(corpus + "/base", corpus + "/no_licm");
  ASSERT_TRUE(r) << r.status().to_string();
  report::Report rep = report::build_report(*r, nullptr, default_report_options(Format::kHtml));
  std::string page = render_html(rep);
  json j = json::parse(render_json(rep));
  json d = data_island(page);
  for (const auto& s : j["summary"])
    for (const char* k : {"unchanged", "changed", "added", "removed"}) {
      std::string cell = "data-stage=\"" + s["stage"].get<std::string>() + "\" data-status=\"" + k +
                         "\">" + std::to_string(s[k].get<int>()) + "</td>";
      EXPECT_NE(page.find(cell), std::string::npos) << cell;
    }
  EXPECT_NE(page.find("data-total=\"changed_stages\">" +
                      std::to_string(j["changed_stages"].get<int>()) + "<"),
            std::string::npos);
  // Every embedded line of every group carries runs covering its text.
  size_t lines = 0;
  for_each_line(d, [&](const json& l) {
    size_t total = 0;
    for (const auto& run : parse_runs(l[6])) total += run.first;
    std::string text = l[1];
    EXPECT_EQ(total, text.size()) << text;  // the corpus IR is ASCII
    ++lines;
  });
  EXPECT_GT(lines, 100u);
  // Without the token runs, the data island is the JSON output itself.
  for (auto& g : d["groups"])
    for (auto& h : g["hunks"])
      for (auto& l : h["lines"]) l.erase(6);
  EXPECT_EQ(d, j);
}

}  // namespace
}  // namespace ksnap::render

// The Markdown writer through a GitHub-flavoured renderer (Debian's
// cmark-gfm, the library GitHub's renderer grew from): a hostile capture
// cannot close a fence, inject HTML, mention, reference or link; the whole
// comment stays under the cap with the lists it holds; titles carry no
// literal escapes; identical option changes are one line; dropped groups are
// named; the full report's link is where it is asked for.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "html_fixture.h"
#include "ksnap/diff/engine.h"
#include "ksnap/render/render.h"
#include "ksnap/support/text.h"
#include "render/markdown_text.h"
#include "support/corpus_dir.h"

namespace fs = std::filesystem;

namespace ksnap::render {
namespace {

using testing::changed_stage;
using testing::unchanged_stage;
using testing::variant;

constexpr char kMarker[] = "MARKER_AFTER_FENCE";

/// Many kernels, hostile names and IR, many added variants and option changes.
diff::DiffResult hostile(size_t added, size_t groups) {
  diff::DiffResult r;
  r.base_name = "base";
  r.head_name = "head `x` <b>@octocat</b>";
  for (size_t i = 0; i < groups; ++i) {
    std::string k = i == 0 ? "k<b>_1 @team #12 *x*" : "kernel_" + std::to_string(i);
    diff::StageDiff s = changed_stage(
        "llir", {"```", "%1 = add i32 %0, 1", "````"},
        {"%2 = mul i32 %1, %1 ; ```", "call void @octocat() ; fixes #123"},
        {"%2 = shl i32 %1, 1 ; ````", std::string("; ") + kMarker + " [l](https://evil.example) ![i](http://x/i.png)",
         "; <img src=x onerror=alert(1)> <script>alert(1)</script> www.evil.example"},
        20 + static_cast<int>(i));
    s.change_signature = 100 + i;
    diff::VariantDiff v = variant(k, std::to_string(i), {unchanged_stage("ttgir"), s});
    v.pairing = diff::Pairing::kOptionsDiffer;
    v.option_changes.push_back({"enable_fp_fusion", "true", "false"});
    r.variants.push_back(v);
  }
  for (size_t i = 0; i < added; ++i) {
    diff::StageDiff s = unchanged_stage("ttgir");
    s.status = diff::ChangeStatus::kAdded;
    diff::VariantDiff v = variant("added_kernel_with_a_long_name_@someone", std::to_string(i), {s});
    v.pairing = diff::Pairing::kAdded;
    r.variants.push_back(v);
  }
  testing::finish(&r);
  return r;
}

/// cmark-gfm's HTML for `md` (GitHub's extensions; raw HTML kept as GitHub
/// keeps <details>); "" and a skip reason when cmark-gfm is missing.
std::string cmark(const std::string& md, std::string* missing) {
  if (std::system("command -v cmark-gfm >/dev/null 2>&1") != 0) {
    *missing = "cmark-gfm not installed (scripts/install-deps.sh installs it)";
    return "";
  }
  std::string in = fs::temp_directory_path() / ("ksnap_md_" + std::to_string(getpid()) + ".md");
  std::ofstream(in) << md;
  std::string cmd = "cmark-gfm --unsafe -e table -e autolink -e strikethrough -e tagfilter " + in;
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  fs::remove(in);
  return out;
}

bool cmark_required() {
  const char* ci = std::getenv("CI");
  return ci && *ci && std::string(ci) != "false" && std::string(ci) != "0";
}

/// `html` with the contents of <pre>...</pre> and <code>...</code> removed.
std::string outside_code(const std::string& html) {
  std::regex code(R"(<pre>[\s\S]*?</pre>|<code>[\s\S]*?</code>)");
  return std::regex_replace(html, code, "<code/>");
}

long count_matches(const std::string& s, const std::string& pattern) {
  std::regex re(pattern);
  return std::distance(std::sregex_iterator(s.begin(), s.end(), re), std::sregex_iterator());
}

size_t utf8_chars(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

TEST(MarkdownText, FencesAndSpans) {
  EXPECT_EQ(md::fence_for("plain"), "```");
  EXPECT_EQ(md::fence_for("a ``` b"), "````");
  EXPECT_EQ(md::fence_for("`````"), "``````");
  EXPECT_EQ(md::code_span("x`y"), "``x`y``");
  EXPECT_EQ(md::code_span("`a"), "`` `a ``");
  EXPECT_EQ(md::code_span("a|b", true), "`a\\|b`");
  EXPECT_EQ(md::html_text("<b>@team #12 x#y"), "&lt;b&gt;@\u200bteam #\u200b12 x#y");
  EXPECT_EQ(md::html_text("see https://x and www.y"), "see https:\u200b//x and w\u200bww.y");
  // escape_html's own entities stay entities; a "&#12" of the data is "&amp;#\u200b12".
  EXPECT_EQ(md::html_text("LLVM's &#12"), "LLVM&#39;s &amp;#\u200b12");
  EXPECT_EQ(md::truncate("abcdef", 3), "abc…");
  EXPECT_EQ(md::truncate("é", 1), "…");
}

TEST(Markdown, HostileCaptureRendersInertUnderTheCap) {
  diff::DiffResult r = hostile(/*added=*/3000, /*groups=*/300);
  report::Report rep = report::build_report(r, nullptr, default_report_options(Format::kMarkdown));
  WriteOptions w;
  w.max_bytes = 60000;
  std::string md = render_markdown(rep, w);
  EXPECT_LE(md.size(), 60000u);
  EXPECT_TRUE(is_valid_utf8(md));
  // One collapsed option line for 300 variants.
  EXPECT_EQ(count_matches(md, "enable_fp_fusion: true → false — 300 variants of 300 kernels"), 1);
  // The lists are cut, and the dropped groups named.
  EXPECT_NE(md.find("more\n"), std::string::npos);
  EXPECT_NE(md.find("change groups not shown here"), std::string::npos);
  EXPECT_TRUE(std::regex_search(md, std::regex("Not shown:\n> `kernel_[0-9]+ · llir \\(1\\)`, `kernel_")))
      << "dropped groups named";

  std::string missing;
  std::string html = cmark(md, &missing);
  if (!missing.empty()) {
    if (cmark_required()) FAIL() << missing;
    GTEST_SKIP() << missing;
  }
  EXPECT_LE(utf8_chars(html), 200000u);
  EXPECT_LE(utf8_chars(md), 65536u);  // GitHub counts the Markdown
  // Nothing executes, loads or links.
  std::string lower = html;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  EXPECT_EQ(lower.find("<script"), std::string::npos);
  EXPECT_EQ(lower.find("<img"), std::string::npos);
  EXPECT_EQ(lower.find("<a "), std::string::npos);
  EXPECT_FALSE(std::regex_search(lower, std::regex(R"(<[^>]*\son\w+\s*=)"))) << "event handler attribute";
  // The IR after a line holding ``` stays code: the marker only inside <pre>/<code>.
  EXPECT_NE(html.find(kMarker), std::string::npos);
  std::string outside = outside_code(html);
  EXPECT_EQ(outside.find(kMarker), std::string::npos);
  // No mention or issue reference in text GitHub would link.
  EXPECT_FALSE(std::regex_search(outside, std::regex(R"(@[A-Za-z0-9])"))) << "mention outside code";
  EXPECT_FALSE(std::regex_search(outside, std::regex(R"(#[0-9])"))) << "reference outside code";
  // Titles: HTML-escaped, no literal Markdown escapes.
  std::regex summary(R"(<summary>([\s\S]*?)</summary>)");
  size_t titles = 0;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), summary); it != std::sregex_iterator(); ++it) {
    ++titles;
    std::string t = (*it)[1];
    EXPECT_EQ(t.find('\\'), std::string::npos) << t;
    EXPECT_EQ(t.find("<b>k<b>"), std::string::npos) << t;
  }
  EXPECT_GT(titles, 3u);
}

// The cap holds for every cap the CLI accepts (1024 and up), with names as
// long as a capture may have and a long link.
TEST(Markdown, EveryAcceptedCapHolds) {
  diff::DiffResult r = hostile(/*added=*/500, /*groups=*/40);
  r.base_name = std::string(300, 'b') + " `x` ";
  r.head_name = std::string(300, 'h') + " <b>@someone</b>";
  report::Report rep = report::build_report(r, nullptr, default_report_options(Format::kMarkdown));
  for (size_t cap : {1024u, 1200u, 1500u, 2048u, 3000u, 6000u}) {
    for (size_t url : {0u, 100u, 250u}) {
      WriteOptions w;
      w.max_bytes = cap;
      if (url) w.html_url = "https://github.com/o/r/actions/runs/" + std::string(url, '1');
      std::string md = render_markdown(rep, w);
      EXPECT_LE(md.size(), cap) << "cap " << cap << ", url " << url;
      EXPECT_TRUE(is_valid_utf8(md));
      EXPECT_NE(md.find("## ksnap: IR changes"), std::string::npos) << cap;
    }
  }
}

TEST(Markdown, SmallCapHoldsEverythingAndLinksTheFullReport) {
  diff::DiffResult r = hostile(/*added=*/500, /*groups=*/40);
  report::Report rep = report::build_report(r, nullptr, default_report_options(Format::kMarkdown));
  WriteOptions w;
  w.max_bytes = 6000;
  w.html_url = "https://github.com/o/r/actions/runs/1/artifacts/2";
  std::string md = render_markdown(rep, w);
  EXPECT_LE(md.size(), 6000u);
  EXPECT_NE(md.find("[the full HTML report](" + w.html_url + ")"), std::string::npos);
  // Named at the top and again where groups were cut.
  EXPECT_GE(count_matches(md, "the full HTML report"), 2);
  std::string missing;
  std::string html = cmark(md, &missing);
  if (!missing.empty()) GTEST_SKIP() << missing;
  std::regex link(R"re(<a href="([^"]*)")re");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), link); it != std::sregex_iterator(); ++it)
    EXPECT_EQ((*it)[1], w.html_url) << "only our link";
}

TEST(Markdown, CorpusFusionOffTopIsReadable) {
  std::string corpus = ksnap::testing::corpus_dir();  // the shared one, else the example
  auto r = diff::diff_paths(corpus + "/base", corpus + "/fusion_off");
  ASSERT_TRUE(r);
  std::string md = render(Format::kMarkdown, *r);
  // Statistics first after the headline; one option line; no escaped titles.
  size_t stats = md.find("**Statistics**"), opts = md.find("**Option changes**");
  ASSERT_NE(stats, std::string::npos);
  ASSERT_NE(opts, std::string::npos);
  EXPECT_LT(stats, opts);
  EXPECT_LT(md.find("n_regs"), opts);
  EXPECT_EQ(count_matches(md, "enable_fp_fusion"), 1);
  EXPECT_EQ(md.find("<summary><b>layer\\_norm"), std::string::npos);
  EXPECT_NE(md.find("<summary><b>attn_fwd</b> · ptx"), std::string::npos);
}

}  // namespace
}  // namespace ksnap::render

// Issue 15, items 7, 8 and 10, through the real `ksnap` binary: what a
// capture or a commit carries (build names, subjects, constexprs) can never
// drive a terminal, reorder text (bidi controls), link, embed, mention or
// inject HTML in a report, and the HTML report runs only its own script.
// Inputs are built here from the bundled examples/corpus (base, no_licm).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "ksnap/support/sha256.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Outcome {
  int rc = -1;
  std::string out, err;
};

/// Runs `cmd` through the shell; stdout kept, stderr to a file read back.
Outcome shell(const std::string& cmd, const std::string& err_path) {
  Outcome r;
  FILE* p = ::popen((cmd + " 2>" + err_path).c_str(), "r");
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int st = ::pclose(p);
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  std::ifstream e(err_path, std::ios::binary);
  std::stringstream ss;
  ss << e.rdbuf();
  r.err = ss.str();
  return r;
}

std::string read(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Terminal attacks: set the title, write the clipboard (OSC 52), clear the
// screen; and Trojan-Source bidi controls (RLO, LRI, RLM, ALM).
const std::string kTitle = "\x1b]0;pwned\x07";
const std::string kClipboard = "\x1b]52;c;cm0gLXJmIH4=\x07";
const std::string kClear = "\x1b[2J";
const std::string kRlo = "\xE2\x80\xAE", kLri = "\xE2\x81\xA6", kRlm = "\xE2\x80\x8F",
                  kAlm = "\xD8\x9C", kCsi = "\xC2\x9B";
const std::string kHostile =
    "x" + kTitle + kClipboard + kClear + kRlo + "evil" + kLri + kRlm + kAlm + kCsi + "31m";

/// What no output may carry raw: ESC, BEL, the C1 CSI, the bidi controls.
void expect_no_raw_controls(const std::string& out, const std::string& what) {
  for (const std::string& bad :
       {std::string("\x1b"), std::string("\x07"), kCsi, kRlo, kLri, kRlm, kAlm})
    EXPECT_EQ(out.find(bad), std::string::npos) << what << " carries a raw control";
}

class HostileRender : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "ksnap-hostile-render-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    top_ = tmpl;
    base_ = top_ + "/base";
    head_ = top_ + "/head";
    fs::copy(std::string(KSNAP_EXAMPLE_DIR) + "/base", base_, fs::copy_options::recursive);
    fs::copy(std::string(KSNAP_EXAMPLE_DIR) + "/no_licm", head_, fs::copy_options::recursive);
    for (auto& p : fs::recursive_directory_iterator(top_))
      fs::permissions(p.path(), fs::perms::owner_write, fs::perm_options::add);
  }
  void TearDown() override { fs::remove_all(top_); }

  Outcome ksnap(const std::string& args) {
    return shell(std::string(KSNAP_BINARY) + " " + args, top_ + "/stderr");
  }

  /// Every entry of both captures gets the constexpr TAG = `value` (the
  /// same on both sides: variants still pair) and the build name `name`.
  void tag_captures(const std::string& value, const std::string& name = "") {
    for (const std::string& dir : {base_, head_}) {
      json m = json::parse(read(dir + "/manifest.json"));
      for (json& e : m["entries"]) e["constexprs"]["TAG"] = value;
      if (!name.empty()) m["build"] = name;
      write(dir + "/manifest.json", m.dump(1));
    }
  }

  std::string top_, base_, head_;
};

TEST_F(HostileRender, StoreLsAndLogShowSubjectsAndBuildNamesEscaped) {
  tag_captures("1", "build" + kHostile);
  const std::string store = top_ + "/h.db";
  // The subject goes through the shell: write it to a file, pass "$(cat F)".
  write(top_ + "/subject", "fix" + kHostile);
  const std::string subject = " --subject \"$(cat " + top_ + "/subject)\"";
  Outcome r1 = ksnap("record " + base_ + " --store " + store + " --repo '' --commit " +
                     std::string(40, 'a') + " --date 1700000000 -q" + subject);
  ASSERT_EQ(r1.rc, 0) << r1.err;
  Outcome r2 = ksnap("record " + head_ + " --store " + store + " --repo '' --commit " +
                     std::string(40, 'b') + " --parent " + std::string(40, 'a') +
                     " --date 1700000100 -q" + subject);
  ASSERT_EQ(r2.rc, 0) << r2.err;

  Outcome ls = ksnap("store ls --store " + store);
  ASSERT_EQ(ls.rc, 0) << ls.err;
  expect_no_raw_controls(ls.out, "store ls");
  EXPECT_NE(ls.out.find("build" + std::string("x\\x1b]0;pwned\\x07")), std::string::npos) << ls.out;
  EXPECT_NE(ls.out.find("\\u202eevil\\u2066\\u200f\\u061c\\u009b31m"), std::string::npos) << ls.out;
  EXPECT_NE(ls.out.find("fixx\\x1b]0;pwned\\x07\\x1b]52;c;"), std::string::npos) << ls.out;

  Outcome log = ksnap("log --store " + store + " --repo '' --no-summary");
  ASSERT_EQ(log.rc, 0) << log.err;
  ASSERT_FALSE(log.out.empty()) << log.err;
  expect_no_raw_controls(log.out, "log");
  EXPECT_NE(log.out.find("fixx\\x1b]0;pwned\\x07"), std::string::npos) << log.out;
  EXPECT_NE(log.out.find("\\u202e"), std::string::npos) << log.out;

  Outcome lj = ksnap("log -f json --store " + store + " --repo '' --no-summary");
  ASSERT_EQ(lj.rc, 0) << lj.err;
  expect_no_raw_controls(lj.out, "log -f json");
  json j = json::parse(lj.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << lj.out;
  ASSERT_FALSE(j.empty());
  EXPECT_EQ(j[0]["subject"], "fix" + kHostile) << "JSON keeps the text (as \\u escapes)";
}

TEST_F(HostileRender, EveryDiffFormatEscapesControlsAndBidiInConstexprs) {
  tag_captures("t" + kHostile, "b" + kHostile);
  for (const char* format : {"terminal", "markdown", "json", "html", "stat", "name-only"}) {
    Outcome d = ksnap("diff " + base_ + " " + head_ + " --color always --format " + format);
    ASSERT_EQ(d.rc, 0) << format << ": " << d.err;
    for (const std::string& bad : {kRlo, kLri, kRlm, kAlm, kCsi, kTitle, kClear, kClipboard})
      EXPECT_EQ(d.out.find(bad), std::string::npos) << format << " carries a raw control";
    // The terminal writers' own colors are ESC sequences (--color always).
    if (std::string(format) != "terminal" && std::string(format) != "stat")
      EXPECT_EQ(d.out.find('\x1b'), std::string::npos) << format;
    // --stat fits each name to 80 columns (the constexpr is cut); --name-only
    // lists kernels: the others show the constexpr, its controls visible.
    if (std::string(format) == "stat" || std::string(format) == "name-only") continue;
    ASSERT_NE(d.out.find("evil"), std::string::npos) << format << " shows the constexpr";
    EXPECT_NE(d.out.find("u202e"), std::string::npos) << format << ": shown as \\u202e";
  }
  Outcome j = ksnap("diff " + base_ + " " + head_ + " --format json");
  json doc = json::parse(j.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  EXPECT_NE(doc.dump().find("evil"), std::string::npos);
  EXPECT_NE(j.out.find("\\u202eevil\\u2066"), std::string::npos) << "JSON: \\u escapes";
}

/// HTML rendered by GitHub's Markdown library, raw HTML kept (--unsafe).
std::string cmark(const std::string& markdown_path, const std::string& top) {
  return shell("cmark-gfm --unsafe -e table -e autolink -e strikethrough < " + markdown_path,
               top + "/cmark.err")
      .out;
}

/// Whether some `<a ...>` tag of `html` names evil.example. (Plain scans:
/// std::regex recurses once per character on large pages.)
bool links_to_evil(const std::string& html) {
  for (size_t at = html.find("<a "); at != std::string::npos; at = html.find("<a ", at + 1)) {
    size_t end = html.find('>', at);
    if (html.substr(at, end == std::string::npos ? std::string::npos : end - at).find("evil") !=
        std::string::npos)
      return true;
  }
  return false;
}

/// `html` without its <code>...</code> and <pre>...</pre> elements.
std::string without_code(const std::string& html) {
  std::string out;
  size_t at = 0;
  while (at < html.size()) {
    size_t code = html.find("<code", at), pre = html.find("<pre", at);
    size_t open = std::min(code, pre);
    if (open == std::string::npos) break;
    out.append(html, at, open - at);
    size_t close = html.find(open == code ? "</code>" : "</pre>", open);
    if (close == std::string::npos) return out;  // unclosed: drop the rest
    at = close + (open == code ? 7 : 6);
  }
  if (at < html.size()) out.append(html, at, std::string::npos);
  return out;
}

TEST_F(HostileRender, MarkdownDataNeverLinksEmbedsMentionsOrInjectsHtml) {
  if (std::system("command -v cmark-gfm >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "cmark-gfm is not installed";
  const std::string payload =
      "[l](https://evil.example/a) ![i](https://evil.example/i.png) @octo-admins "
      "<img src=\"https://evil.example/x\"> https://evil.example/auto www.evil.example #12";
  const std::string cases[] = {
      payload,
      // 80 and more backticks: cmark-gfm matches no code span delimiter that long.
      std::string(80, '`') + " " + payload + " " + std::string(80, '`'),
      std::string(200, '`') + payload,
      "`" + payload,
      "&#64;octo-admins &lt;img&gt; " + payload,
  };
  for (const std::string& value : cases) {
    tag_captures(value, "b" + value.substr(0, 40));
    const std::string md = top_ + "/report.md";
    Outcome d = ksnap("diff " + base_ + " " + head_ + " --format markdown --output " + md);
    ASSERT_EQ(d.rc, 0) << d.err;
    std::string html = cmark(md, top_);
    ASSERT_NE(html.find("evil.example"), std::string::npos) << "the data is shown";
    EXPECT_EQ(html.find("<img"), std::string::npos) << value << "\n" << html;
    EXPECT_FALSE(links_to_evil(html)) << value;
    // A mention: "@name" in text outside <code>/<pre>/<a>.
    std::string text = without_code(html);
    EXPECT_EQ(text.find("@octo"), std::string::npos) << value << "\n" << text;
    EXPECT_EQ(text.find("https://evil"), std::string::npos) << "no autolink:\n" << text;
  }
}

TEST_F(HostileRender, HtmlCspPinsTheEmittedScriptAndStyleByHash) {
  tag_captures("<script>alert(1)</script>" + kRlo);
  Outcome d = ksnap("diff " + base_ + " " + head_ + " --format html");
  ASSERT_EQ(d.rc, 0) << d.err;
  const std::string& page = d.out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      page, m, std::regex("http-equiv=\"Content-Security-Policy\" content=\"([^\"]*)\"")));
  const std::string csp = m[1];
  EXPECT_EQ(csp.find("unsafe-inline"), std::string::npos) << csp;
  size_t s0 = page.find("<style>") + 7, s1 = page.find("</style>");
  ASSERT_LT(s0, s1);
  EXPECT_NE(csp.find("style-src 'sha256-" + ksnap::sha256_base64(page.substr(s0, s1 - s0)) + "'"),
            std::string::npos)
      << csp;
  // The one executable script: the last <script> without a type.
  size_t c0 = page.rfind("<script>"), c1 = page.rfind("</script>");
  ASSERT_LT(c0, c1);
  c0 += 8;
  EXPECT_NE(csp.find("script-src 'sha256-" + ksnap::sha256_base64(page.substr(c0, c1 - c0)) + "'"),
            std::string::npos)
      << csp;
  // Exactly two <script> elements: the JSON island and that one. Inside the
  // island the data's "<script>" is JSON string text: with "</" and "<!--"
  // escaped (html_text.h) it can neither end the island nor start a script.
  const std::string open = "<script type=\"application/json\" id=\"ksnap-data\">";
  size_t b = page.find(open), e = page.find("</script>", b);
  ASSERT_NE(b, std::string::npos);
  ASSERT_NE(e, std::string::npos);
  const std::string island = page.substr(b + open.size(), e - b - open.size());
  const std::string markup = page.substr(0, b) + page.substr(e);
  size_t n = 0;
  for (size_t at = markup.find("<script"); at != std::string::npos;
       at = markup.find("<script", at + 1))
    ++n;
  EXPECT_EQ(n, 1u) << "data never forms a <script> outside the island";
  EXPECT_EQ(island.find("</"), std::string::npos);
  EXPECT_EQ(island.find("<!--"), std::string::npos);
  EXPECT_NE(island.find("<script>alert(1)<\\/script>"), std::string::npos);
}

}  // namespace

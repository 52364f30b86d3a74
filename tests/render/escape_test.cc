// Untrusted text in the terminal and JSON writers: control characters from a
// capture are shown escaped, never sent to a terminal (only ksnap's own SGR
// colors are); every JSON string is valid UTF-8 and highlights still point at
// the same characters.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "html_fixture.h"
#include "ksnap/render/render.h"
#include "ksnap/support/text.h"

namespace ksnap::render {
namespace {

using testing::changed_stage;
using testing::unchanged_stage;
using testing::variant;

const std::string kTitle = "\x1b]0;pwned\x07";
const std::string kClipboard = "\x1b]52;c;ZWNobyBwd25lZA==\x07";
const std::string kClear = "\x1b[2J\x1b[H";

diff::DiffResult hostile() {
  diff::DiffResult r;
  r.base_name = "base" + kTitle;
  r.head_name = "head";
  diff::StageDiff s = changed_stage("llir", {"%1 = add i32 %0, 1 ; " + kClear},
                                    {"%2 = mul i32 %1, %1 ; " + kClipboard},
                                    {"%2 = shl i32 %1, 1 ; bad \xff\xfe byte \x9b""31m C1"});
  s.hunks[0].lines[2].highlights = {{5, 8}, {20, 27}};  // "shl", "bad \xff\xfe " region
  diff::VariantDiff v = variant("k" + kTitle, "1" + kClear, {unchanged_stage("ttgir"), s});
  v.resources["regs" + kTitle] = {1, 2};  // figure names come from the capture's manifest
  v.option_changes.push_back({"opt" + kClipboard, "1", "2"});
  r.variants.push_back(v);
  diff::StageDiff a = unchanged_stage("ttgir");
  a.status = diff::ChangeStatus::kAdded;
  diff::VariantDiff added = variant("new" + kClear, "2", {a});
  added.pairing = diff::Pairing::kAdded;
  r.variants.push_back(added);
  r.warnings.push_back("warning " + kTitle);
  testing::finish(&r);
  return r;
}

/// Every ESC in `s` starts one of ksnap's SGR color sequences.
bool only_our_escapes(const std::string& s) {
  std::string rest = std::regex_replace(s, std::regex("\x1b\\[[0-9;]*m"), "");
  return rest.find('\x1b') == std::string::npos && rest.find('\x07') == std::string::npos &&
         rest.find("\xc2\x9b") == std::string::npos;
}

TEST(TerminalEscapes, ControlCharactersFromDataAreShownNotSent) {
  diff::DiffResult r = hostile();
  for (bool color : {false, true}) {
    WriteOptions w;
    w.color = color;
    for (Format f : {Format::kTerminal, Format::kStat, Format::kNameOnly}) {
      std::string out = render(f, r, w);
      EXPECT_TRUE(only_our_escapes(out)) << static_cast<int>(f) << " color " << color;
      EXPECT_TRUE(is_valid_utf8(out));
      if (!color) {
        EXPECT_EQ(out.find('\x1b'), std::string::npos);
      }
    }
    std::string t = render(Format::kTerminal, r, w);
    EXPECT_NE(t.find("\\x1b]0;pwned\\x07"), std::string::npos) << "shown escaped";
    EXPECT_NE(t.find("\\x1b]52;c;"), std::string::npos);
    EXPECT_NE(t.find("\\xff\\xfe"), std::string::npos);
  }
  // Tabs in IR text are kept.
  diff::DiffResult p;
  p.variants.push_back(variant("k", "1", {changed_stage("ptx", {}, {"\tmov.u32 \t%r1, 1;"}, {"\tmov.u32 \t%r1, 2;"})}));
  testing::finish(&p);
  EXPECT_NE(render(Format::kTerminal, p).find("- \tmov.u32 \t%r1, 1;"), std::string::npos);
}

TEST(JsonStrings, ValidUtf8AndHighlightsFollowTheRepair) {
  diff::DiffResult r = hostile();
  std::string j = render(Format::kJson, r);
  ASSERT_TRUE(is_valid_utf8(j));
  nlohmann::json d = nlohmann::json::parse(j);  // throws (fails the test) on invalid JSON
  const auto& line = d["groups"][0]["hunks"][0]["lines"][2];
  std::string text = line[1];
  EXPECT_NE(text.find("bad \\xff\\xfe byte"), std::string::npos);
  // The second highlight covered bytes 20..27 of the raw line, which held
  // the two invalid bytes: now 26 characters later? No: each grows to four.
  const auto& hl = line[5];
  ASSERT_EQ(hl.size(), 2u);
  EXPECT_EQ(text.substr(hl[0][0], hl[0][1].get<size_t>() - hl[0][0].get<size_t>()), "shl");
  std::string raw = r.variants[0].stages[1].hunks[0].lines[2].text;
  EXPECT_EQ(text.substr(hl[1][0], hl[1][1].get<size_t>() - hl[1][0].get<size_t>()),
            to_valid_utf8(raw.substr(20, 7)));
  EXPECT_EQ(d["variants"][0]["kernel"], "k\x1b]0;pwned\x07");  // JSON escapes it as \u001b
  EXPECT_NE(j.find("\\u001b]0;pwned\\u0007"), std::string::npos);
}

}  // namespace
}  // namespace ksnap::render

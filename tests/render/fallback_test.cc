// A stage whose structural diff fell back (here: a gap the line alignment
// left unaligned) carries its reason into every format: the terminal, the
// Markdown comment, the JSON and the HTML page, on its group and in the notes.
#include <gtest/gtest.h>

#include "html_fixture.h"
#include "ksnap/render/render.h"
#include "ksnap/report/report.h"

namespace ksnap::render {
namespace {

using testing::changed_stage;
using testing::unchanged_stage;
using testing::variant;

TEST(Fallback, EveryFormatShowsTheReason) {
  diff::DiffResult r;
  r.base_name = "base";
  r.head_name = "head";
  diff::StageDiff s = changed_stage("ptx", {"ret;"}, {"bar.sync 0;", "membar.gl;", "bar.sync 0;"},
                                    {"membar.gl;", "bar.sync 0;", "membar.gl;"});
  s.fallback =
      "the line alignment left 1 gap unaligned in `k` (3 BASE x 3 HEAD lines with no line unique "
      "to both sides to anchor on, over the alignment's limits): shown there as removed and added "
      "lines";
  r.variants.push_back(variant("k", "64", {unchanged_stage("ttgir"), s}));
  testing::finish(&r);
  report::Report rep = report::build_report(r, nullptr);
  ASSERT_FALSE(rep.groups.empty());
  EXPECT_EQ(rep.groups[0].fallback, s.fallback);
  const std::string want = "gap unaligned in";
  struct Case {
    const char* format;
    std::string text;
  } cases[] = {
      {"terminal", render_terminal(rep)},
      {"markdown", render_markdown(rep)},
      {"json", render_json(rep)},
      {"html", render_html(rep)},
  };
  for (const Case& c : cases) {
    EXPECT_NE(c.text.find(want), std::string::npos) << c.format;
    EXPECT_EQ(c.text.find("no structural diff"), std::string::npos) << c.format;
  }
  // The terminal shows it under the group, not only in the notes.
  EXPECT_NE(cases[0].text.find("  fallback: the line alignment left 1 gap"), std::string::npos)
      << cases[0].text;
}

}  // namespace
}  // namespace ksnap::render

// render_json_to: the JSON report handed over in pieces (the CLI writes a
// 100,000-variant report, about 290 MB, without holding it) is render_json's
// text, cut only between list items, for every piece size; a write that
// fails stops the writing and its error comes back.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ksnap/diff/engine.h"
#include "ksnap/render/render.h"
#include "ksnap/report/report.h"

namespace ksnap::render {
namespace {

/// The bundled example corpus (examples/corpus: real Triton IR, always in
/// the tree, so these tests never skip).
std::string corpus() { return KSNAP_EXAMPLE_DIR; }

TEST(JsonStream, PiecesJoinToTheWholeReport) {
  for (const char* head : {"no_licm", "fusion_off", "noise"}) {
    auto r = diff::diff_paths(corpus() + "/base", corpus() + "/" + head);
    ASSERT_TRUE(r) << r.status().to_string();
    report::Report rep = report::build_report(*r, nullptr, default_report_options(Format::kJson));
    const std::string whole = render_json(rep);
    for (size_t chunk : {size_t{1}, size_t{100}, size_t{4096}, size_t{1} << 20}) {
      SCOPED_TRACE(std::string(head) + " chunk " + std::to_string(chunk));
      std::vector<std::string> pieces;
      Status s = render_json_to(
          rep,
          [&](std::string_view p) {
            pieces.emplace_back(p);
            return Status::ok();
          },
          chunk);
      ASSERT_TRUE(s.is_ok()) << s.to_string();
      std::string joined;
      for (const std::string& p : pieces) joined += p;
      EXPECT_EQ(joined, whole);
      for (size_t i = 0; i < pieces.size(); ++i) {
        EXPECT_FALSE(pieces[i].empty());
        if (i + 1 < pieces.size()) {
          EXPECT_GE(pieces[i].size(), chunk);  // only the last is short
        }
      }
      // Pieces are cut between variants and groups: a report of many
      // variants comes in many pieces when they are small.
      if (chunk <= 100) {
        EXPECT_GT(pieces.size(), r->variants.size());
      }
      if (chunk >= whole.size()) {
        EXPECT_EQ(pieces.size(), 1u);
      }
    }
  }
}

TEST(JsonStream, AFailedWriteStopsTheWriting) {
  auto r = diff::diff_paths(corpus() + "/base", corpus() + "/no_licm");
  ASSERT_TRUE(r) << r.status().to_string();
  report::Report rep = report::build_report(*r, nullptr, default_report_options(Format::kJson));
  int calls = 0;
  Status s = render_json_to(
      rep,
      [&](std::string_view) {
        return ++calls == 3 ? make_error(ErrorCode::kIoError, "disk full") : Status::ok();
      },
      64);
  EXPECT_EQ(s.code(), ErrorCode::kIoError);
  EXPECT_EQ(s.message(), "disk full");
  EXPECT_EQ(calls, 3);  // nothing is written after the failure
}

}  // namespace
}  // namespace ksnap::render

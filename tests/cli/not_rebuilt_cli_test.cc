// A variant that `ksnap recompile` failed to rebuild is reported as such by
// `ksnap diff`, never as removed (issue 17, item 3): the HEAD capture's
// recompile.json names it (failed or skipped), and every format says why.
// Real recompile fixtures (tests/fixtures/recompile/suite, rebuilt on the
// H200 into s16).
#include <gtest/gtest.h>

#include <fstream>

#include "cli/cli_util.h"

namespace ksnap::cli_test {
namespace {

namespace fs = std::filesystem;

const std::string kFixtures = std::string(KSNAP_SOURCE_DIR) + "/tests/fixtures/recompile";

/// HEAD = s16 without its entry `drop`, with a recompile.json whose
/// `list` ("failed" or "skipped") names that entry as `item` spells it.
std::string head_without(const TempDir& t, int drop, const std::string& list,
                         const nlohmann::json& extra) {
  const std::string head = t.path + "/head";
  nlohmann::json m = read_json_file(kFixtures + "/s16/manifest.json");
  std::vector<int> keep;
  for (int i = 0; i < static_cast<int>(m["entries"].size()); ++i)
    if (i != drop) keep.push_back(i);
  subset_capture(kFixtures + "/s16", head, keep);
  const nlohmann::json& e = m["entries"][drop];
  nlohmann::json item = {{"variant", e["kernel"].get<std::string>() + "#1234"},
                         {"kernel", e["kernel"]},
                         {"key", e["key"]},
                         {"qualname", e["qualname"]}};
  item.update(extra);
  nlohmann::json report = {{"format", "ksnap-recompile-report"},
                           {"format_version", 1},
                           {"failed", nlohmann::json::array()},
                           {"skipped", nlohmann::json::array()}};
  report[list].push_back(item);
  std::ofstream(head + "/recompile.json") << report.dump(1);
  return head;
}

TEST(NotRebuiltCli, AFailedVariantIsNotRebuiltInEveryFormat) {
  TempDir t("not_rebuilt");
  struct Case {
    const char* list;
    nlohmann::json extra;
    const char* reason;
  } cases[] = {
      {"failed",
       {{"phase", "timeout"}, {"error", "worker killed after 900 s\n"}},
       "timeout: worker killed after 900 s"},
      {"failed",
       {{"phase", "compile"},
        {"error", "Traceback (most recent call last):\n  ...\nCompilationError: at 3:4: bad\n"}},
       "compile: CompilationError: at 3:4: bad"},
      {"skipped",
       {{"reason", "source not recordable: TABLE is builtins.dict"}},
       "skipped: source not recordable: TABLE is builtins.dict"},
  };
  const std::string base = kFixtures + "/suite";
  for (const Case& c : cases) {
    SCOPED_TRACE(c.reason);
    fs::remove_all(t.path + "/head");
    const std::string head = head_without(t, 0, c.list, c.extra);
    CmdResult j = run("diff " + base + " " + head + " --format json");
    ASSERT_EQ(j.rc, 0) << j.err;
    nlohmann::json r = nlohmann::json::parse(j.out);
    EXPECT_EQ(r["totals"]["removed"], 0);
    EXPECT_EQ(r["totals"]["not_rebuilt"], 1);
    size_t not_rebuilt = 0;
    for (const auto& v : r["variants"]) {
      EXPECT_NE(v["pairing"], "removed");
      if (v["pairing"] != "not_rebuilt") continue;
      ++not_rebuilt;
      EXPECT_EQ(v["kernel"], "attn_fwd");
      EXPECT_EQ(v["not_rebuilt"], c.reason);
      EXPECT_FALSE(v["changed"].get<bool>());
    }
    EXPECT_EQ(not_rebuilt, 1u);
    EXPECT_NE(r["headline"].get<std::string>().find("1 variant was not rebuilt"), std::string::npos)
        << r["headline"];
    for (const char* format : {"terminal", "markdown", "html"}) {
      CmdResult f = run("diff " + base + " " + head + " --format " + format + " --color never");
      ASSERT_EQ(f.rc, 0) << format << f.err;
      EXPECT_NE(f.out.find("not rebuilt by HEAD"), std::string::npos) << format;
      EXPECT_EQ(f.out.find("1 removed"), std::string::npos) << format;
    }
    // Nothing changed in what was compared: --exit-code stays 0.
    EXPECT_EQ(run("diff " + base + " " + head + " --exit-code -q").rc, 0);
  }
}

TEST(NotRebuiltCli, OnlyTheNamedVariantIsNotRebuilt) {
  // A recompile.json naming another key (another specialization of the same
  // kernel) does not turn a removed variant into a not-rebuilt one.
  TempDir t("not_rebuilt_other");
  const std::string head = head_without(
      t, 0, "failed", {{"phase", "compile"}, {"error", "x"}, {"key", "[('constexpr', 1)]{}"}});
  CmdResult j = run("diff " + kFixtures + "/suite " + head + " --format json");
  ASSERT_EQ(j.rc, 0) << j.err;
  nlohmann::json r = nlohmann::json::parse(j.out);
  EXPECT_EQ(r["totals"]["removed"], 1);
  EXPECT_EQ(r["totals"]["not_rebuilt"], 0);
}

TEST(NotRebuiltCli, ABadRecompileReportIsALocatedInputError) {
  TempDir t("not_rebuilt_bad");
  const std::string head = head_without(t, 0, "failed", {{"phase", 7}});
  CmdResult r = run("diff " + kFixtures + "/suite " + head);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find(head + "/recompile.json:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\"phase\""), std::string::npos) << r.err;
  std::ofstream(head + "/recompile.json") << "{\"format\": \"ksnap-recompile-report\", "
                                             "\"format_version\": 9}";
  r = run("diff " + kFixtures + "/suite " + head);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("format_version 9"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ksnap::cli_test

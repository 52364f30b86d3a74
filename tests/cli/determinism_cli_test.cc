// Compiler nondeterminism through the real binary: check-determinism,
// capture --repeat, diff's unstable marking and exit codes, record and
// `store unstable`. Inputs are real corpus IR with emulated nondeterminism
// (diff/unstable_fixture.h; tests/cli/data/unstable_program.py for capture).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_util.h"
#include "diff/unstable_fixture.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace ksnap::cli_test {
namespace {

const std::string kBase = std::string(KSNAP_EXAMPLE_DIR) + "/base";

class DeterminismCli : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(ksnap::testing::copy_with_unstable_attn(kBase, tmp_.path + "/again"));
  }
  TempDir tmp_{"determinism_cli"};
};

TEST_F(DeterminismCli, CheckDeterminismListsTheUnstableStages) {
  CmdResult t = run("check-determinism " + kBase + " " + tmp_.path + "/again");
  EXPECT_EQ(t.rc, 0) << t.err;
  EXPECT_NE(t.out.find("2 unstable variant-stages in 1 variant"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("attn_fwd {"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("ttgir +"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("llir +8 -8"), std::string::npos) << t.out;
  EXPECT_EQ(run("check-determinism " + kBase + " " + tmp_.path + "/again --exit-code").rc, 1);
  CmdResult j = run("check-determinism " + kBase + " " + tmp_.path + "/again -f json");
  ASSERT_EQ(j.rc, 0);
  json u = json::parse(j.out);
  EXPECT_EQ(u["format"], "ksnap-unstable");
  EXPECT_EQ(u["format_version"], 1);
  EXPECT_EQ(u["variants_compared"], 8);
  EXPECT_EQ(u["unstable_stages"], 2);
  ASSERT_EQ(u["variants"].size(), 1u);
  EXPECT_EQ(u["variants"][0]["kernel"], "attn_fwd");
  EXPECT_EQ(u["variants"][0]["stages"][0]["stage"], "ttgir");
  EXPECT_EQ(u["variants"][0]["stages"][1]["stage"], "llir");
  // The same build twice is deterministic, also for --exit-code.
  CmdResult same = run("check-determinism " + kBase + " " + kBase + " --exit-code");
  EXPECT_EQ(same.rc, 0);
  EXPECT_NE(same.out.find("Deterministic: 40 stages of 8 variants"), std::string::npos) << same.out;
  // Usage and input errors exit 2.
  EXPECT_EQ(run("check-determinism " + kBase).rc, 2);
  EXPECT_EQ(run("check-determinism " + kBase + " /nonexistent/b").rc, 2);
  EXPECT_EQ(run("check-determinism " + kBase + " " + kBase + " -f yaml").rc, 2);
}

TEST_F(DeterminismCli, DiffReportsUnstableApartAndExitCodeIgnoresThem) {
  const std::string again = tmp_.path + "/again";
  // Without knowledge: a change like any other.
  EXPECT_EQ(run("diff " + kBase + " " + again + " --exit-code --stat").rc, 1);
  // Known from a file.
  ASSERT_EQ(run("check-determinism " + kBase + " " + again + " -f json -o " + tmp_.path +
                "/u.json")
                .rc,
            0);
  EXPECT_EQ(run("diff " + kBase + " " + again + " --exit-code --unstable-from " + tmp_.path +
                "/u.json")
                .rc,
            0);
  EXPECT_EQ(run("diff " + kBase + " " + again + " --exit-code --fail-on-unstable "
                "--unstable-from " + tmp_.path + "/u.json")
                .rc,
            1);
  // Known from the capture itself (either side).
  fs::copy_file(tmp_.path + "/u.json", again + "/unstable.json");
  for (const std::string& args : {kBase + " " + again, again + " " + kBase}) {
    SCOPED_TRACE(args);
    CmdResult r = run("diff " + args + " --format json --exit-code");
    EXPECT_EQ(r.rc, 0) << r.err;
    json j = json::parse(r.out);
    EXPECT_TRUE(j["changed"].get<bool>());
    EXPECT_FALSE(j["real_change"].get<bool>());
    EXPECT_EQ(j["unstable_stages"], 2);
    for (const auto& v : j["variants"])
      for (const auto& [stage, s] : v["stages"].items())
        EXPECT_EQ(s.value("unstable", false), s["status"] == "changed") << v["id"] << stage;
    for (const auto& g : j["groups"]) EXPECT_TRUE(g["unstable"].get<bool>());
    for (const auto& s : j["summary"]) EXPECT_EQ(s["changed"], 0) << s["stage"];
    EXPECT_EQ(run("diff " + args + " --exit-code --fail-on-unstable").rc, 1);
  }
  CmdResult t = run("diff " + kBase + " " + again + " --color never");
  EXPECT_NE(t.out.find("· unstable ──"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("known unstable"), std::string::npos) << t.out;
  CmdResult md = run("diff " + kBase + " " + again + " --format markdown");
  EXPECT_NE(md.out.find("· unstable</summary>"), std::string::npos) << md.out;
  // A real change beside the unstable ones still fails --exit-code.
  std::string ptx = ksnap::testing::attn_file(again, "ptx");
  std::string text = ksnap::testing::read_all(ptx);
  ASSERT_GT(ksnap::testing::swap_all(&text, "add.s32", "sub.s32"), 0u);
  std::ofstream(ptx, std::ios::trunc) << text;
  EXPECT_EQ(run("diff " + kBase + " " + again + " --exit-code").rc, 1);
  // A malformed unstable.json is an input error naming the file.
  std::ofstream(tmp_.path + "/bad.json") << "{\"format\": \"ksnap-unstable\",\n \"format_version\": 9}";
  CmdResult bad = run("diff " + kBase + " " + kBase + " --unstable-from " + tmp_.path + "/bad.json");
  EXPECT_EQ(bad.rc, 2);
  EXPECT_NE(bad.err.find(tmp_.path + "/bad.json:2"), std::string::npos) << bad.err;
}

TEST_F(DeterminismCli, RecordedCommitsRememberUnstableStages) {
  const std::string again = tmp_.path + "/again", db = tmp_.path + "/h.db";
  ASSERT_EQ(run("check-determinism " + kBase + " " + again + " -f json -o " + again +
                "/unstable.json")
                .rc,
            0);
  const std::string c1(40, 'a'), c2(40, 'b');
  CmdResult r1 = run("record --store " + db + " --repo '' --commit " + c1 + " " + kBase);
  ASSERT_EQ(r1.rc, 0) << r1.err;
  CmdResult r2 = run("record --store " + db + " --repo '' --commit " + c2 + " --parent " + c1 +
                     " " + again);
  ASSERT_EQ(r2.rc, 0) << r2.err;
  EXPECT_NE(r2.out.find("2 unstable variant-stages (2 new)"), std::string::npos) << r2.out;
  CmdResult ls = run("store unstable --store " + db);
  ASSERT_EQ(ls.rc, 0) << ls.err;
  EXPECT_NE(ls.out.find("bbbbbbbbbbbb"), std::string::npos) << ls.out;
  EXPECT_NE(ls.out.find("attn_fwd"), std::string::npos) << ls.out;
  EXPECT_NE(ls.out.find("2 unstable variant-stages known"), std::string::npos) << ls.out;
  // `ksnap show` of the capture and `ksnap log` of the store say which
  // stages are known unstable; the log does not count them as changes.
  CmdResult sh = run("show " + again);
  ASSERT_EQ(sh.rc, 0) << sh.err;
  EXPECT_NE(sh.out.find("ttgir(unstable)"), std::string::npos) << sh.out;
  EXPECT_NE(sh.out.find("llir(unstable)"), std::string::npos) << sh.out;
  CmdResult lg = run("log --store " + db + " --repo ''");
  ASSERT_EQ(lg.rc, 0) << lg.err;
  EXPECT_NE(lg.out.find("unstable only: ttgir unstable x1, llir unstable x1"), std::string::npos)
      << lg.out;
  CmdResult lgj = run("log --store " + db + " --repo '' -f json");
  ASSERT_EQ(lgj.rc, 0) << lgj.err;
  json lj0 = json::parse(lgj.out);
  ASSERT_EQ(lj0.size(), 1u);
  EXPECT_TRUE(lj0[0]["kernels"][0]["variants"].empty());
  EXPECT_EQ(lj0[0]["kernels"][0]["unstable_variants"].size(), 1u);
  CmdResult lj = run("store unstable --store " + db + " -f json");
  ASSERT_EQ(lj.rc, 0);
  EXPECT_EQ(json::parse(lj.out)["variants"].size(), 2u);
  // Diffing the recorded commits, or a commit against the plain folder: known.
  EXPECT_EQ(run("diff --store " + db + " aaaa bbbb --exit-code").rc, 0);
  fs::remove(again + "/unstable.json");
  EXPECT_EQ(run("diff --store " + db + " aaaa " + again + " --exit-code").rc, 0);
  EXPECT_EQ(run("diff " + kBase + " " + again + " --exit-code").rc, 1);  // no store, no file
}

TEST(DeterminismGpuCli, TwoH200RunsOfTheSuiteAreDeterministic) {
  // tests/fixtures/gpu_capture: the project's suite captured twice on an H200,
  // in two processes from empty caches (docs/capture.md).
  const std::string fx = std::string(KSNAP_SOURCE_DIR) + "/tests/fixtures/gpu_capture";
  if (!fs::exists(fx + "/run1/manifest.json")) GTEST_SKIP() << "no GPU capture fixture";
  CmdResult r = run("check-determinism " + fx + "/run1 " + fx + "/run2 -f json --exit-code");
  EXPECT_EQ(r.rc, 0) << r.err;
  json u = json::parse(r.out);
  EXPECT_EQ(u["variants_compared"], 27);
  EXPECT_EQ(u["stages_compared"], 108);
  EXPECT_TRUE(u["variants"].empty());
  EXPECT_TRUE(u["unpaired"].empty());
}

TEST(CaptureRepeatCli, TwoRunsRecordWhatCompiledDifferently) {
  if (!fs::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
  TempDir tmp("capture_repeat");
  const std::string src = KSNAP_SOURCE_DIR;
  std::string llir;
  for (auto& p : fs::recursive_directory_iterator(kBase + "/cache"))
    if (p.path().filename() == "attn_fwd.llir") llir = p.path();
  ASSERT_FALSE(llir.empty());
  const std::string env = "KSNAP_PYTHON=/usr/bin/python3 KSNAP_PYTHONPATH=" + src +
                          "/python PYTHONPATH=" + src + "/python/tests/fake_triton ";
  auto capture = [&](const std::string& out, const std::string& counter) {
    return "capture --repeat 2 -o " + out + " -- " + src + "/tests/cli/data/unstable_program.py " +
           counter + " " + llir;
  };
  const std::string out = tmp.path + "/cap";
  // `run` prefixes the binary: put the environment in front through env(1).
  CmdResult r = run_env(env, capture(out, tmp.path + "/n"));
  ASSERT_EQ(r.rc, 0) << r.err;
  ASSERT_TRUE(fs::exists(out + "/manifest.json"));
  ASSERT_TRUE(fs::exists(out + ".repeat-2/manifest.json"));
  json u = read_json_file(out + "/unstable.json");
  EXPECT_EQ(u["runs"], json({out, out + ".repeat-2"}));
  EXPECT_EQ(u["variants_compared"], 2);
  ASSERT_EQ(u["variants"].size(), 1u);
  EXPECT_EQ(u["variants"][0]["kernel"], "racy_kernel");
  ASSERT_EQ(u["variants"][0]["stages"].size(), 1u);
  EXPECT_EQ(u["variants"][0]["stages"][0]["stage"], "llir");
  EXPECT_NE(r.err.find("1 unstable variant-stage in 1 variant"), std::string::npos) << r.err;
  // The capture now knows: its diff against the repeat has no real change.
  CmdResult d = run("diff " + out + " " + out + ".repeat-2 --format json --exit-code");
  EXPECT_EQ(d.rc, 0) << d.err;
  EXPECT_EQ(json::parse(d.out)["unstable_stages"], 1);
  // A repeat folder that exists already would reuse its Triton cache: refused.
  CmdResult again = run_env(env, capture(out, tmp.path + "/n"));
  EXPECT_EQ(again.rc, 2);
  EXPECT_NE(again.err.find(out + ".repeat-2"), std::string::npos) << again.err;
  // A failing program: its status, no check.
  CmdResult fail = run_env(env, "capture --repeat 2 -o " + tmp.path + "/f -- " + src +
                                    "/tests/cli/data/unstable_program.py /nonexistent/dir/n " +
                                    llir);
  EXPECT_NE(fail.rc, 0);
  EXPECT_FALSE(fs::exists(tmp.path + "/f/unstable.json"));
  EXPECT_FALSE(fs::exists(tmp.path + "/f.repeat-2"));
  EXPECT_EQ(run("capture --repeat 0 -o " + tmp.path + "/z -- true").rc, 2);
}

}  // namespace
}  // namespace ksnap::cli_test

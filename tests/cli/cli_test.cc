// Golden CLI tests: the real `ksnap` binary on the real Triton corpus (the
// bundled examples/corpus subset always; the full ../shared/corpus when present).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "cli/cli_util.h"
#include "support/corpus_dir.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using ksnap::cli_test::CmdResult;
using ksnap::cli_test::run;
using ksnap::cli_test::run_env;

std::string example(const std::string& b) { return std::string(KSNAP_EXAMPLE_DIR) + "/" + b; }

/// kernel|constexprs|options|stage of every changed stage, keyed the way
/// truth.json keys them (BASE's identity).
std::set<std::string> changed_set(const json& j) {
  std::set<std::string> out;
  for (const auto& v : j["variants"])
    for (auto it = v["stages"].begin(); it != v["stages"].end(); ++it)
      if (it.value()["status"] != "unchanged")
        out.insert(v["id"].get<std::string>() + "|" + it.key());
  return out;
}

std::set<std::string> truth_set(const std::string& truth_path, const std::string& pair,
                                size_t* rows) {
  std::ifstream f(truth_path);
  json t = json::parse(f);
  std::set<std::string> out;
  *rows = 0;
  for (auto it = t["pairs"][pair]["rows"].begin(); it != t["pairs"][pair]["rows"].end(); ++it) {
    ++*rows;
    if (it.value()["changed"].get<bool>()) out.insert(it.key());
  }
  return out;
}

/// BASE ids differ from truth keys only where BASE itself differs: truth keys
/// use BASE's options, which is what `id` holds.
void expect_matches_truth(const std::string& dir, const std::string& base,
                          const std::string& head, const std::string& truth_pair) {
  CmdResult r = run("diff " + dir + "/" + base + " " + dir + "/" + head + " --format json");
  ASSERT_EQ(r.rc, 0) << r.err;
  json j = json::parse(r.out);
  size_t rows = 0;
  std::set<std::string> want = truth_set(dir + "/truth.json", truth_pair, &rows);
  std::set<std::string> got = changed_set(j);
  EXPECT_EQ(got, want) << base << ".." << head;
  size_t stages = 0;
  for (const auto& v : j["variants"]) stages += v["stages"].size();
  EXPECT_EQ(stages, rows);
}

class CorpusDirs : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusDirs, NoiseIsUnchanged) {
  CmdResult r = run("diff " + GetParam() + "/base " + GetParam() + "/noise --format json --exit-code");
  EXPECT_EQ(r.rc, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["changed_stages"], 0);
  EXPECT_FALSE(j["changed"].get<bool>());
}

TEST_P(CorpusDirs, NoLicmMatchesTruth) { expect_matches_truth(GetParam(), "base", "no_licm", "base..no_licm"); }
TEST_P(CorpusDirs, FusionOffMatchesTruth) {
  expect_matches_truth(GetParam(), "base", "fusion_off", "base..fusion_off");
}
TEST_P(CorpusDirs, NoiseToNoLicmMatchesBaseToNoLicm) {
  CmdResult a = run("diff " + GetParam() + "/base " + GetParam() + "/no_licm --format json");
  CmdResult b = run("diff " + GetParam() + "/noise " + GetParam() + "/no_licm --format json");
  ASSERT_EQ(a.rc, 0);
  ASSERT_EQ(b.rc, 0);
  // noise has other ids only where options differ, which they do not: same keys.
  EXPECT_EQ(changed_set(json::parse(a.out)), changed_set(json::parse(b.out)));
}

TEST_P(CorpusDirs, FusionOffPairsByConstexprsAndNamesTheOption) {
  CmdResult r = run("diff " + GetParam() + "/base " + GetParam() + "/fusion_off --format json");
  ASSERT_EQ(r.rc, 0);
  json j = json::parse(r.out);
  for (const auto& v : j["variants"]) {
    EXPECT_EQ(v["pairing"], "options_differ") << v["id"];
    bool named = false;
    for (const auto& c : v["option_changes"])
      if (c["name"] == "enable_fp_fusion") {
        named = true;
        EXPECT_EQ(c["base"], true);
        EXPECT_EQ(c["head"], false);
      }
    EXPECT_TRUE(named) << v["id"];
  }
}

TEST_P(CorpusDirs, ExitCodeOnlyWhenAsked) {
  EXPECT_EQ(run("diff " + GetParam() + "/base " + GetParam() + "/no_licm --format stat").rc, 0);
  EXPECT_EQ(run("diff " + GetParam() + "/base " + GetParam() + "/no_licm --stat --exit-code").rc, 1);
}

/// The bundled example always, the shared corpus too where present: a clone
/// without it (CI) runs the example once instead of skipping a second copy.
std::vector<std::string> corpus_dirs() {
  std::vector<std::string> dirs = {KSNAP_EXAMPLE_DIR};
  if (ksnap::testing::shared_corpus_present()) dirs.push_back(KSNAP_CORPUS_DIR);
  return dirs;
}

INSTANTIATE_TEST_SUITE_P(Corpora, CorpusDirs, ::testing::ValuesIn(corpus_dirs()));

TEST(CliTest, JsonHasEveryRequiredField) {
  CmdResult r = run("diff " + example("base") + " " + example("no_licm") + " --format json");
  ASSERT_EQ(r.rc, 0) << r.err;
  json j = json::parse(r.out);
  ASSERT_FALSE(j["variants"].empty());
  for (const auto& v : j["variants"]) {
    for (const char* k : {"kernel", "constexprs", "options", "pairing", "stages", "resources"})
      EXPECT_TRUE(v.contains(k)) << k;
    for (const char* st : {"ttir", "ttgir", "llir", "ptx"}) {
      ASSERT_TRUE(v["stages"].contains(st)) << st;
      const auto& s = v["stages"][st];
      EXPECT_TRUE(s.contains("status")) << st;
      if (s["status"] == "changed") {
        for (const char* k : {"lines_added", "lines_removed", "group", "statistics", "base_path", "head_path"})
          EXPECT_TRUE(s.contains(k)) << st << " " << k;
      }
    }
  }
  EXPECT_FALSE(j["groups"].empty());
}

TEST(CliTest, GroupsShareIdenticalChanges) {
  CmdResult r = run("diff " + example("base") + " " + example("fusion_off") + " --format json");
  ASSERT_EQ(r.rc, 0) << r.err;
  json j = json::parse(r.out);
  size_t members = 0;
  for (const auto& g : j["groups"])
    if (!g["unstable"].get<bool>()) members += g["count"].get<size_t>();
  EXPECT_EQ(members, j["changed_stages"].get<size_t>());
  // Hunks are written once per group; variants only refer to their group.
  for (const auto& v : j["variants"])
    for (const auto& [name, st] : v["stages"].items()) {
      EXPECT_FALSE(st.contains("hunks")) << name;
      if (st["status"] == "changed") {
        EXPECT_TRUE(j["groups"][st["group"].get<size_t>()]["variants"].size() > 0);
      }
    }
}

/// Golden outputs on the bundled example; KSNAP_UPDATE_GOLDEN=1 rewrites them.
TEST(CliTest, GoldenReports) {
  struct Case {
    std::string args, golden;
  } cases[] = {
      {"diff " + example("base") + " " + example("no_licm") + " --stat", "no_licm.stat.txt"},
      {"diff " + example("base") + " " + example("no_licm") + " --color never", "no_licm.terminal.txt"},
      {"diff " + example("base") + " " + example("fusion_off") + " --format markdown",
       "fusion_off.md"},
      {"show " + example("base"), "show_base.txt"},
  };
  for (const auto& c : cases) {
    CmdResult r = run_env("COLUMNS=100 ", c.args);  // --stat is sized to the terminal
    ASSERT_EQ(r.rc, 0) << c.args << "\n" << r.err;
    // Paths differ between checkouts: make them relative to the example dir.
    std::string out = r.out;
    for (size_t at; (at = out.find(KSNAP_EXAMPLE_DIR)) != std::string::npos;)
      out.replace(at, std::strlen(KSNAP_EXAMPLE_DIR), "examples/corpus");
    std::string path = std::string(KSNAP_SOURCE_DIR) + "/tests/cli/golden/" + c.golden;
    if (std::getenv("KSNAP_UPDATE_GOLDEN")) {
      std::ofstream(path) << out;
      continue;
    }
    std::ifstream f(path);
    ASSERT_TRUE(f.good()) << "missing golden " << path << " (run with KSNAP_UPDATE_GOLDEN=1)";
    std::stringstream ss;
    ss << f.rdbuf();
    EXPECT_EQ(out, ss.str()) << c.args;
  }
}

class BadInputTest : public ::testing::Test {
 public:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ksnap_cli_bad_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    fs::copy(example("base"), dir_ + "/base", fs::copy_options::recursive);
    fs::copy(example("base"), dir_ + "/head", fs::copy_options::recursive);
    for (auto& p : fs::recursive_directory_iterator(dir_))
      fs::permissions(p.path(), fs::perms::owner_write, fs::perm_options::add);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string first_stage_file(const std::string& ext) {
    for (auto& p : fs::recursive_directory_iterator(dir_ + "/head/cache"))
      if (p.path().extension() == ext && p.path().string().find("matmul") != std::string::npos)
        return p.path();
    return "";
  }
  std::string dir_;
};

TEST_F(BadInputTest, ErrorsNameTheFileAndExit2) {
  struct Case {
    std::string name;
    std::function<std::string(BadInputTest*)> corrupt;  // returns the path the error must name
  } cases[] = {
      {"truncated ttgir",
       [](BadInputTest* t) {
         std::string f = t->first_stage_file(".ttgir");
         fs::resize_file(f, fs::file_size(f) / 2);
         return f;
       }},
      {"binary junk in ptx",
       [](BadInputTest* t) {
         std::string f = t->first_stage_file(".ptx");
         std::ofstream(f, std::ios::binary) << std::string("\x7f" "ELF\0\0\x01junk", 11);
         return f;
       }},
      {"manifest not json",
       [](BadInputTest* t) {
         std::string f = t->dir_ + "/head/manifest.json";
         std::ofstream(f) << "{\n \"entries\": [\n  {\"kernel\": \n";
         return f;
       }},
      {"manifest names a missing folder",
       [](BadInputTest* t) {
         std::string f = t->dir_ + "/head/manifest.json";
         std::ifstream in(f);
         std::stringstream ss;
         ss << in.rdbuf();
         json m = json::parse(ss.str());
         m["entries"][0]["cache_dir"] = "NO_SUCH_FOLDER";
         std::ofstream(f) << m.dump(1);
         return f;
       }},
      {"1 MB line in llir",
       [](BadInputTest* t) {
         std::string f = t->first_stage_file(".llir");
         std::ofstream(f, std::ios::app) << "; " << std::string(1 << 20, 'x') << "\n";
         return f;
       }},
  };
  for (auto& c : cases) {
    TearDown();
    SetUp();
    std::string named = c.corrupt(this);
    CmdResult r = run("diff " + dir_ + "/base " + dir_ + "/head");
    EXPECT_EQ(r.rc, 2) << c.name << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(named), std::string::npos) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find("ksnap: "), std::string::npos) << c.name;
  }
}

TEST(CliTest, ShowJsonListsEveryVariant) {
  CmdResult r = run("show " + example("base") + " --format json");
  ASSERT_EQ(r.rc, 0) << r.err;
  json j = json::parse(r.out);
  ASSERT_EQ(j.size(), 8u);
  EXPECT_EQ(j[0]["id"], "add_kernel|{\"BLOCK_SIZE\": 256}|{\"num_warps\": 4}");
  EXPECT_EQ(j[0]["constexprs"]["BLOCK_SIZE"], 256);
  EXPECT_EQ(j[0]["stages"], json({"source", "ttir", "ttgir", "llir", "ptx"}));
  EXPECT_EQ(j[0]["resources"]["n_regs"], 16);
  EXPECT_EQ(run("show " + example("base") + " --format yaml").rc, 2);
}

TEST(CliTest, UsageErrorsExit2) {
  EXPECT_EQ(run("diff").rc, 2);
  EXPECT_EQ(run("diff /nonexistent/a /nonexistent/b").rc, 2);
  EXPECT_EQ(run("diff " + example("base") + " " + example("noise") + " --format nope").rc, 2);
  EXPECT_EQ(run("frobnicate").rc, 2);
  EXPECT_EQ(run("--help").rc, 0);
}

TEST(CliTest, NormalizePrintsCanonicalFormThatIgnoresNoise) {
  // The same kernel from base and noise normalizes to the same text.
  std::string b, n;
  for (auto& p : fs::recursive_directory_iterator(example("base") + "/cache"))
    if (p.path().filename() == "attn_fwd.ttgir") b = p.path();
  for (auto& p : fs::recursive_directory_iterator(example("noise") + "/cache"))
    if (p.path().filename() == "attn_fwd.ttgir") n = p.path();
  ASSERT_FALSE(b.empty());
  ASSERT_FALSE(n.empty());
  CmdResult rb = run("normalize " + b); CmdResult rn = run("normalize " + n);
  EXPECT_EQ(rb.rc, 0) << rb.err;
  EXPECT_FALSE(rb.out.empty());
  EXPECT_EQ(rb.out, rn.out);
  EXPECT_EQ(rb.out.find("loc("), std::string::npos);
  EXPECT_EQ(run("normalize /nonexistent.ttgir").rc, 2);
}

}  // namespace

namespace {

/// Writes a ksnap per-sample CSV with `n` samples around `center` (fixed
/// pseudo-random spread of about ±2%).
void write_samples(const std::string& path, double center_a, double center_b) {
  std::ofstream f(path);
  f << "name,params,samples,unit\n";
  const std::pair<const char*, double> points[] = {
      {"M=1024;N=1024;K=1024;provider=triton", center_a},
      {"M=9999;N=1;K=1;provider=other", center_b}};
  uint64_t x = 88172645463325252ull;
  for (const auto& [params, c] : points) {
    f << "matmul-performance," << params << ",";
    for (int i = 0; i < 200; ++i) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      double u = static_cast<double>(x % 10000) / 10000.0 - 0.5;
      f << (i ? " " : "") << c * (1 + 0.04 * u);
    }
    f << ",us\n";
  }
}

TEST(CliTest, BenchVerdictsCombinePerfWithIr) {
  std::string fx = std::string(KSNAP_SOURCE_DIR) + "/tests/fixtures/gpu_capture";
  if (!fs::exists(fx + "/run1/manifest.json")) GTEST_SKIP() << "no GPU capture fixture";
  std::string dir = fs::temp_directory_path() / ("ksnap_cli_bench_" + std::to_string(getpid()));
  fs::create_directories(dir);
  write_samples(dir + "/base.csv", 100.0, 50.0);
  write_samples(dir + "/head.csv", 106.0, 50.0);  // the attributed point is 6% slower
  CmdResult r = run("diff " + fx + "/run1 " + fx + "/run2 --format json --bench-base " + dir +
                    "/base.csv --bench-head " + dir + "/head.csv");
  ASSERT_EQ(r.rc, 0) << r.err;
  json j = json::parse(r.out);
  ASSERT_TRUE(j.contains("bench_verdicts"));
  std::map<std::string, std::string> verdict;
  for (const auto& p : j["bench_verdicts"]["points"]) verdict[p["point"]] = p["verdict"];
  ASSERT_EQ(verdict.size(), 2u);
  // IR did not change between the two runs: a slowdown there is noise.
  EXPECT_EQ(verdict["matmul-performance[K=1024,M=1024,N=1024,provider=triton]"], "likely_noise");
  EXPECT_EQ(verdict["matmul-performance[K=1,M=9999,N=1,provider=other]"], "no_change");
  // Shown in the other formats too.
  CmdResult t = run("diff " + fx + "/run1 " + fx + "/run2 --color never --bench-base " + dir +
                    "/base.csv --bench-head " + dir + "/head.csv");
  EXPECT_NE(t.out.find("Benchmark verdicts"), std::string::npos);
  EXPECT_NE(t.out.find("likely noise"), std::string::npos);
  CmdResult m = run("diff " + fx + "/run1 " + fx + "/run2 --format markdown --bench-base " + dir +
                    "/base.csv --bench-head " + dir + "/head.csv");
  EXPECT_NE(m.out.find("Benchmark verdicts"), std::string::npos);
  CmdResult h = run("diff " + fx + "/run1 " + fx + "/run2 --format html --bench-base " + dir +
                    "/base.csv --bench-head " + dir + "/head.csv");
  EXPECT_NE(h.out.find("data-verdict=\"likely_noise\""), std::string::npos);
  // One side only, or a bad file: usage / input error.
  EXPECT_EQ(run("diff " + fx + "/run1 " + fx + "/run2 --bench-base " + dir + "/base.csv").rc, 2);
  std::ofstream(dir + "/bad.csv") << "name,params,samples\nx,a=1,1 2 nope\n";
  CmdResult bad = run("diff " + fx + "/run1 " + fx + "/run2 --bench-base " + dir +
                      "/bad.csv --bench-head " + dir + "/head.csv");
  EXPECT_EQ(bad.rc, 2);
  EXPECT_NE(bad.err.find("bad.csv:2"), std::string::npos) << bad.err;
  fs::remove_all(dir);
}

}  // namespace

// Variant identity through the real `ksnap diff`: where a kernel is defined
// is part of it (issue 8 item 3). Capture folders are built here from the
// real variants of examples/corpus with `qualname` / `source_file` set the
// way the capture plugin records them.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_util.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace ksnap::cli_test {
namespace {

/// An edit that makes an entry a kernel of the script `file` run as __main__.
auto script(const std::string& file) {
  return [file](json& e) {
    e["qualname"] = "__main__." + e["kernel"].get<std::string>();
    e["source_file"] = file;
    e["source_line"] = 10;
  };
}

TEST(IdentityCli, TwoScriptsDefiningOneKernelNameAreTwoKernels) {
  const std::string ex = KSNAP_EXAMPLE_DIR;
  TempDir tmp("identity_scripts");
  // BASE: bench/a.py and bench/b.py both define matmul_kernel (the same code,
  // so the same Triton cache folder); add_kernel comes from a.py.
  subset_capture(ex + "/base", tmp.path + "/base", {0, 5}, script("/ci/a/bench/a.py"));
  {
    json m = read_json_file(tmp.path + "/base/manifest.json");
    json extra = m["entries"][1];
    script("/ci/a/bench/b.py")(extra);
    m["entries"].push_back(extra);
    std::ofstream(tmp.path + "/base/manifest.json") << m.dump(1);
  }
  // HEAD, from another checkout and the no_licm compiler: a.py no longer
  // compiles matmul_kernel.
  subset_capture(ex + "/no_licm", tmp.path + "/head", {0}, script("/ci/b/bench/a.py"));
  {
    json m = read_json_file(tmp.path + "/head/manifest.json");
    subset_capture(ex + "/no_licm", tmp.path + "/head_b", {5}, script("/ci/b/bench/b.py"));
    json b = read_json_file(tmp.path + "/head_b/manifest.json");
    m["entries"].push_back(b["entries"][0]);
    fs::copy(tmp.path + "/head_b/cache", tmp.path + "/head/cache",
             fs::copy_options::recursive | fs::copy_options::skip_existing);
    std::ofstream(tmp.path + "/head/manifest.json") << m.dump(1);
  }
  CmdResult r = run("diff " + tmp.path + "/base " + tmp.path + "/head --format json");
  ASSERT_EQ(r.rc, 0) << r.err;
  json j = json::parse(r.out);
  ASSERT_EQ(j["variants"].size(), 3u) << r.out.substr(0, 3000);
  std::map<std::string, json> by_label;
  for (const auto& v : j["variants"]) by_label[v["label"].get<std::string>()] = v;
  ASSERT_TRUE(by_label.count("add_kernel"));
  ASSERT_TRUE(by_label.count("matmul_kernel (a.py)"));
  ASSERT_TRUE(by_label.count("matmul_kernel (b.py)"));
  EXPECT_EQ(by_label["add_kernel"]["pairing"], "exact");
  EXPECT_EQ(by_label["matmul_kernel (a.py)"]["pairing"], "removed");
  EXPECT_EQ(by_label["matmul_kernel (a.py)"]["source"], "/ci/a/bench/a.py");
  const json& b = by_label["matmul_kernel (b.py)"];
  EXPECT_EQ(b["pairing"], "exact");
  EXPECT_EQ(b["source"], "/ci/a/bench/b.py");
  EXPECT_EQ(b["head_source"], "/ci/b/bench/b.py");
  EXPECT_EQ(b["stages"]["ttgir"]["status"], "changed");  // no_licm's real change
  for (const auto& g : j["groups"]) EXPECT_EQ(g["label"], "matmul_kernel (b.py)");
  // The text reports name the file too.
  CmdResult t = run("diff " + tmp.path + "/base " + tmp.path + "/head --color never");
  EXPECT_NE(t.out.find("- matmul_kernel (a.py)"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("matmul_kernel (b.py) · ttgir"), std::string::npos) << t.out;
  CmdResult md = run("diff " + tmp.path + "/base " + tmp.path + "/head --format markdown");
  EXPECT_NE(md.out.find("**Removed variants**\n\n- `matmul_kernel (a.py) "), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("<b>matmul_kernel (b.py)</b>"), std::string::npos) << md.out;  // HTML: no Markdown escapes
  // The HTML page carries the labels in its data island.
  CmdResult html = run("diff " + tmp.path + "/base " + tmp.path + "/head --format html");
  EXPECT_NE(html.out.find("matmul_kernel (b.py)"), std::string::npos);
  // `ksnap show` tells the two matmul_kernels apart too, in text and JSON.
  CmdResult show = run("show " + tmp.path + "/base");
  ASSERT_EQ(show.rc, 0) << show.err;
  EXPECT_NE(show.out.find("  matmul_kernel (a.py) {"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("  matmul_kernel (b.py) {"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("  add_kernel {"), std::string::npos) << show.out;
  CmdResult sj = run("show " + tmp.path + "/base -f json");
  ASSERT_EQ(sj.rc, 0) << sj.err;
  std::set<std::string> shown;
  for (const auto& v : json::parse(sj.out)) shown.insert(v["label"].get<std::string>() + "@" + v["source"].get<std::string>());
  EXPECT_TRUE(shown.count("matmul_kernel (a.py)@/ci/a/bench/a.py"));
  EXPECT_TRUE(shown.count("matmul_kernel (b.py)@/ci/a/bench/b.py"));
}

TEST(IdentityCli, NoiseFromAnotherPathStillPairsExactly) {
  // The corpus noise build compiled kernels.py from another checkout path
  // (/home/ci/job-17/repo/benchmarks vs /tmp/runner-a/work/bench) with renamed
  // locals: as a script or as a module, every variant pairs exactly and
  // nothing changed.
  // The bundled example corpus is always there; the shared one may not be.
  ASSERT_TRUE(fs::exists(std::string(KSNAP_EXAMPLE_DIR) + "/noise/manifest.json"));
  bool shared_ran = false;
  for (const std::string& corpus : {std::string(KSNAP_EXAMPLE_DIR), std::string(KSNAP_CORPUS_DIR)}) {
    if (!fs::exists(corpus + "/noise/manifest.json")) continue;
    shared_ran |= corpus != KSNAP_EXAMPLE_DIR;
    for (bool as_module : {false, true}) {
      SCOPED_TRACE(corpus + (as_module ? " module" : " script"));
      TempDir tmp("identity_noise");
      for (const char* b : {"base", "noise"}) {
        json m = read_json_file(corpus + "/" + b + "/manifest.json");
        std::vector<int> all(m["entries"].size());
        for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
        const std::string src = m["source_path"];
        subset_capture(corpus + "/" + b, tmp.path + "/" + b, all, [&](json& e) {
          if (as_module) {
            e["qualname"] = "kernels." + e["kernel"].get<std::string>();
            e["source_file"] = src;
          } else {
            script(src)(e);
          }
        });
      }
      CmdResult r = run("diff " + tmp.path + "/base " + tmp.path + "/noise --format json --exit-code");
      EXPECT_EQ(r.rc, 0) << r.err;
      json j = json::parse(r.out);
      EXPECT_EQ(j["changed_stages"], 0);
      for (const auto& v : j["variants"]) {
        EXPECT_EQ(v["pairing"], "exact") << v["id"];
        EXPECT_EQ(v["label"], v["kernel"]);
      }
    }
  }
  if (!shared_ran) GTEST_SKIP() << "the example corpus passed; ../shared/corpus is absent";
}

}  // namespace
}  // namespace ksnap::cli_test

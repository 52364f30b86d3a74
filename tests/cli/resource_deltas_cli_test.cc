// Resource deltas and the first changed layer through the real binary, on
// the H200 knob captures (gpu/knobs/results/captures.tar.xz): `base`
// launched on the GPU (the driver's n_regs / n_spills), `launch-K` launched
// under knob K, `rc-K` = base recompiled under K on a machine without a GPU
// (no launch figures: they come from the cubins).
//   - a recompile's resource deltas equal the launched capture's, variant by
//     variant (figures from binaries agree with the driver's);
//   - DISABLE_LLVM_OPT=1 changes LLVM IR first (Triton's IR is the same);
//     DISABLE_MMA_V3=1 changes TTGIR first (the MMA version is picked there);
//   - every format shows the deltas right after the headline.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>
#include <map>

#include "cli/cli_util.h"

namespace ksnap::cli_test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class KnobCaptures : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // One folder per process: ctest runs each test in its own process, in parallel.
    std::string tmpl = (fs::temp_directory_path() / "ksnap_resource_deltas_cli-XXXXXX").string();
    ok_ = ::mkdtemp(tmpl.data()) != nullptr;
    dir_ = new std::string(tmpl);
    if (!ok_) return;
    const std::string tarball = std::string(KSNAP_SOURCE_DIR) + "/gpu/knobs/results/captures.tar.xz";
    const std::string cmd = "tar -xJf '" + tarball + "' -C '" + *dir_ +
                            "' ./base ./launch-disable-llvm-opt ./rc-disable-llvm-opt "
                            "./launch-disable-mma-v3 ./rc-disable-mma-v3 ./rc-none";
    ok_ = std::system(cmd.c_str()) == 0;
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
  }
  void SetUp() override { ASSERT_TRUE(ok_) << "could not extract the knob captures"; }

  static json diff_json(const std::string& base, const std::string& head) {
    CmdResult r = run("diff " + *dir_ + "/" + base + " " + *dir_ + "/" + head + " --format json");
    EXPECT_EQ(r.rc, 0) << r.err;
    return json::parse(r.out);
  }
  /// "kernel|config" -> figure -> [base, head], for the figures that moved.
  static std::map<std::string, std::map<std::string, std::pair<int64_t, int64_t>>> moved(
      const json& j) {
    std::map<std::string, std::map<std::string, std::pair<int64_t, int64_t>>> out;
    for (const json& d : j["resource_deltas"])
      for (const json& row : d["rows"])
        out[row["kernel"].get<std::string>() + "|" + row["config"].get<std::string>()]
           [d["figure"]] = {row["base"], row["head"]};
    return out;
  }

  static std::string* dir_;
  static bool ok_;
};
std::string* KnobCaptures::dir_ = nullptr;
bool KnobCaptures::ok_ = false;

TEST_F(KnobCaptures, RecompiledFiguresComeFromCubinsAndEqualTheLaunchedOnes) {
  json launched = diff_json("base", "launch-disable-llvm-opt");
  json recompiled = diff_json("base", "rc-disable-llvm-opt");
  ASSERT_FALSE(launched["resource_deltas"].empty()) << "DISABLE_LLVM_OPT moves registers";
  EXPECT_EQ(moved(launched), moved(recompiled));
  EXPECT_EQ(launched["resource_headline"], recompiled["resource_headline"]);
  // Where each figure came from: BASE launched, HEAD recompiled.
  size_t seen = 0;
  for (const json& v : recompiled["variants"]) {
    if (!v.contains("resource_sources")) continue;
    ++seen;
    EXPECT_EQ(v["resource_sources"]["n_regs"], "launch|binary") << v["id"];
    EXPECT_EQ(v["resource_sources"]["occupancy"], "binary") << v["id"];
    EXPECT_EQ(v["occupancy_unit"], "warps per SM");
  }
  EXPECT_GT(seen, 0u);
}

TEST_F(KnobCaptures, TheFirstChangedLayerNamesWhoChangedTheKernels) {
  const struct {
    const char* head;
    const char* layer;
  } cases[] = {
      {"launch-disable-llvm-opt", "llvm-middle-end"},
      {"rc-disable-llvm-opt", "llvm-middle-end"},
      {"launch-disable-mma-v3", "triton"},
      {"rc-disable-mma-v3", "triton"},
  };
  for (const auto& c : cases) {
    json j = diff_json("base", c.head);
    ASSERT_FALSE(j["first_changed_layers"].empty()) << c.head;
    EXPECT_EQ(j["first_changed_layers"][0]["layer"], c.layer) << c.head;
    size_t counted = 0;
    for (const json& l : j["first_changed_layers"]) counted += l["variants"].get<size_t>();
    EXPECT_EQ(counted, j["totals"]["changed_variants"].get<size_t>()) << c.head;
    for (const json& v : j["variants"]) {
      if (!v["changed"].get<bool>()) {
        EXPECT_TRUE(v["first_changed_stage"].is_null()) << v["id"];
        continue;
      }
      ASSERT_TRUE(v["first_changed_stage"].is_string()) << v["id"];
      const std::string first = v["first_changed_stage"];
      // Every stage before the first changed one (pipeline order: the
      // report's "stages") is unchanged.
      for (const json& name : j["stages"]) {
        if (name == first) break;
        if (!v["stages"].contains(name)) continue;
        EXPECT_EQ(v["stages"][name.get<std::string>()]["status"], "unchanged")
            << c.head << " " << v["id"] << " " << name;
      }
    }
  }
  json none = diff_json("base", "rc-none");
  EXPECT_TRUE(none["first_changed_layers"].empty());
  EXPECT_EQ(none["resource_headline"], "");
}

TEST_F(KnobCaptures, EveryFormatShowsTheDeltasRightAfterTheHeadline) {
  json j = diff_json("base", "rc-disable-llvm-opt");
  const std::string lead = j["resource_headline"];
  ASSERT_FALSE(lead.empty());
  for (const char* format : {"terminal", "markdown", "html"}) {
    CmdResult r = run("diff " + *dir_ + "/base " + *dir_ + "/rc-disable-llvm-opt --format " +
                      format + " --color never");
    ASSERT_EQ(r.rc, 0) << format << r.err;
    // The page's <title> may spell the headline too: take the last one
    // before the deltas.
    size_t res = r.out.find(lead);
    ASSERT_NE(res, std::string::npos) << format;
    size_t head = r.out.rfind(j["headline"].get<std::string>(), res);
    size_t where = r.out.find("changed first in LLVM");
    ASSERT_NE(head, std::string::npos) << format;
    ASSERT_NE(where, std::string::npos) << format;
    EXPECT_LT(head, res) << format;
    // Nothing but the resource lines between the headline and the deltas.
    EXPECT_LT(res - head, j["headline"].get<std::string>().size() + 200) << format;
    if (std::string(format) == "html") continue;  // its scripts and styles name sections too
    for (const char* later : {"Statistics", "Stages"}) {
      size_t at = r.out.find(later);
      if (at != std::string::npos) EXPECT_LT(where, at) << format << " " << later;
    }
  }
}

}  // namespace
}  // namespace ksnap::cli_test

// `ksnap show --format json` keeps the launch figures, fills n_regs /
// n_spills from the cubin when the capture has none, adds the binary's
// figures and occupancy, and says where each figure came from.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli/cli_util.h"

namespace ksnap::cli_test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string example(const std::string& b) { return std::string(KSNAP_EXAMPLE_DIR) + "/" + b; }

TEST(ResourcesCli, LaunchFiguresKeptAndBinaryFiguresAgree) {
  CmdResult r = run("show " + example("base") + " --format json");
  ASSERT_EQ(r.rc, 0) << r.err;
  json j = json::parse(r.out);
  ASSERT_EQ(j.size(), 8u);
  for (const json& v : j) {
    EXPECT_EQ(v["resource_sources"]["n_regs"], "launch") << v["id"];
    EXPECT_EQ(v["resource_sources"]["regs"], "binary") << v["id"];
    EXPECT_EQ(v["resources"]["regs"], v["resources"]["n_regs"]) << v["id"];
    EXPECT_EQ(v["resources"]["local_bytes"].get<int64_t>() / 4, v["resources"]["n_spills"]);
    EXPECT_EQ(v["occupancy"]["unit"], "warps per SM") << v["id"];
    EXPECT_EQ(v["occupancy"]["target"], "sm_90") << v["id"];
    EXPECT_GT(v["occupancy"]["value"].get<int64_t>(), 0) << v["id"];
  }
}

TEST(ResourcesCli, MissingLaunchFiguresComeFromTheBinary) {
  const std::string dir = (fs::temp_directory_path() / "ksnap_resources_cli").string();
  fs::remove_all(dir);
  subset_capture(example("base"), dir, {0, 1}, [](json& e) {
    e.erase("n_regs");
    e.erase("n_spills");
  });
  CmdResult with = run("show " + example("base") + " --format json");
  CmdResult without = run("show " + dir + " --format json");
  ASSERT_EQ(without.rc, 0) << without.err;
  json a = json::parse(with.out), b = json::parse(without.out);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(b[i]["resource_sources"]["n_regs"], "binary");
    EXPECT_EQ(b[i]["resource_sources"]["n_spills"], "binary");
    EXPECT_EQ(b[i]["resources"]["n_regs"], a[i]["resources"]["n_regs"]);
    EXPECT_EQ(b[i]["resources"]["n_spills"], a[i]["resources"]["n_spills"]);
  }
  fs::remove_all(dir);
}

TEST(ResourcesCli, AnUnreadableCubinIsReportedAndShowGoesOn) {
  const std::string dir = (fs::temp_directory_path() / "ksnap_resources_cli_bad").string();
  fs::remove_all(dir);
  subset_capture(example("base"), dir, {0});
  for (auto& p : fs::recursive_directory_iterator(dir))
    if (p.path().extension() == ".cubin")
      std::ofstream(p.path(), std::ios::binary) << "\x7f"
                                                   "ELF\x02";
  CmdResult r = run("show " + dir + " --format json");
  ASSERT_EQ(r.rc, 0) << r.err;
  json j = json::parse(r.out);
  ASSERT_EQ(j.size(), 1u);
  EXPECT_NE(j[0]["resource_error"].get<std::string>().find("ELF header truncated"),
            std::string::npos)
      << j[0];
  EXPECT_EQ(j[0]["resource_sources"]["n_regs"], "launch");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ksnap::cli_test

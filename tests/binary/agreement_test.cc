// The figures read from real binaries agree with what the hardware reported:
// every cubin of the H200 captures in the repository against the n_regs /
// n_spills Triton's launcher recorded, the cubins of tests/fixtures/sass
// against cuobjdump -res-usage, and the gfx942 hsaco files against the
// metadata and occupancy the compiler printed in the .amdgcn beside them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "ksnap/binary/occupancy.h"
#include "ksnap/binary/resources.h"
#include "ksnap/build/build.h"
#include "ksnap/support/file.h"

namespace ksnap::binary {
namespace {

namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  auto b = read_binary_file(path);
  EXPECT_TRUE(b.has_value()) << path;
  return b ? *b : std::string();
}

TEST(BinaryAgreement, EveryH200CubinMatchesTheLaunchedRegistersAndSpills) {
  const std::string src = KSNAP_SOURCE_DIR;
  std::vector<std::string> roots = {src + "/tests/fixtures/gpu_capture/run1",
                                    src + "/tests/fixtures/gpu_capture/run2",
                                    src + "/tests/fixtures/recompile/suite"};
  for (const char* corpus : {KSNAP_EXAMPLE_DIR, KSNAP_CORPUS_DIR})
    for (const char* b : {"base", "fusion_off", "no_licm", "noise"})
      roots.push_back(std::string(corpus) + "/" + b);
  int checked = 0, agree = 0, with_spills = 0;
  for (const std::string& root : roots) {
    if (!fs::exists(root + "/manifest.json")) continue;
    auto build = build::load_build(root);
    ASSERT_TRUE(build.has_value()) << build.status().to_string();
    for (const build::Variant& v : build->variants) {
      const build::StageFile* cubin = v.binary("cubin");
      if (!cubin || !v.resources.count("n_regs")) continue;
      auto r = read_kernel_resources(slurp(cubin->path), v.kernel, cubin->path);
      ASSERT_TRUE(r.has_value()) << r.status().to_string();
      EXPECT_EQ(r->n_regs, v.resources.at("n_regs")) << cubin->path;
      EXPECT_EQ(r->n_spills, v.resources.at("n_spills")) << cubin->path;
      agree += r->n_regs == v.resources.at("n_regs") && r->n_spills == v.resources.at("n_spills");
      with_spills += v.resources.at("n_spills") > 0;
      ++checked;
    }
  }
  std::printf(
      "binary agreement: %d of %d H200 variants (%d with spills) agree on n_regs and "
      "n_spills\n",
      agree, checked, with_spills);
  EXPECT_EQ(agree, checked);
  // 54 gpu_capture + 4 recompile + 32 examples, + 76 from the shared corpus
  // where the checkout has one (a clone alone has not).
  const bool shared = fs::exists(std::string(KSNAP_CORPUS_DIR) + "/base/manifest.json");
  EXPECT_GE(checked, shared ? 166 : 90);
  EXPECT_GE(with_spills, 1);
}

// cuobjdump -res-usage: " Function saxpy:\n  REG:10 STACK:0 SHARED:0 LOCAL:0 ..."
TEST(BinaryAgreement, SassFixturesMatchCuobjdumpResUsage) {
  const std::string dir = std::string(KSNAP_SOURCE_DIR) + "/tests/fixtures/sass/";
  const std::regex fn(R"( Function (\w+):\n  REG:(\d+) STACK:(\d+) SHARED:(\d+) LOCAL:(\d+))");
  int checked = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".cubin") continue;
    const std::string bytes = slurp(e.path().string());
    std::string usage = slurp(dir + e.path().stem().string() + ".res-usage.txt");
    for (std::sregex_iterator it(usage.begin(), usage.end(), fn), end; it != end; ++it) {
      auto r = read_kernel_resources(bytes, (*it)[1].str(), e.path().string());
      ASSERT_TRUE(r.has_value()) << r.status().to_string();
      EXPECT_EQ(r->figures.at("regs"), std::stoll((*it)[2])) << e.path() << " " << (*it)[1];
      EXPECT_EQ(r->figures.at("stack_min_bytes"), std::stoll((*it)[3])) << e.path();
      EXPECT_EQ(r->figures.at("shared_static_bytes"), std::stoll((*it)[4])) << e.path();
      EXPECT_EQ(r->figures.at("local_bytes"), std::stoll((*it)[5])) << e.path();
      ++checked;
    }
  }
  std::printf("res-usage agreement: %d kernels\n", checked);
  EXPECT_EQ(checked, 11);
}

/// `    .vgpr_count:     212` in the .amdgcn's metadata block (or `  - .agpr_count: 64`,
/// the first key of a list item).
int64_t yaml_figure(const std::string& text, const std::string& key) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex("\\n[ \\t-]+\\" + key + ":\\s+(\\d+)"))) return -1;
  return std::stoll(m[1]);
}

TEST(BinaryAgreement, Gfx942HsacoMatchesTheCompilersMetadataAndOccupancy) {
  const std::string src = KSNAP_SOURCE_DIR;
  int checked = 0;
  for (const char* b : {"hipA", "hipB"}) {
    for (const auto& e :
         fs::recursive_directory_iterator(src + "/tests/fixtures/recompile/" + b + "/cache")) {
      if (e.path().extension() != ".hsaco") continue;
      const std::string kernel = e.path().stem().string();
      auto r = read_kernel_resources(slurp(e.path().string()), kernel, e.path().string());
      ASSERT_TRUE(r.has_value()) << r.status().to_string();
      EXPECT_EQ(r->target, "gfx942");
      fs::path asm_path = e.path();
      const std::string text = slurp(asm_path.replace_extension(".amdgcn").string());
      static const std::pair<const char*, const char*> kPairs[] = {
          {".vgpr_count", "vgprs"},
          {".sgpr_count", "sgprs"},
          {".agpr_count", "agprs"},
          {".vgpr_spill_count", "vgpr_spills"},
          {".sgpr_spill_count", "sgpr_spills"},
          {".group_segment_fixed_size", "lds_bytes"},
          {".private_segment_fixed_size", "scratch_bytes"},
          {".wavefront_size", "wavefront_size"},
          {".max_flat_workgroup_size", "max_flat_workgroup_size"}};
      for (const auto& [key, figure] : kPairs)
        EXPECT_EQ(r->figures.at(figure), yaml_figure(text, key)) << e.path() << " " << key;
      // The compiler's occupancy counts the static LDS and the flat
      // workgroup size; so does this call.
      std::smatch m;
      ASSERT_TRUE(std::regex_search(text, m, std::regex("; Occupancy: (\\d+)")));
      auto o = occupancy(*r, *target_limits("gfx942"), r->figures.at("max_flat_workgroup_size"), 0);
      ASSERT_TRUE(o.has_value()) << o.status().to_string();
      EXPECT_EQ(o->value, std::stoll(m[1])) << e.path();
      ++checked;
    }
  }
  std::printf("hsaco agreement: %d gfx942 kernels\n", checked);
  EXPECT_EQ(checked, 8);
}

}  // namespace
}  // namespace ksnap::binary

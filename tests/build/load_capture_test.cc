#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "ksnap/build/build.h"
#include "support/corpus_dir.h"

namespace fs = std::filesystem;

namespace ksnap::build {
namespace {

/// A build of the real corpus: the shared one, else the bundled example.
std::string corpus(const std::string& b) { return testing::corpus_dir() + "/" + b; }

TEST(LoadCaptureTest, LoadsSharedCorpusBase) {
  auto b = load_build(corpus("base"));
  ASSERT_TRUE(b) << b.status().to_string();
  EXPECT_EQ(b->name, "base");
  EXPECT_EQ(b->kind, BuildKind::kCapture);
  EXPECT_EQ(b->format_version, 0);
  ASSERT_EQ(b->variants.size(), testing::truth_variants().size());
  const Variant& v = b->variants[0];
  EXPECT_EQ(v.id(), "add_kernel|{\"BLOCK_SIZE\": 256}|{\"num_warps\": 4}");
  EXPECT_EQ(v.signature.substr(0, 16), "[('*fp32', 'D'),");
  std::vector<std::string> stages;
  for (const auto& s : v.stages) stages.push_back(s.stage);
  EXPECT_EQ(stages, (std::vector<std::string>{"source", "ttir", "ttgir", "llir", "ptx"}));
  ASSERT_EQ(v.binaries.size(), 1u);
  EXPECT_EQ(v.binaries[0].stage, "cubin");
  EXPECT_EQ(v.resources.at("n_regs"), 16);
  EXPECT_EQ(v.compile_options.at("enable_fp_fusion"), "true");
  EXPECT_EQ(v.compile_options.at("num_stages"), "3");
  EXPECT_EQ(v.compile_options.count("hash"), 0u);
}

TEST(LoadCaptureTest, IdsMatchTruthKeys) {
  auto b = load_build(corpus("fusion_off"));
  ASSERT_TRUE(b) << b.status().to_string();
  // Truth keys name BASE's options; fusion_off's ids add the one it changed.
  const std::string kFusionOff = "\"enable_fp_fusion\": false, ";
  std::set<std::string> ids;
  for (const Variant& v : b->variants) {
    std::string id = v.id();
    size_t at = id.find(kFusionOff);
    ASSERT_NE(at, std::string::npos) << id;
    ids.insert(id.erase(at, kFusionOff.size()));
  }
  EXPECT_EQ(ids, testing::truth_variants("base..fusion_off"));
  // One id to the letter (a matmul config both the shared corpus and the
  // bundled example hold).
  std::vector<std::string> raw;
  for (const Variant& v : b->variants) raw.push_back(v.id());
  EXPECT_NE(std::find(raw.begin(), raw.end(),
                      "matmul_kernel|{\"BLOCK_SIZE_K\": 32, \"BLOCK_SIZE_M\": 64, "
                      "\"BLOCK_SIZE_N\": 32, \"GROUP_SIZE_M\": 8}|{\"enable_fp_fusion\": false, "
                      "\"num_stages\": 5, \"num_warps\": 2}"),
            raw.end());
}

TEST(LoadCaptureTest, BareTritonCache) {
  auto b = load_build(corpus("base") + "/cache");
  ASSERT_TRUE(b) << b.status().to_string();
  EXPECT_EQ(b->kind, BuildKind::kTritonCache);
  EXPECT_EQ(b->variants.size(), testing::truth_variants().size());
  for (const auto& v : b->variants) {
    EXPECT_FALSE(v.constexprs_known);
    EXPECT_TRUE(v.options.count("num_warps")) << v.kernel;
  }
  EXPECT_EQ(b->triton_version, "3.6.0");
}

class BadManifestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ksnap_build_test_XXXXXX";
    dir_ = mkdtemp(tmpl);
    fs::create_directories(dir_ + "/cache/ABC");
    std::ofstream(dir_ + "/cache/ABC/k.ttir") << "module {\n}\n";
  }
  void write(const std::string& text) { std::ofstream(dir_ + "/manifest.json") << text; }
  std::string dir_;
};

TEST_F(BadManifestTest, ErrorsNameFileAndLine) {
  struct Case {
    const char* text;
    ErrorCode code;
    uint32_t line;
    const char* fragment;
  } cases[] = {
      {"{\n  \"entries\": [\n    {\"kernel\": \"k\",, }\n  ]\n}\n", ErrorCode::kParseError, 3,
       "invalid JSON"},
      {"{\n  \"entries\": [\n", ErrorCode::kParseError, 3, "invalid JSON"},
      {"[1, 2]\n", ErrorCode::kParseError, 1, "not a JSON object"},
      {"{\"entries\": 3}\n", ErrorCode::kParseError, 1, "no \"entries\""},
      {"{\n\"entries\": [\n{\"kernel\": \"k\",\n \"cache_dir\": \"MISSING\"}]}\n",
       ErrorCode::kNotFound, 4, "does not exist"},
      {"{\"format\": \"other\", \"entries\": []}\n", ErrorCode::kUnsupported, 1, "ksnap-capture"},
      {"{\"format\": \"ksnap-capture\",\n \"format_version\": 99, \"entries\": []}\n",
       ErrorCode::kUnsupported, 2, "newer"},
      {"{\"entries\": [{\"cache_dir\": \"ABC\"}]}\n", ErrorCode::kParseError, 1, "\"kernel\""},
      {"{\"entries\": [{\"kernel\": \"k\", \"cache_dir\": \"ABC\",\n \"stages\": {\"ttir\": "
       "\"cache/ABC/nope.ttir\"}}]}\n",
       ErrorCode::kNotFound, 2, "nope.ttir"},
  };
  for (const auto& c : cases) {
    write(c.text);
    auto b = load_build(dir_);
    ASSERT_FALSE(b) << c.text;
    EXPECT_EQ(b.status().code(), c.code) << c.text << " -> " << b.status().to_string();
    EXPECT_EQ(b.status().location().file, dir_ + "/manifest.json") << c.text;
    EXPECT_EQ(b.status().location().line, c.line) << c.text << " -> " << b.status().to_string();
    EXPECT_NE(b.status().to_string().find(c.fragment), std::string::npos)
        << b.status().to_string();
  }
}

TEST_F(BadManifestTest, CurrentFormatLoads) {
  write(
      "{\"format\": \"ksnap-capture\", \"format_version\": 1, \"entries\": [{\"kernel\": \"k\", "
      "\"cache_dir\": \"ABC\", \"constexprs\": {\"B\": 16, \"A\": true}, \"benchmark\": "
      "{\"script\": \"bench.py\", \"points\": [\"M=1\"]}}]}");
  auto b = load_build(dir_);
  ASSERT_TRUE(b) << b.status().to_string();
  EXPECT_EQ(b->format_version, 1);
  EXPECT_EQ(b->variants[0].id(), "k|{\"A\": true, \"B\": 16}|{}");
  EXPECT_EQ(b->variants[0].benchmark_script, "bench.py");
  EXPECT_EQ(b->variants[0].benchmark_points, std::vector<std::string>{"M=1"});
}

TEST(LoadBuildTest, MissingAndFile) {
  EXPECT_EQ(load_build("/nonexistent/x").status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(load_build("/etc/hostname").status().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace ksnap::build

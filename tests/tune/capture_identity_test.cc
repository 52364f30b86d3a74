// Tune groups a capture's kernels by identity (capture::VariantKey): two
// scripts that both define `matmul_kernel` are two autotune groups, and a
// bare name that both have is an error naming them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "ksnap/support/file.h"
#include "ksnap/tune/capture.h"

namespace ksnap::tune {
namespace {

namespace fs = std::filesystem;

/// A capture with matmul_kernel from two scripts (2 variants and 1) and
/// add_kernel from a module; every variant has Triton metadata.
class TwoScripts : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = "/tmp/ksnap_tune_identity_" + std::to_string(::getpid());
    fs::remove_all(dir_);
    const char* entries[][4] = {
        // kernel, qualname, source_file, cache_dir
        {"matmul_kernel", "__main__.matmul_kernel", "/ci/a/03-matmul.py", "A1"},
        {"matmul_kernel", "__main__.matmul_kernel", "/ci/b/bench.py", "B1"},
        {"add_kernel", "suite_kernels.add_kernel", "/ci/a/suite_kernels.py", "C1"},
        {"matmul_kernel", "__main__.matmul_kernel", "/ci/a/03-matmul.py", "A2"},
    };
    std::string m = "{\"format\": \"ksnap-capture\", \"format_version\": 1, \"entries\": [";
    int block = 32;
    for (const auto& e : entries) {
      fs::create_directories(dir_ + "/cache/" + e[3]);
      std::ofstream(dir_ + "/cache/" + e[3] + "/" + e[0] + ".json")
          << "{\"name\": \"" << e[0] << "\", \"num_warps\": 4}";
      if (m.back() != '[') m += ",";
      m += std::string("\n{\"kernel\": \"") + e[0] + "\", \"qualname\": \"" + e[1] +
           "\", \"source_file\": \"" + e[2] + "\", \"cache_dir\": \"" + e[3] +
           "\", \"constexprs\": {\"BLOCK\": " + std::to_string(block *= 2) +
           ", \"ACC\": \"fp32\"}, \"options\": {\"num_warps\": 4}}";
    }
    ASSERT_TRUE(write_file_atomic(dir_ + "/manifest.json", m + "]}").is_ok());
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_;
};

TEST_F(TwoScripts, EachScriptIsItsOwnGroup) {
  auto kernels = list_capture_kernels(dir_);
  ASSERT_TRUE(kernels) << kernels.status().to_string();
  ASSERT_EQ(kernels->size(), 3u);
  EXPECT_EQ((*kernels)[0].selector, "matmul_kernel@03-matmul.py");
  EXPECT_EQ((*kernels)[0].source, "/ci/a/03-matmul.py");
  EXPECT_EQ((*kernels)[0].variants, 2u);
  EXPECT_EQ((*kernels)[1].selector, "matmul_kernel@bench.py");
  EXPECT_EQ((*kernels)[1].variants, 1u);
  EXPECT_EQ((*kernels)[2].selector, "add_kernel");  // one kernel of that name: the name
  EXPECT_EQ((*kernels)[2].source_kind, capture::SourceKind::kModule);
}

TEST_F(TwoScripts, Selectors) {
  struct Case {
    const char* selector;
    ErrorCode code;       // kOk: loads
    size_t variants;      // when it loads
    const char* file;     // source_file of every variant loaded
    const char* says;     // in the error message
  } cases[] = {
      {"matmul_kernel@03-matmul.py", ErrorCode::kOk, 2, "/ci/a/03-matmul.py", ""},
      {"matmul_kernel@a/03-matmul.py", ErrorCode::kOk, 2, "/ci/a/03-matmul.py", ""},
      {"matmul_kernel@/ci/b/bench.py", ErrorCode::kOk, 1, "/ci/b/bench.py", ""},
      {"matmul_kernel@bench", ErrorCode::kOk, 1, "/ci/b/bench.py", ""},
      {"add_kernel", ErrorCode::kOk, 1, "/ci/a/suite_kernels.py", ""},
      {"add_kernel@suite_kernels", ErrorCode::kOk, 1, "/ci/a/suite_kernels.py", ""},
      // The bug this guards: one group of both scripts' variants.
      {"matmul_kernel", ErrorCode::kInvalidArgument, 0, "",
       "kernel 'matmul_kernel' is defined in 2 places in this capture, each its own autotune "
       "group: matmul_kernel@03-matmul.py (/ci/a/03-matmul.py, 2 variants), "
       "matmul_kernel@bench.py (/ci/b/bench.py, 1 variant); name one as NAME@SOURCE"},
      {"matmul_kernel@ci", ErrorCode::kNotFound, 0, "", "capture has no kernel"},
      {"matmul_kernel@c.py", ErrorCode::kNotFound, 0, "",
       "(it has: matmul_kernel@03-matmul.py, matmul_kernel@bench.py, add_kernel)"},
      {"nope", ErrorCode::kNotFound, 0, "", "capture has no kernel 'nope'"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.selector);
    auto vs = load_capture_kernel(dir_, c.selector, /*read_cubins=*/false);
    if (c.code != ErrorCode::kOk) {
      ASSERT_FALSE(vs);
      EXPECT_EQ(vs.status().code(), c.code) << vs.status().to_string();
      EXPECT_NE(vs.status().message().find(c.says), std::string::npos) << vs.status().to_string();
      EXPECT_EQ(vs.status().location().file, dir_ + "/manifest.json");
      continue;
    }
    ASSERT_TRUE(vs) << vs.status().to_string();
    ASSERT_EQ(vs->size(), c.variants);
    for (const CapturedVariant& v : *vs) EXPECT_EQ(v.identity.source_file, c.file);
  }
}

TEST_F(TwoScripts, VariantsKeepEveryConstexpr) {
  auto vs = load_capture_kernel(dir_, "matmul_kernel@03-matmul.py", /*read_cubins=*/false);
  ASSERT_TRUE(vs) << vs.status().to_string();
  const CapturedVariant& v = (*vs)[0];
  // The integer map (for grid functions) has the integers; the identity has all.
  EXPECT_EQ(v.constexprs.count("ACC"), 0u);
  EXPECT_EQ(v.constexprs.at("BLOCK"), 64);
  EXPECT_EQ(v.identity.constexprs.at("ACC"), "\"fp32\"");
  EXPECT_EQ(v.label, "ACC=fp32,BLOCK=64,num_warps=4");
  EXPECT_NE(v.identity.id(), (*vs)[1].identity.id());
}

TEST(TuneCaptureRealWorld, TwoTutorialsDefineAddKernel) {
  // tests/fixtures/realworld/base: tutorials 01 and 11 both define add_kernel.
  const std::string dir = std::string(KSNAP_SOURCE_DIR) + "/tests/fixtures/realworld/base";
  if (!is_directory(dir)) GTEST_SKIP() << "no fixture at " << dir;
  auto both = load_capture_kernel(dir, "add_kernel", /*read_cubins=*/false);
  ASSERT_FALSE(both);
  EXPECT_EQ(both.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(both.status().message().find("add_kernel@tutorial_01_vector_add"), std::string::npos);
  EXPECT_NE(both.status().message().find("add_kernel@tutorial_11_programmatic_dependent_launch"),
            std::string::npos);
  for (const char* tail : {"tutorial_01_vector_add", "tutorial_11_programmatic_dependent_launch"}) {
    auto one = load_capture_kernel(dir, std::string("add_kernel@") + tail, /*read_cubins=*/false);
    ASSERT_TRUE(one) << one.status().to_string();
    for (const CapturedVariant& v : *one)
      EXPECT_EQ(v.identity.qualname, std::string(tail) + ".add_kernel");
  }
}

TEST(TuneCaptureVersions, TheFormatIsChecked) {
  const std::string dir = "/tmp/ksnap_tune_versions_" + std::to_string(::getpid());
  fs::create_directories(dir);
  struct Case {
    const char* manifest;
    ErrorCode code;
    uint32_t line;
  } cases[] = {
      {"{\"format\": \"ksnap-capture\",\n\"format_version\": 2, \"entries\": []}",
       ErrorCode::kUnsupported, 2},
      {"{\"format\": \"ksnap-capture\", \"entries\": []}", ErrorCode::kParseError, 1},
      {"{\"format\": \"other\", \"format_version\": 1, \"entries\": []}", ErrorCode::kUnsupported, 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.manifest);
    ASSERT_TRUE(write_file_atomic(dir + "/manifest.json", c.manifest).is_ok());
    auto vs = load_capture_kernel(dir, "k", false);
    ASSERT_FALSE(vs);
    EXPECT_EQ(vs.status().code(), c.code) << vs.status().to_string();
    EXPECT_EQ(vs.status().location().line, c.line) << vs.status().to_string();
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ksnap::tune

#include "ksnap/tune/capture.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ksnap/support/file.h"

namespace ksnap::tune {
namespace {

std::string corpus_base() { return std::string(KSNAP_CORPUS_DIR) + "/base"; }

TEST(Capture, LoadsTheEightMatmulConfigsOfTheCorpus) {
  if (!is_directory(corpus_base())) GTEST_SKIP() << "no corpus at " << corpus_base();
  auto vs = load_capture_kernel(corpus_base(), "matmul_kernel");
  ASSERT_TRUE(vs) << vs.status().to_string();
  ASSERT_EQ(vs->size(), 8u);
  const CapturedVariant& v0 = (*vs)[0];
  EXPECT_EQ(v0.constexprs.at("BLOCK_SIZE_M"), 128);
  EXPECT_EQ(v0.constexprs.at("BLOCK_SIZE_N"), 256);
  EXPECT_EQ(v0.options.at("num_warps"), 8);
  EXPECT_EQ(v0.meta.name, "matmul_kernel");
  EXPECT_EQ(v0.meta.num_warps, 8);
  EXPECT_EQ(v0.meta.shared, 147456);
  EXPECT_EQ(v0.meta.global_scratch_size, 0);
  EXPECT_EQ(v0.meta.arch, "sm90");
  EXPECT_GT(v0.cubin.size(), 1000u);
  EXPECT_EQ(v0.cubin.substr(1, 3), "ELF");
  EXPECT_NE(v0.label.find("BLOCK_SIZE_M=128"), std::string::npos);
  EXPECT_EQ((*vs)[6].meta.num_warps, 2);
}

TEST(Capture, UnknownKernelListsTheKernelsThere) {
  if (!is_directory(corpus_base())) GTEST_SKIP();
  auto vs = load_capture_kernel(corpus_base(), "nope", false);
  ASSERT_FALSE(vs);
  EXPECT_EQ(vs.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(vs.status().message().find("matmul_kernel"), std::string::npos);
}

TEST(Capture, TritonMetadataFields) {
  const char* text = R"({"name": "k", "num_warps": 4, "num_ctas": 2, "shared": 1024,
    "global_scratch_size": 128, "global_scratch_align": 128, "profile_scratch_size": 0,
    "cluster_dims": [2, 1, 1], "launch_pdl": true, "warp_size": 32})";
  auto m = parse_triton_meta(text, "k.json");
  ASSERT_TRUE(m) << m.status().to_string();
  EXPECT_EQ(m->num_ctas, 2);
  EXPECT_EQ(m->global_scratch_size, 128);
  EXPECT_EQ(m->cluster_dims[0], 2);
  EXPECT_TRUE(m->launch_pdl);
  auto bad = parse_triton_meta("{\"num_warps\": 4}", "k.json");
  EXPECT_EQ(bad.status().code(), ErrorCode::kParseError);
  auto worse = parse_triton_meta("{\"name\": \"k\",\n \"num_warps\": -3}", "k.json");
  ASSERT_FALSE(worse);
  EXPECT_EQ(worse.status().location().line, 2u);
}

TEST(Capture, BrokenCapturesNameTheFile) {
  std::string dir = "/tmp/ksnap_capture_test_" + std::to_string(::getpid());
  ::mkdir(dir.c_str(), 0755);
  ::mkdir((dir + "/cache").c_str(), 0755);
  ::mkdir((dir + "/cache/x").c_str(), 0755);
  ASSERT_TRUE(write_file_atomic(dir + "/manifest.json",
                                "{\"format\": \"ksnap-capture\", \"format_version\": 1,\n"
                                "\"entries\": [{\"kernel\": \"k\", \"cache_dir\": \"x\"}]}")
                  .is_ok());
  auto no_meta = load_capture_kernel(dir, "k");
  ASSERT_FALSE(no_meta);
  EXPECT_EQ(no_meta.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(no_meta.status().location().file.find("k.json"), std::string::npos);
  ASSERT_TRUE(write_file_atomic(dir + "/cache/x/k.json", "{\"name\": \"k\"}").is_ok());
  auto no_cubin = load_capture_kernel(dir, "k");
  ASSERT_FALSE(no_cubin);
  EXPECT_NE(no_cubin.status().location().file.find("k.cubin"), std::string::npos);
  EXPECT_TRUE(load_capture_kernel(dir, "k", /*read_cubins=*/false));
  ASSERT_TRUE(write_file_atomic(dir + "/manifest.json", "{\"entries\": [\n{\"kernel\": 3}]}").is_ok());
  auto bad = load_capture_kernel(dir, "k");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.status().code(), ErrorCode::kParseError);
  EXPECT_EQ(bad.status().location().line, 2u);  // the "kernel" value
  EXPECT_NE(bad.status().message().find("expected string for \"kernel\""), std::string::npos);
  ASSERT_TRUE(write_file_atomic(dir + "/manifest.json", "{\"entries\": [").is_ok());
  EXPECT_EQ(load_capture_kernel(dir, "k").status().code(), ErrorCode::kParseError);
  std::system(("rm -rf " + dir).c_str());
}

}  // namespace
}  // namespace ksnap::tune

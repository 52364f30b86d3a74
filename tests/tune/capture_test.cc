#include "ksnap/tune/capture.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ksnap/support/file.h"
#include "support/corpus_dir.h"

namespace ksnap::tune {
namespace {

/// The real corpus's base build: the shared corpus, else the bundled example.
std::string corpus_base() { return testing::corpus_dir() + "/base"; }

/// Triton's metadata of matmul configs, from their <kernel>.json: the shared
/// corpus's first, and the two that the bundled example holds too.
struct MatmulMeta {
  int64_t block_m, block_n, block_k;
  int num_warps;
  int64_t shared;
};
const MatmulMeta kMatmulMeta[] = {
    {128, 256, 64, 8, 147456},
    {64, 32, 32, 2, 24576},
    {32, 64, 32, 2, 24576},
};

TEST(Capture, LoadsEveryMatmulConfigOfTheCorpus) {
  auto vs = load_capture_kernel(corpus_base(), "matmul_kernel");
  ASSERT_TRUE(vs) << vs.status().to_string();
  // Every matmul entry of the manifest, in its order.
  std::ifstream in(corpus_base() + "/manifest.json");
  nlohmann::json manifest = nlohmann::json::parse(in);
  std::vector<nlohmann::json> want;
  for (const auto& e : manifest["entries"])
    if (e["kernel"] == "matmul_kernel") want.push_back(e);
  ASSERT_EQ(vs->size(), want.size());
  size_t known = 0;
  for (size_t i = 0; i < vs->size(); ++i) {
    const CapturedVariant& v = (*vs)[i];
    SCOPED_TRACE(v.label);
    for (const auto& [name, value] : want[i]["constexprs"].items())
      EXPECT_EQ(v.constexprs.at(name), value.get<int64_t>()) << name;
    EXPECT_EQ(v.options.at("num_warps"), want[i]["options"]["num_warps"].get<int64_t>());
    EXPECT_EQ(v.meta.name, "matmul_kernel");
    EXPECT_EQ(v.meta.num_warps, v.options.at("num_warps"));
    EXPECT_EQ(v.meta.global_scratch_size, 0);
    EXPECT_EQ(v.meta.arch, "sm90");
    EXPECT_GT(v.cubin.size(), 1000u);
    EXPECT_EQ(v.cubin.substr(1, 3), "ELF");
    EXPECT_NE(v.label.find("BLOCK_SIZE_M=" + std::to_string(v.constexprs.at("BLOCK_SIZE_M"))),
              std::string::npos);
    for (const MatmulMeta& m : kMatmulMeta) {
      if (v.constexprs.at("BLOCK_SIZE_M") != m.block_m ||
          v.constexprs.at("BLOCK_SIZE_N") != m.block_n ||
          v.constexprs.at("BLOCK_SIZE_K") != m.block_k)
        continue;
      ++known;
      EXPECT_EQ(v.meta.num_warps, m.num_warps);
      EXPECT_EQ(v.meta.shared, m.shared);
    }
  }
  // Both corpora hold the example's two configs; the shared one the first.
  EXPECT_EQ(known, testing::shared_corpus_present() ? 3u : 2u);
}

TEST(Capture, UnknownKernelListsTheKernelsThere) {
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

// Binary artifacts (cubin, hsaco, zebin, binary SPIR-V) are compared by hash
// and size, never parsed as text, on real bytes: the cubins of
// tests/fixtures/recompile (Triton 3.6 on the H200: a launched capture
// `suite` and its recompile `s16`) and tests/fixtures/sass (nvcc 13.0).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "ksnap/build/build.h"
#include "ksnap/diff/engine.h"

namespace fs = std::filesystem;

namespace ksnap::diff {
namespace {

std::string fixture(const std::string& p) {
  return std::string(KSNAP_SOURCE_DIR) + "/tests/fixtures/" + p;
}

/// A writable copy of a fixture capture.
std::string copy_capture(const std::string& name, const std::string& tag) {
  fs::path dst = fs::temp_directory_path() / ("ksnap_bin_" + tag + "_" + std::to_string(getpid()));
  fs::remove_all(dst);
  fs::copy(fixture("recompile/" + name), dst, fs::copy_options::recursive);
  return dst.string();
}

const StageDiff* binary(const VariantDiff& v, const std::string& stage) {
  for (const auto& b : v.binaries)
    if (b.stage == stage) return &b;
  return nullptr;
}

TEST(BinaryStageTest, RecompiledCaptureHasTheSameCubinsAndSass) {
  auto r = diff_paths(fixture("recompile/suite"), fixture("recompile/s16"));
  ASSERT_TRUE(r) << r.status().to_string();
  ASSERT_EQ(r->variants.size(), 4u);
  for (const VariantDiff& v : r->variants) {
    EXPECT_FALSE(v.changed()) << v.key.id();
    const StageDiff* cubin = binary(v, "cubin");
    ASSERT_NE(cubin, nullptr) << v.key.id();
    EXPECT_TRUE(cubin->binary);
    EXPECT_EQ(cubin->status, ChangeStatus::kUnchanged) << v.key.id();
    EXPECT_GT(cubin->bytes.first, 1000);
    EXPECT_EQ(cubin->bytes.first, cubin->bytes.second);
    ASSERT_NE(v.stage("sass"), nullptr) << v.key.id();  // the text stage nvdisasm wrote
    EXPECT_EQ(v.stage("sass")->status, ChangeStatus::kUnchanged);
  }
  // Binaries are not IR stages: the summary lists text stages only.
  for (const auto& s : r->summary) EXPECT_NE(s.stage, "cubin");
}

TEST(BinaryStageTest, DifferentCubinBytesAreReportedByHashAndSize) {
  std::string head = copy_capture("suite", "cubin");
  auto b = build::load_build(head);
  ASSERT_TRUE(b);
  const build::StageFile* f = b->variants[0].binary("cubin");
  ASSERT_NE(f, nullptr);
  fs::copy_file(fixture("sass/cuda_sm90.cubin"), f->path, fs::copy_options::overwrite_existing);
  auto r = diff_paths(fixture("recompile/suite"), head);
  ASSERT_TRUE(r) << r.status().to_string();
  size_t changed = 0;
  for (const VariantDiff& v : r->variants) {
    const StageDiff* c = binary(v, "cubin");
    ASSERT_NE(c, nullptr);
    if (c->status == ChangeStatus::kChanged) {
      ++changed;
      EXPECT_EQ(c->bytes.second, static_cast<int64_t>(fs::file_size(fixture("sass/cuda_sm90.cubin"))));
      EXPECT_NE(c->bytes.first, c->bytes.second);
      EXPECT_NE(c->base_hash, c->head_hash);
      EXPECT_TRUE(c->hunks.empty());
    }
    EXPECT_FALSE(v.changed()) << "a binary alone is not an IR change";
  }
  EXPECT_EQ(changed, 1u);
  EXPECT_FALSE(r->any_change());
  fs::remove_all(head);
}

TEST(BinaryStageTest, ABinarySpvStageIsNotParsedAsText) {
  // Intel's XPU backend writes `<kernel>.spv` as binary SPIR-V; listed as a
  // stage, it used to stop the whole diff with exit 2.
  std::string base = copy_capture("suite", "spv_a"), head = copy_capture("suite", "spv_b");
  for (const std::string& root : {base, head}) {
    std::ifstream in(root + "/manifest.json");
    std::string m((std::istreambuf_iterator<char>(in)), {});
    auto b = build::load_build(root);
    ASSERT_TRUE(b);
    const build::Variant& v = b->variants[0];
    std::string rel = "cache/" + v.cache_dir + "/" + v.kernel + ".spv";
    std::ofstream spv(root + "/" + rel, std::ios::binary);
    const unsigned char words[] = {0x03, 0x02, 0x23, 0x07, 0x00, 0x00, 0x01, 0x00, 0x0e, 0x00,
                                   0x06, 0x00, 0x2a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    spv.write(reinterpret_cast<const char*>(words), sizeof words);
    if (root == head) spv.put('\x01');
    spv.close();
    // List it in the entry's stages, as a capture of an XPU build would.
    std::string needle = "\"stages\": {";
    size_t at = m.find(needle);
    ASSERT_NE(at, std::string::npos);
    m.insert(at + needle.size(), "\n    \"spv\": \"" + rel + "\",");
    std::ofstream(root + "/manifest.json") << m;
  }
  auto b = build::load_build(base);
  ASSERT_TRUE(b) << b.status().to_string();
  size_t with_spv = 0;
  for (const auto& v : b->variants) {
    EXPECT_EQ(v.stage("spv"), nullptr);
    if (v.binary("spv")) ++with_spv;
  }
  EXPECT_EQ(with_spv, 1u);
  auto r = diff_paths(base, head);
  ASSERT_TRUE(r) << r.status().to_string();
  size_t changed = 0;
  for (const VariantDiff& v : r->variants)
    if (const StageDiff* s = binary(v, "spv")) {
      EXPECT_EQ(s->status, ChangeStatus::kChanged);
      EXPECT_EQ(s->bytes.first + 1, s->bytes.second);
      ++changed;
    }
  EXPECT_EQ(changed, 1u);
  fs::remove_all(base);
  fs::remove_all(head);
}

TEST(BinaryStageTest, LooksBinarySniffsMagicAndNul) {
  EXPECT_TRUE(build::looks_binary(fixture("sass/cuda_sm90.cubin")));
  EXPECT_FALSE(build::looks_binary(fixture("sass/cuda_sm90.nvdisasm.sass")));
  EXPECT_FALSE(build::looks_binary(fixture("sass/no_such_file")));
}

TEST(BinaryStageTest, CrossTargetRecompileChangesPtxAndCubin) {
  // `recompile --target cuda:80` of the sm_90 capture: sm_80 PTX and cubins.
  auto r = diff_paths(fixture("recompile/suite"), fixture("recompile/sm80"));
  ASSERT_TRUE(r) << r.status().to_string();
  for (const VariantDiff& v : r->variants) {
    ASSERT_NE(v.stage("ptx"), nullptr);
    EXPECT_EQ(v.stage("ptx")->status, ChangeStatus::kChanged) << v.key.id();
    ASSERT_NE(binary(v, "cubin"), nullptr);
    EXPECT_EQ(binary(v, "cubin")->status, ChangeStatus::kChanged) << v.key.id();
    EXPECT_EQ(v.stage("ttir")->status, ChangeStatus::kUnchanged) << v.key.id();
  }
  auto b = build::load_build(fixture("recompile/sm80"));
  ASSERT_TRUE(b);
  for (const auto& v : b->variants) {
    std::ifstream ptx(v.stage("ptx")->path);
    std::string text((std::istreambuf_iterator<char>(ptx)), {});
    EXPECT_NE(text.find(".target sm_80"), std::string::npos) << v.id();
  }
}

TEST(BinaryStageTest, HipNoisePairDiffsClean) {
  // Two `recompile --target hip:gfx942` runs of the same capture: real AMDGCN.
  auto r = diff_paths(fixture("recompile/hipA"), fixture("recompile/hipB"));
  ASSERT_TRUE(r) << r.status().to_string();
  ASSERT_EQ(r->variants.size(), 4u);
  EXPECT_FALSE(r->any_change());
  for (const VariantDiff& v : r->variants) {
    ASSERT_NE(v.stage("amdgcn"), nullptr) << v.key.id();
    ASSERT_NE(binary(v, "hsaco"), nullptr) << v.key.id();
  }
}

}  // namespace
}  // namespace ksnap::diff

#include "store/variant_codec.h"

#include <gtest/gtest.h>

namespace ksnap::store {
namespace {

build::Variant sample() {
  build::Variant v;
  v.kernel = "matmul_kernel";
  v.qualname = "kernels.matmul_kernel";
  v.key = "[('*fp16', 'D')]{'num_warps': 8}";
  v.signature = "[('*fp16', 'D')]";
  v.constexprs = {{"BLOCK_SIZE_M", "128"}, {"EVEN_K", "true"}};
  v.options = {{"num_warps", "8"}};
  v.compile_options = {{"num_stages", "3"}, {"arch", "\"sm90\""}};
  v.cache_dir = "ABC";
  v.resources = {{"n_regs", 168}, {"shared", 98304}};
  v.source_file = "bench/kernels.py";
  v.source_line = 42;
  v.benchmark_script = "bench/gemm.py";
  v.benchmark_points = {"M=512", "M=1024"};
  return v;
}

// The ttgir stage keeps the recorded bytes' hash; the ptx stage is as a
// record written before "raw" was kept (it must still read).
const std::vector<StoredStage> kStages = {
    {"ttgir", "n:mlir:00000000000000aa", "cache/ABC/k.ttgir", "0123456789abcdef0123456789abcdef"},
    {"ptx", "n:ptx:00000000000000bb", "cache/ABC/k.ptx", ""}};

TEST(VariantCodecTest, RoundTripsEveryField) {
  build::Variant v = sample();
  std::string text = encode_variant(v, kStages);
  auto back = decode_variant(text, content_id(text), "rec");
  ASSERT_TRUE(back) << back.status().to_string();
  const build::Variant& w = back->meta;
  EXPECT_EQ(w.id(), v.id());
  EXPECT_EQ(w.qualname, v.qualname);
  EXPECT_EQ(w.key, v.key);
  EXPECT_EQ(w.signature, v.signature);
  EXPECT_EQ(w.compile_options, v.compile_options);
  EXPECT_EQ(w.cache_dir, v.cache_dir);
  EXPECT_EQ(w.resources, v.resources);
  EXPECT_EQ(w.source_file, v.source_file);
  EXPECT_EQ(w.source_line, v.source_line);
  EXPECT_EQ(w.benchmark_script, v.benchmark_script);
  EXPECT_EQ(w.benchmark_points, v.benchmark_points);
  EXPECT_TRUE(w.constexprs_known);
  ASSERT_EQ(back->stages.size(), 2u);
  EXPECT_EQ(back->stages[1].stage, "ptx");
  EXPECT_EQ(back->stages[1].blob, kStages[1].blob);
  EXPECT_EQ(back->stages[1].path, kStages[1].path);
  EXPECT_EQ(back->stages[0].raw_hash, kStages[0].raw_hash);
  EXPECT_EQ(back->stages[1].raw_hash, "");
  EXPECT_EQ(text.find("\"raw\":\"\""), std::string::npos) << "no raw hash, no field";
  EXPECT_EQ(back->record_id, content_id(text));
}

TEST(VariantCodecTest, IdFollowsContent) {
  const std::string id = content_id(encode_variant(sample(), kStages));
  EXPECT_EQ(id.size(), 32u);
  EXPECT_EQ(content_id(encode_variant(sample(), kStages)), id) << "deterministic";
  build::Variant other = sample();
  other.constexprs["BLOCK_SIZE_M"] = "64";
  EXPECT_NE(content_id(encode_variant(other, kStages)), id);
  std::vector<StoredStage> st = kStages;
  st[0].blob = "n:mlir:00000000000000ab";
  EXPECT_NE(content_id(encode_variant(sample(), st)), id);
  EXPECT_NE(content_id(tree_text("b", "3.6.0", "sm90", 1, {id})),
            content_id(tree_text("b", "3.6.0", "sm90", 1, {id, id})));
}

TEST(VariantCodecTest, MalformedRecordsAreCorrupt) {
  std::string good = encode_variant(sample(), kStages);
  const std::string cases[] = {
      "",
      "[1, 2]",
      "{\"kernel\": \"k\"}",
      good.substr(0, good.size() / 2),
      std::string(good).replace(good.find("\"source_line\":42"), 16, "\"source_line\":\"x\""),
      std::string(good).replace(good.find("\"stages\":["), 10, "\"stages\":{"),
      std::string(good).replace(good.find("\"raw\":\""), 7, "\"raw\":7,\"x\":\""),
  };
  for (const std::string& c : cases) {
    auto r = decode_variant(c, "id", "variant record X");
    ASSERT_FALSE(r) << c;
    EXPECT_EQ(r.status().code(), ErrorCode::kCorrupt);
    EXPECT_NE(r.status().message().find("variant record X"), std::string::npos);
  }
}

// A record whose id matches its text (so an edit that recomputed the id)
// but holds a figure no capture reader accepts is refused, not handed to
// the report's arithmetic.
TEST(VariantCodecTest, FiguresOutOfRangeAreCorrupt) {
  for (int64_t bad : {int64_t{-5}, int64_t{1} << 62, INT64_MIN}) {
    SCOPED_TRACE(bad);
    build::Variant v = sample();
    v.resources["n_regs"] = bad;
    const std::string text = encode_variant(v, kStages);
    auto r = decode_variant(text, content_id(text), "variant record X");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.status().code(), ErrorCode::kCorrupt);
    EXPECT_NE(r.status().message().find("is out of range for \"n_regs\""), std::string::npos)
        << r.status().to_string();
  }
  build::Variant edge = sample();
  edge.resources["n_regs"] = int64_t{1} << 48;  // the largest accepted
  const std::string text = encode_variant(edge, kStages);
  EXPECT_TRUE(decode_variant(text, content_id(text), "variant record X"));
}

}  // namespace
}  // namespace ksnap::store

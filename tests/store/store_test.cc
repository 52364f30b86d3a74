#include "ksnap/store/store.h"

#include <gtest/gtest.h>

#include <fstream>
#include <memory>

#include "ksnap/build/build.h"
#include "store/test_util.h"

namespace ksnap::store {
namespace {

using testing::corpus_build;
using testing::ScratchDir;

using testing::commit;
using testing::kSha1;
using testing::kSha2;
using StoreTest = testing::StoreFixture;

TEST(StoreOpenTest, OpenWithoutCreateIsNotFound) {
  ScratchDir dir;
  auto s = Store::open(dir.file("none.db"));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(s.status().to_string().find("none.db"), std::string::npos);
}

TEST(StoreOpenTest, RefusesForeignSqliteFile) {
  ScratchDir dir;
  {
    auto s = Store::open(dir.file("x.db"), true);
    ASSERT_TRUE(s) << s.status().to_string();
  }
  // A file that is not SQLite at all.
  std::ofstream(dir.file("junk.db")) << "this is not a database, just text\n";
  auto j = Store::open(dir.file("junk.db"));
  ASSERT_FALSE(j);
  EXPECT_EQ(j.status().code(), ErrorCode::kCorrupt) << j.status().to_string();
}

TEST(StoreOpenTest, CreatesParentFolder) {
  ScratchDir dir;
  auto s = Store::open(dir.file(".ksnap/sub/history.db"), true);
  ASSERT_TRUE(s) << s.status().to_string();
  EXPECT_TRUE(is_regular_file(dir.file(".ksnap/sub/history.db")));
}

TEST_F(StoreTest, RecordThenLoadGivesBackEveryStageText) {
  auto st = store_->record(base_, commit(kSha1, {}, 1700000000));
  ASSERT_TRUE(st) << st.status().to_string();
  EXPECT_FALSE(st->already_recorded);
  EXPECT_EQ(st->variants, base_.variants.size());
  EXPECT_GT(st->new_blobs, 0u);
  EXPECT_LT(st->new_blob_bytes, st->new_raw_bytes / 3) << "zstd should shrink IR text well";

  auto back = store_->load(kSha1);
  ASSERT_TRUE(back) << back.status().to_string();
  EXPECT_EQ(back->kind, build::BuildKind::kMemory);
  EXPECT_EQ(back->name, kSha1.substr(0, 12));
  EXPECT_EQ(back->triton_version, base_.triton_version);
  ASSERT_EQ(back->variants.size(), base_.variants.size());
  for (size_t i = 0; i < base_.variants.size(); ++i) {
    const build::Variant& want = base_.variants[i];
    const build::Variant& got = back->variants[i];
    EXPECT_EQ(got.id(), want.id());
    EXPECT_EQ(got.key, want.key);
    EXPECT_EQ(got.compile_options, want.compile_options);
    EXPECT_EQ(got.resources, want.resources);
    ASSERT_EQ(got.stages.size(), want.stages.size()) << want.id();
    for (size_t k = 0; k < want.stages.size(); ++k) {
      EXPECT_EQ(got.stages[k].stage, want.stages[k].stage);
      auto wt = build::read_stage(want.stages[k]);
      auto gt = build::read_stage(got.stages[k]);
      ASSERT_TRUE(wt && gt);
      EXPECT_EQ(gt->view(), wt->view()) << got.stages[k].path;
      EXPECT_EQ(got.stages[k].path.substr(0, 13), kSha1.substr(0, 12) + ":");
    }
  }
}

TEST_F(StoreTest, ResolvePrefixAndForget) {
  const std::string a = "abcd000000000000000000000000000000000001";
  const std::string c = "abcd000000000000000000000000000000000002";
  ASSERT_TRUE(store_->record(base_, commit(a)));
  ASSERT_TRUE(store_->record(base_, commit(c, {a})));
  struct Case {
    std::string prefix;
    ErrorCode code;
    std::string sha;
  };
  const Case cases[] = {
      {"abcd", ErrorCode::kInvalidArgument, ""},  // ambiguous
      {"ABCD0000000000000000000000000000000000001", ErrorCode::kNotFound, ""},
      {"abcd000000000000000000000000000000000001", ErrorCode::kOk, a},
      {"ABCD00000000000000000000000000000000000", ErrorCode::kInvalidArgument, ""},
      {"abc", ErrorCode::kInvalidArgument, ""},   // too short
      {"main", ErrorCode::kInvalidArgument, ""},  // not hex
      {"ffff", ErrorCode::kNotFound, ""},
  };
  for (const Case& k : cases) {
    auto r = store_->resolve_prefix(k.prefix);
    if (k.code == ErrorCode::kOk) {
      ASSERT_TRUE(r) << k.prefix << ": " << r.status().to_string();
      EXPECT_EQ(*r, k.sha);
    } else {
      ASSERT_FALSE(r) << k.prefix;
      EXPECT_EQ(r.status().code(), k.code) << k.prefix << ": " << r.status().to_string();
    }
  }
  ASSERT_TRUE(store_->forget(a).is_ok());
  EXPECT_EQ(store_->forget(a).code(), ErrorCode::kNotFound);
  auto r = store_->resolve_prefix("abcd");
  ASSERT_TRUE(r) << r.status().to_string();
  EXPECT_EQ(*r, c);
  auto all = store_->commits();
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].parents, std::vector<std::string>{a});
}

TEST_F(StoreTest, LoadFiltersKernelsAndStages) {
  ASSERT_TRUE(store_->record(base_, commit(kSha1)));
  LoadOptions lo;
  lo.kernels = {"matmul_kernel"};
  lo.stages = {"ttgir", "ptx"};
  auto got = store_->load(kSha1, lo);
  ASSERT_TRUE(got) << got.status().to_string();
  size_t want = 0;
  for (const auto& v : base_.variants) want += v.kernel == "matmul_kernel";
  ASSERT_EQ(got->variants.size(), want);
  for (const auto& v : got->variants) {
    EXPECT_EQ(v.kernel, "matmul_kernel");
    ASSERT_EQ(v.stages.size(), 2u);
    EXPECT_EQ(v.stages[0].stage, "ttgir");
    EXPECT_EQ(v.stages[1].stage, "ptx");
  }
  auto missing = store_->load(kSha2);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
}

TEST(StoreOpenTest, BlobIdsFollowNormalizedText) {
  // Same IR spelled with other SSA names and locations: one id; a real change: another.
  TextBuffer a(
      "a.ttir",
      "module {\n  tt.func public @k(%arg0: i32) {\n    %c1 = arith.constant 1 : i32 "
      "loc(#loc1)\n    %x = arith.addi %arg0, %c1 : i32 loc(#loc2)\n    tt.return\n  }\n}\n");
  TextBuffer b(
      "b.ttir",
      "module {\n  tt.func public @k(%arg0: i32) {\n    %one = arith.constant 1 : i32 "
      "loc(#loc7)\n    %y = arith.addi %arg0, %one : i32 loc(#loc9)\n    tt.return\n  }\n}\n");
  TextBuffer c(
      "c.ttir",
      "module {\n  tt.func public @k(%arg0: i32) {\n    %c1 = arith.constant 2 : i32 "
      "loc(#loc1)\n    %x = arith.addi %arg0, %c1 : i32 loc(#loc2)\n    tt.return\n  }\n}\n");
  std::string w;
  std::string ia = blob_id_for("ttir", a, &w);
  EXPECT_TRUE(w.empty()) << w;
  EXPECT_EQ(ia.substr(0, 7), "n:mlir:");
  EXPECT_EQ(blob_id_for("ttir", b, &w), ia);
  EXPECT_NE(blob_id_for("ttir", c, &w), ia);
  // No lexer for the stage: raw hash, with a warning.
  std::string w2;
  std::string raw = blob_id_for("weird", a, &w2);
  EXPECT_EQ(raw.substr(0, 2), "r:");
  EXPECT_NE(w2.find("weird"), std::string::npos);
}

}  // namespace
}  // namespace ksnap::store

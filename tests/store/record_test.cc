// Recording: what a record writes and what it reuses (record.cc). Crash
// safety of record is crash_test.cc.
#include <gtest/gtest.h>

#include <memory>

#include "ksnap/build/build.h"
#include "ksnap/store/store.h"
#include "store/test_util.h"

namespace ksnap::store {
namespace {

using testing::commit;
using testing::kSha1;
using testing::kSha2;
using RecordTest = testing::StoreFixture;

TEST_F(RecordTest, RecordingTheSameCaptureTwiceCostsOnlyACommitRow) {
  ASSERT_TRUE(store_->record(base_, commit(kSha1)));
  auto st = store_->record(base_, commit(kSha2, {kSha1}));
  ASSERT_TRUE(st) << st.status().to_string();
  EXPECT_EQ(st->new_blobs, 0u);
  EXPECT_EQ(st->new_variants, 0u);
  EXPECT_FALSE(st->new_tree);
  EXPECT_EQ(st->reused_blobs, st->stages);
  auto stats = store_->stats();
  ASSERT_TRUE(stats);
  EXPECT_EQ(stats->commits, 2);
  EXPECT_EQ(stats->trees, 1);
  // Re-recording an existing commit with the same capture is a no-op.
  auto again = store_->record(base_, commit(kSha2, {kSha1}));
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->already_recorded);
  auto parents = store_->parents(kSha2);
  ASSERT_TRUE(parents);
  EXPECT_EQ(*parents, std::vector<std::string>{kSha1});
}

TEST_F(RecordTest, NoiseOnlyChangesShareBlobs) {
  build::Build n = load("noise");
  ASSERT_TRUE(store_->record(base_, commit(kSha1)));
  auto st = store_->record(n, commit(kSha2, {kSha1}));
  ASSERT_TRUE(st) << st.status().to_string();
  // Other paths, SSA names and loc tables: the normalized texts are the same.
  EXPECT_EQ(st->new_blobs, 0u) << "noise build should reuse every blob";
  EXPECT_EQ(st->warnings.size(), 0u);
}

TEST_F(RecordTest, ConflictingRecordNeedsReplace) {
  build::Build o = load("no_licm");
  ASSERT_TRUE(store_->record(base_, commit(kSha1)));
  auto bad = store_->record(o, commit(kSha1));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("--replace"), std::string::npos);
  RecordOptions r = commit(kSha1);
  r.replace = true;
  auto ok = store_->record(o, r);
  ASSERT_TRUE(ok) << ok.status().to_string();
  EXPECT_TRUE(ok->replaced);
  EXPECT_GT(ok->new_blobs, 0u);
  auto back = store_->load(kSha1);
  ASSERT_TRUE(back);
  auto want = build::read_stage(*o.variants[5].stage("ttgir"));
  auto got = build::read_stage(*back->variants[5].stage("ttgir"));
  ASSERT_TRUE(want && got);
  EXPECT_EQ(got->view(), want->view());
}

TEST_F(RecordTest, UnlexableStagesAreStoredByRawHashWithAWarning) {
  build::Build b = base_;
  const std::string text = "not IR in any dialect ksnap knows\n";
  b.variants[0].stages.push_back(
      build::StageFile{"weird", "cache/x/k.weird", std::make_shared<const std::string>(text), {}, {}});
  auto st = store_->record(b, commit(kSha1));
  ASSERT_TRUE(st) << st.status().to_string();
  ASSERT_EQ(st->warnings.size(), 1u);
  EXPECT_NE(st->warnings[0].find("no lexer for stage 'weird'"), std::string::npos);
  auto vars = store_->variants(kSha1);
  ASSERT_TRUE(vars);
  const StoredStage* w = (*vars)[0].stage("weird");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->blob.substr(0, 2), "r:");
  auto back = store_->blob_text(w->blob);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, text);
}

TEST_F(RecordTest, UnreadableStageFailsAndWritesNothing) {
  build::Build b = base_;
  b.variants[1].stages[0].text = nullptr;
  b.variants[1].stages[0].path = dir_.file("gone.ttir");
  auto st = store_->record(b, commit(kSha1));
  ASSERT_FALSE(st);
  EXPECT_NE(st.status().to_string().find("gone.ttir"), std::string::npos);
  auto stats = store_->stats();
  ASSERT_TRUE(stats);
  EXPECT_EQ(stats->commits, 0);
  EXPECT_EQ(stats->blobs, 0) << "nothing is written before every file was read";
  EXPECT_FALSE(store_->record(base_, RecordOptions{}));  // no sha
}

TEST_F(RecordTest, DuplicateParentsAreKeptOnce) {
  auto st = store_->record(base_, commit(kSha2, {kSha1, kSha1, ""}));
  ASSERT_TRUE(st);
  auto p = store_->parents(kSha2);
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, std::vector<std::string>{kSha1});
}

}  // namespace
}  // namespace ksnap::store

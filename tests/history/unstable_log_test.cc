// The store's memory of compiler nondeterminism (unstable.cc, schema v2).
#include <gtest/gtest.h>

#include "diff/unstable_fixture.h"
#include "ksnap/build/unstable.h"
#include "ksnap/diff/determinism.h"
#include "ksnap/diff/engine.h"
#include "ksnap/history/log.h"
#include "ksnap/store/maintenance.h"
#include "ksnap/store/store.h"
#include "store/sqlite_db.h"
#include "store/test_util.h"

namespace ksnap::store {
namespace {

using namespace ::ksnap::history;

using testing::commit;
using testing::kSha1;
using testing::kSha2;

/// base; `again` = base compiled "again" with attn_fwd nondeterministic;
/// `again` carries the unstable.json check_determinism(base, again) wrote.
class UnstableStoreTest : public testing::StoreFixture {
 protected:
  void SetUp() override {
    StoreFixture::SetUp();
    if (IsSkipped()) return;
    again_dir_ = dir_.file("again");
    ASSERT_TRUE(ksnap::testing::copy_with_unstable_attn(testing::corpus_build("base"), again_dir_));
    auto again = build::load_build(again_dir_);
    ASSERT_TRUE(again);
    auto u = diff::check_determinism(base_, *again);
    ASSERT_TRUE(u);
    ASSERT_EQ(u->stage_count(), 2u);
    ASSERT_TRUE(write_file_atomic(again_dir_ + "/unstable.json", build::unstable_json(*u)).is_ok());
    auto marked = build::load_build(again_dir_);
    ASSERT_TRUE(marked);
    again_ = std::move(*marked);
  }
  std::string again_dir_;
  build::Build again_;
};

TEST_F(UnstableStoreTest, RecordRemembersAndLoadMarksEveryCommit) {
  // c1 = base (knows nothing), c2 = again (its capture reports attn_fwd).
  auto s1 = store_->record(base_, commit(kSha1));
  ASSERT_TRUE(s1);
  EXPECT_EQ(s1->unstable, 0u);
  auto s2 = store_->record(again_, commit(kSha2, {kSha1}));
  ASSERT_TRUE(s2) << s2.status().to_string();
  EXPECT_EQ(s2->unstable, 2u);
  EXPECT_EQ(s2->new_unstable, 2u);
  auto facts = store_->unstable();
  ASSERT_TRUE(facts) << facts.status().to_string();
  ASSERT_EQ(facts->size(), 2u);
  for (const auto& f : *facts) {
    EXPECT_EQ(f.first_commit, kSha2);
    EXPECT_EQ(f.variant.variant.kernel, "attn_fwd");
    ASSERT_EQ(f.variant.stages.size(), 1u);
  }
  // Both commits load with attn_fwd's ttgir and llir known unstable, so the
  // diff of the two recorded commits has no real change.
  for (const std::string& sha : {kSha1, kSha2}) {
    auto b = store_->load(sha);
    ASSERT_TRUE(b) << b.status().to_string();
    for (const auto& v : b->variants)
      EXPECT_EQ(v.unstable_stages, v.kernel == "attn_fwd"
                                       ? std::vector<std::string>({"llir", "ttgir"})
                                       : std::vector<std::string>())
          << sha << " " << v.id();
  }
  auto b1 = store_->load(kSha1), b2 = store_->load(kSha2);
  ASSERT_TRUE(b1 && b2);
  auto r = diff::diff_builds(*b1, *b2);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->any_change());
  EXPECT_FALSE(r->any_real_change());
  EXPECT_EQ(r->unstable_stage_count(), 2u);
}

// `ksnap log` counts a stage the store knows to be unstable apart: the
// commit whose only difference is attn_fwd's nondeterminism reads "unstable
// only", with no line counts, never as a change of attn_fwd.
TEST_F(UnstableStoreTest, LogTellsUnstableStagesApart) {
  ASSERT_TRUE(store_->record(base_, commit(kSha1)));
  ASSERT_TRUE(store_->record(again_, commit(kSha2, {kSha1})));
  for (bool summaries : {true, false}) {
    LogQuery q;
    q.repo = "";
    q.summaries = summaries;
    auto log = kernel_log(*store_, q);
    ASSERT_TRUE(log) << log.status().to_string();
    ASSERT_EQ(log->size(), 1u);
    const LogEntry& e = (*log)[0];
    ASSERT_EQ(e.kernels.size(), 1u);
    const KernelChange& k = e.kernels[0];
    EXPECT_EQ(k.kernel, "attn_fwd");
    EXPECT_TRUE(k.changed.empty());
    EXPECT_EQ(k.unstable.size(), 1u);
    ASSERT_EQ(k.stages.size(), 2u);
    for (const StageChange& st : k.stages) {
      EXPECT_EQ(st.variants, 0u) << st.stage;
      EXPECT_EQ(st.unstable, 1u) << st.stage;
      EXPECT_EQ(st.lines_added + st.lines_removed, 0u) << st.stage;
    }
    std::string line = format_log_line(e, k);
    EXPECT_NE(line.find("attn_fwd 1 of "), std::string::npos) << line;
    EXPECT_NE(line.find("variants, unstable only: ttgir unstable x1, llir unstable x1"),
              std::string::npos)
        << line;
  }
}

TEST_F(UnstableStoreTest, ReRecordingWithAReportAddsOnlyTheFacts) {
  // The capture first recorded without its unstable.json, then with it: the
  // tree is the same ("already recorded"), the facts are new.
  build::Build plain = again_;
  for (auto& v : plain.variants) v.unstable_stages.clear();
  ASSERT_TRUE(store_->record(plain, commit(kSha1)));
  auto st = store_->record(again_, commit(kSha1));
  ASSERT_TRUE(st) << st.status().to_string();
  EXPECT_TRUE(st->already_recorded);
  EXPECT_EQ(st->new_unstable, 2u);
  auto again = store_->record(again_, commit(kSha1));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->new_unstable, 0u);
  auto facts = store_->unstable();
  ASSERT_TRUE(facts);
  EXPECT_EQ(facts->size(), 2u);
}

TEST_F(UnstableStoreTest, VersionOneStoreIsUpgradedInPlace) {
  ASSERT_TRUE(store_->record(base_, commit(kSha1)));
  const std::string path = store_->path();
  store_.reset();
  {
    // What a version-1 ksnap wrote: the same tables but `unstable`.
    auto db = Db::open(path, false);
    ASSERT_TRUE(db);
    ASSERT_TRUE(db->exec("DROP TABLE unstable").is_ok());
    ASSERT_TRUE(db->exec("UPDATE meta SET value='1' WHERE key='schema_version'").is_ok());
  }
  auto s = Store::open(path);
  ASSERT_TRUE(s) << s.status().to_string();
  {
    auto db = Db::open(path, false);
    ASSERT_TRUE(db);
    auto v = db->query_int("SELECT CAST(value AS INTEGER) FROM meta WHERE key='schema_version'");
    ASSERT_TRUE(v);
    EXPECT_EQ(*v, kSchemaVersion);
  }
  auto b = s->load(kSha1);
  ASSERT_TRUE(b) << b.status().to_string();
  EXPECT_EQ(b->variants.size(), base_.variants.size());
  auto st = s->record(again_, commit(kSha2, {kSha1}));
  ASSERT_TRUE(st) << st.status().to_string();
  EXPECT_EQ(st->new_unstable, 2u);
}

TEST_F(UnstableStoreTest, CorruptRowIsNamed) {
  ASSERT_TRUE(store_->record(again_, commit(kSha1)));
  {
    auto db = Db::open(store_->path(), false);
    ASSERT_TRUE(db);
    ASSERT_TRUE(db->exec("UPDATE unstable SET report='{\"format\": 3}' WHERE rowid = "
                         "(SELECT min(rowid) FROM unstable)")
                    .is_ok());
  }
  auto facts = store_->unstable();
  ASSERT_FALSE(facts);
  EXPECT_EQ(facts.status().code(), ErrorCode::kCorrupt);
  EXPECT_NE(facts.status().message().find("unstable row"), std::string::npos);
  auto b = store_->load(kSha1);
  ASSERT_FALSE(b);
  EXPECT_EQ(b.status().code(), ErrorCode::kCorrupt);
  auto v = verify(*store_);
  ASSERT_TRUE(v);
  ASSERT_EQ(v->problems.size(), 1u);
  EXPECT_NE(v->problems[0].find("unstable row"), std::string::npos) << v->problems[0];
}

}  // namespace
}  // namespace ksnap::store

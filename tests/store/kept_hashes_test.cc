// Kept normalized hashes (norm_hashes, schema version 3): a record keeps the
// normalized hash of every blob's text under norm::kHashVersion, a load hands
// it to the diff (StageFile::normalized_hash), and nothing else may stand in
// for it: another version's hash is not used, verify catches a wrong one,
// gc drops those of deleted blobs.
#include <gtest/gtest.h>

#include <string>

#include "ksnap/build/build.h"
#include "ksnap/ir/lexer.h"
#include "ksnap/normalize/normalize.h"
#include "ksnap/store/maintenance.h"
#include "ksnap/store/store.h"
#include "ksnap/support/hash.h"
#include "store/hostile_util.h"
#include "store/test_util.h"

namespace ksnap::store {
namespace {

using testing::commit;
using testing::kSha1;
using testing::kSha2;
using KeptHashes = testing::StoreFixture;

/// Counts the stages of `b` with a kept hash, and checks each against the
/// hash of the stage's own text.
size_t check_kept(const build::Build& b) {
  size_t kept = 0;
  for (const build::Variant& v : b.variants)
    for (const build::StageFile& f : v.stages) {
      ir::Dialect d;
      if (!ir::dialect_for_stage(f.stage, &d)) {
        EXPECT_FALSE(f.normalized_hash) << f.path << ": no lexer, no kept hash";
        continue;
      }
      if (!f.normalized_hash) continue;
      ++kept;
      auto text = build::read_stage(f);
      EXPECT_TRUE(text);
      if (!text) continue;
      auto h = norm::normalized_hash(*text, d);
      EXPECT_TRUE(h) << f.path;
      if (h) {
        EXPECT_EQ(hex64(*f.normalized_hash), hex64(*h)) << f.path;
      }
    }
  return kept;
}

size_t lexed_stages(const build::Build& b) {
  size_t n = 0;
  for (const build::Variant& v : b.variants)
    for (const build::StageFile& f : v.stages) {
      ir::Dialect d;
      n += ir::dialect_for_stage(f.stage, &d);
    }
  return n;
}

TEST_F(KeptHashes, ARecordKeepsTheHashOfEveryTextItNormalizes) {
  ASSERT_TRUE(store_->record(base_, commit(kSha1)));
  auto back = store_->load(kSha1);
  ASSERT_TRUE(back) << back.status().to_string();
  size_t lexed = lexed_stages(*back);
  ASSERT_GE(lexed, 40u);
  EXPECT_EQ(check_kept(*back), lexed);
  // A build read from its folder knows no hash: the diff normalizes it.
  for (const build::Variant& v : base_.variants)
    for (const build::StageFile& f : v.stages) EXPECT_FALSE(f.normalized_hash) << f.path;
}

TEST_F(KeptHashes, ARecordKeepsTheHashOfTheBytesEveryStageFileHad) {
  // noise first: its texts become the blobs; base's stages then load with
  // noise's text (the same normalized form) but base's own raw hash.
  build::Build noise = load("noise");
  ASSERT_TRUE(store_->record(noise, commit(kSha1)));
  ASSERT_TRUE(store_->record(base_, commit(kSha2, {kSha1})));
  auto back = store_->load(kSha2);
  ASSERT_TRUE(back) << back.status().to_string();
  ASSERT_EQ(back->variants.size(), base_.variants.size());
  size_t other_text = 0;
  for (size_t i = 0; i < base_.variants.size(); ++i) {
    const auto& want = base_.variants[i].stages;
    const auto& got = back->variants[i].stages;
    ASSERT_EQ(got.size(), want.size());
    for (size_t k = 0; k < want.size(); ++k) {
      auto text = build::read_stage(want[k]);
      ASSERT_TRUE(text);
      EXPECT_EQ(got[k].raw_hash, hash128_hex(text->view())) << want[k].path;
      other_text += *got[k].text != std::string(text->view());
    }
  }
  EXPECT_GT(other_text, 0u) << "some stages load with noise's text: the raw hash is base's own";
}

TEST_F(KeptHashes, AnotherVersionsHashIsNotUsedAndTheNextRecordKeepsThisVersions) {
  ASSERT_TRUE(store_->record(base_, commit(kSha1)));
  const std::string path = store_->path();
  store_.reset();
  // As if every hash had been kept by another normalizer version.
  testing::run_sql(path, "UPDATE norm_hashes SET version = version + 100");
  {
    auto s = Store::open_read_only(path);
    ASSERT_TRUE(s);
    auto back = s->load(kSha1);
    ASSERT_TRUE(back);
    EXPECT_EQ(check_kept(*back), 0u) << "a hash of another version must not be used";
  }
  // The noise build reuses every blob of base under other raw texts: the
  // record normalizes each blob's own text once and keeps its hash.
  auto s = Store::open(path);
  ASSERT_TRUE(s);
  auto st = s->record(load("noise"), commit(kSha2, {kSha1}));
  ASSERT_TRUE(st) << st.status().to_string();
  EXPECT_EQ(st->new_blobs, 0u);
  auto back = s->load(kSha1);
  ASSERT_TRUE(back);
  EXPECT_EQ(check_kept(*back), lexed_stages(*back));
  auto v = verify(*s);
  ASSERT_TRUE(v);
  EXPECT_TRUE(v->ok()) << v->problems.front();
}

TEST_F(KeptHashes, VerifyNamesAKeptHashThatIsNotItsTexts) {
  ASSERT_TRUE(store_->record(base_, commit(kSha1)));
  const std::string path = store_->path();
  store_.reset();
  const std::string blob = testing::run_sql(
      path, "SELECT blob FROM norm_hashes WHERE blob LIKE 'n:mlir:%' ORDER BY blob LIMIT 1");
  ASSERT_FALSE(blob.empty());
  testing::run_sql(path,
                   "UPDATE norm_hashes SET hash = '0123456789abcdef' WHERE blob = '" + blob + "'");
  auto s = Store::open_read_only(path);
  ASSERT_TRUE(s);
  auto v = verify(*s);
  ASSERT_TRUE(v);
  ASSERT_EQ(v->problems.size(), 1u);
  EXPECT_NE(v->problems[0].find(blob), std::string::npos) << v->problems[0];
  EXPECT_NE(v->problems[0].find("kept normalized hash 0123456789abcdef"), std::string::npos)
      << v->problems[0];
  // Not hex: the load refuses it, naming the blob, rather than use it.
  testing::run_sql(path, "UPDATE norm_hashes SET hash = 'zz' WHERE blob = '" + blob + "'");
  auto back = s->load(kSha1);
  ASSERT_FALSE(back);
  EXPECT_EQ(back.status().code(), ErrorCode::kCorrupt);
  EXPECT_NE(back.status().message().find(blob), std::string::npos);
}

TEST_F(KeptHashes, GcDropsTheHashesOfDeletedBlobs) {
  ASSERT_TRUE(store_->record(base_, commit(kSha1)));
  const std::string path = store_->path();
  EXPECT_NE(testing::run_sql(path, "SELECT count(*) FROM norm_hashes"), "0");
  ASSERT_TRUE(store_->forget(kSha1).is_ok());
  ASSERT_TRUE(gc(*store_, false));
  EXPECT_EQ(testing::run_sql(path, "SELECT count(*) FROM norm_hashes"), "0");
}

TEST_F(KeptHashes, AVersion2StoreIsUpgradedByAWriterAndReadAsItIsByAReader) {
  ASSERT_TRUE(store_->record(base_, commit(kSha1)));
  const std::string path = store_->path();
  store_.reset();
  testing::run_sql(path, "DROP TABLE norm_hashes");
  testing::run_sql(path, "UPDATE meta SET value='2' WHERE key='schema_version'");
  {
    auto r = Store::open_read_only(path);
    ASSERT_TRUE(r) << r.status().to_string();
    auto back = r->load(kSha1);
    ASSERT_TRUE(back) << back.status().to_string();
    EXPECT_EQ(check_kept(*back), 0u);
  }
  EXPECT_EQ(testing::run_sql(path, "SELECT value FROM meta WHERE key='schema_version'"), "2");
  auto w = Store::open(path);
  ASSERT_TRUE(w) << w.status().to_string();
  EXPECT_EQ(testing::run_sql(path, "SELECT value FROM meta WHERE key='schema_version'"), std::to_string(kSchemaVersion));
  ASSERT_TRUE(w->record(load("noise"), commit(kSha2, {kSha1})));
  auto back = w->load(kSha1);
  ASSERT_TRUE(back);
  EXPECT_EQ(check_kept(*back), lexed_stages(*back));
}

}  // namespace
}  // namespace ksnap::store

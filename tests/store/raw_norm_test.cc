// Normalized hashes of raw texts (raw_norm, schema version 4): a record keeps
// the normalized hash of every text it reads, under its dialect and
// norm::kHashVersion; a loaded commit hands the table to the diff
// (Build::known_texts); another version's rows are never used; the 3 -> 4
// upgrade fills the table from the blobs' own texts; verify catches a wrong
// row and gc forgets the rows of forgotten texts.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

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
/// base recorded as kSha1, noise as kSha2 after it; no_licm never.
class RawNorm : public testing::StoreFixture {
 protected:
  void record_base_and_noise() {
    noise_ = load("noise");
    no_licm_ = load("no_licm");
    ASSERT_TRUE(store_->record(base_, commit(kSha1)));
    ASSERT_TRUE(store_->record(noise_, commit(kSha2, {kSha1})));
  }
  build::Build noise_, no_licm_;
};

struct Count {
  size_t lexed = 0, known = 0;
};

/// Asks `known` about every lexed stage text of `b`; each answer must be the
/// hash normalizing the text gives.
Count ask(const build::KnownTexts& known, const build::Build& b) {
  Count c;
  for (const build::Variant& v : b.variants)
    for (const build::StageFile& f : v.stages) {
      ir::Dialect d;
      if (!ir::dialect_for_stage(f.stage, &d)) continue;
      auto text = build::read_stage(f);
      EXPECT_TRUE(text) << f.path;
      if (!text) continue;
      ++c.lexed;
      auto h = known.normalized_hash(hash128_hex(text->view()), ir::dialect_name(d));
      if (!h) continue;
      ++c.known;
      auto want = norm::normalized_hash(*text, d);
      EXPECT_TRUE(want) << f.path;
      if (want) {
        EXPECT_EQ(hex64(*h), hex64(*want)) << f.path;
      }
    }
  return c;
}

TEST_F(RawNorm, EveryTextARecordReadIsKnownWithItsNormalizedHash) {
  ASSERT_NO_FATAL_FAILURE(record_base_and_noise());
  auto back = store_->load(kSha1);
  ASSERT_TRUE(back) << back.status().to_string();
  ASSERT_TRUE(back->known_texts) << "a loaded commit knows the store's raw texts";
  // Both records' texts, not only the loaded commit's; no_licm was never recorded.
  for (const build::Build* b : {&base_, &noise_}) {
    Count c = ask(*back->known_texts, *b);
    EXPECT_GE(c.lexed, 40u);
    EXPECT_EQ(c.known, c.lexed);
  }
  Count c = ask(*back->known_texts, no_licm_);
  EXPECT_LT(c.known, c.lexed) << "no_licm's changed texts were never recorded";
  EXPECT_GT(c.known, 0u) << "its unchanged texts are base's bytes";
  // The same bytes lexed by another dialect are another question.
  const build::StageFile& f = *base_.variants[0].stage("llir");
  auto text = build::read_stage(f);
  ASSERT_TRUE(text);
  EXPECT_FALSE(back->known_texts->normalized_hash(hash128_hex(text->view()), "ptx"));
  // A folder knows nothing beyond itself.
  EXPECT_FALSE(base_.known_texts);
}

TEST_F(RawNorm, ConcurrentLookupsAnswerAsOneAtATimeAndOutliveTheStore) {
  ASSERT_NO_FATAL_FAILURE(record_base_and_noise());
  auto back = store_->load(kSha1);
  ASSERT_TRUE(back && back->known_texts) << back.status().to_string();
  // Every lexed text of three builds, asked one at a time, then by four
  // threads at once, each asking all of them (the engine's workers do this).
  struct Ask {
    std::string raw, dialect;
    std::optional<uint64_t> want;
  };
  std::vector<Ask> asks;
  for (const build::Build* b : {&base_, &noise_, &no_licm_})
    for (const build::Variant& v : b->variants)
      for (const build::StageFile& f : v.stages) {
        ir::Dialect d;
        if (!ir::dialect_for_stage(f.stage, &d)) continue;
        auto text = build::read_stage(f);
        ASSERT_TRUE(text) << f.path;
        Ask a{hash128_hex(text->view()), ir::dialect_name(d), std::nullopt};
        a.want = back->known_texts->normalized_hash(a.raw, a.dialect);
        asks.push_back(std::move(a));
      }
  size_t known = 0;
  for (const Ask& a : asks) known += a.want.has_value();
  ASSERT_GT(known, 0u);
  ASSERT_LT(known, asks.size()) << "some of no_licm's texts were never recorded";
  std::shared_ptr<const build::KnownTexts> texts = back->known_texts;
  store_.reset();  // the lookups have connections of their own
  std::vector<size_t> wrong(4, 0);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < wrong.size(); ++t)
    threads.emplace_back([&, t] {
      for (size_t i = 0; i < asks.size(); ++i) {
        const Ask& a = asks[(i + t * 7) % asks.size()];
        if (texts->normalized_hash(a.raw, a.dialect) != a.want) ++wrong[t];
      }
    });
  for (std::thread& th : threads) th.join();
  for (size_t t = 0; t < wrong.size(); ++t) EXPECT_EQ(wrong[t], 0u) << "thread " << t;
}

TEST_F(RawNorm, AnotherVersionsRowsAreNotUsedAndTheNextRecordWritesThisVersions) {
  ASSERT_TRUE(store_->record(base_, commit(kSha1)));
  const std::string path = store_->path();
  store_.reset();
  testing::run_sql(path, "UPDATE raw_norm SET version = version + 100");
  {
    auto s = Store::open_read_only(path);
    ASSERT_TRUE(s);
    auto back = s->load(kSha1);
    ASSERT_TRUE(back && back->known_texts);
    EXPECT_EQ(ask(*back->known_texts, base_).known, 0u) << "another version's hash is not used";
  }
  // Every text of base is a raw_index hit now: the record normalizes each once.
  auto s = Store::open(path);
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->record(base_, commit(kSha2, {kSha1})));
  auto back = s->load(kSha2);
  ASSERT_TRUE(back && back->known_texts);
  Count c = ask(*back->known_texts, base_);
  EXPECT_EQ(c.known, c.lexed);
}

TEST_F(RawNorm, AVersion3StoreIsFilledFromItsBlobsWhenUpgradedAndReadAsItIsByAReader) {
  build::Build noise = load("noise");
  ASSERT_TRUE(store_->record(base_, commit(kSha1)));
  ASSERT_TRUE(store_->record(noise, commit(kSha2, {kSha1})));
  const std::string path = store_->path();
  store_.reset();
  testing::run_sql(path, "DROP TABLE raw_norm");
  testing::run_sql(path, "UPDATE meta SET value='3' WHERE key='schema_version'");
  {
    auto r = Store::open_read_only(path);
    ASSERT_TRUE(r) << r.status().to_string();
    auto back = r->load(kSha1);
    ASSERT_TRUE(back) << back.status().to_string();
    EXPECT_FALSE(back->known_texts) << "a version-3 store has no raw_norm";
  }
  EXPECT_EQ(testing::run_sql(path, "SELECT value FROM meta WHERE key='schema_version'"), "3");
  auto w = Store::open(path);
  ASSERT_TRUE(w) << w.status().to_string();
  EXPECT_EQ(testing::run_sql(path, "SELECT value FROM meta WHERE key='schema_version'"),
            std::to_string(kSchemaVersion));
  // One row per normalized blob: its own text (base's, recorded first).
  EXPECT_EQ(testing::run_sql(path, "SELECT count(*) FROM raw_norm"),
            testing::run_sql(path, "SELECT count(*) FROM blobs WHERE id LIKE 'n:%'"));
  auto back = w->load(kSha1);
  ASSERT_TRUE(back && back->known_texts);
  Count c = ask(*back->known_texts, base_);
  EXPECT_EQ(c.known, c.lexed) << "base's texts are the blobs' texts";
  EXPECT_LT(ask(*back->known_texts, noise).known, c.lexed)
      << "noise's texts map to base's blobs: unknown under the new table until read again";
  auto v = verify(*w);
  ASSERT_TRUE(v);
  EXPECT_TRUE(v->ok()) << v->problems.front();
}

TEST_F(RawNorm, VerifyNamesAWrongRowAndGcForgetsTheRowsOfForgottenTexts) {
  ASSERT_TRUE(store_->record(base_, commit(kSha1)));
  const std::string path = store_->path();
  const std::string raw =
      testing::run_sql(path,
                       "SELECT b.raw_hash FROM blobs b WHERE b.id LIKE 'n:llvm:%' "
                       "ORDER BY b.id LIMIT 1");
  ASSERT_FALSE(raw.empty());
  testing::run_sql(path, "UPDATE raw_norm SET hash = '0123456789abcdef' WHERE raw_hash = '" +
                             raw + "' AND dialect = 'llvm'");
  {
    auto v = verify(*store_);
    ASSERT_TRUE(v);
    ASSERT_EQ(v->problems.size(), 1u);
    EXPECT_NE(v->problems[0].find("raw text " + raw), std::string::npos) << v->problems[0];
    EXPECT_NE(v->problems[0].find("0123456789abcdef"), std::string::npos) << v->problems[0];
  }
  testing::run_sql(path, "UPDATE raw_norm SET hash = 'zz' WHERE raw_hash = '" + raw + "'");
  {
    auto v = verify(*store_);
    ASSERT_TRUE(v);
    ASSERT_FALSE(v->ok());
    EXPECT_NE(v->problems[0].find("not 16 hex digits"), std::string::npos) << v->problems[0];
    // A damaged row is not used by a diff (the text is normalized instead).
    auto back = store_->load(kSha1);
    ASSERT_TRUE(back && back->known_texts);
    Count c = ask(*back->known_texts, base_);
    EXPECT_LT(c.known, c.lexed);
  }
  EXPECT_NE(testing::run_sql(path, "SELECT count(*) FROM raw_norm"), "0");
  ASSERT_TRUE(store_->forget(kSha1).is_ok());
  ASSERT_TRUE(gc(*store_, false));
  EXPECT_EQ(testing::run_sql(path, "SELECT count(*) FROM raw_norm"), "0");
}

}  // namespace
}  // namespace ksnap::store

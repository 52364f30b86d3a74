#include "ksnap/store/maintenance.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "ksnap/build/build.h"
#include "store/test_util.h"

namespace ksnap::store {
namespace {

using testing::corpus_build;
using testing::ScratchDir;

const std::string kSha1(40, '1'), kSha2(40, '2');

class MaintenanceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string base = corpus_build("base"), other = corpus_build("no_licm");
    if (base.empty() || other.empty()) GTEST_SKIP() << "no corpus";
    auto b = build::load_build(base);
    auto o = build::load_build(other);
    ASSERT_TRUE(b && o);
    base_ = std::move(*b);
    other_ = std::move(*o);
    path_ = dir_.file("h.db");
    auto s = Store::open(path_, true);
    ASSERT_TRUE(s);
    RecordOptions r;
    r.sha = kSha1;
    ASSERT_TRUE(s->record(base_, r));
    r.sha = kSha2;
    r.parents = {kSha1};
    ASSERT_TRUE(s->record(other_, r));
  }
  /// Runs one SQL statement on the store file behind ksnap's back.
  void tamper(const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
    EXPECT_EQ(rc, SQLITE_OK) << (err ? err : "");
    sqlite3_free(err);
    sqlite3_close(db);
  }
  VerifyReport run_verify() {
    auto s = Store::open(path_);
    EXPECT_TRUE(s) << s.status().to_string();
    auto r = verify(*s);
    EXPECT_TRUE(r) << r.status().to_string();
    return r ? *r : VerifyReport{};
  }

  ScratchDir dir_;
  std::string path_;
  build::Build base_, other_;
};

TEST_F(MaintenanceTest, CleanStoreVerifies) {
  VerifyReport r = run_verify();
  EXPECT_TRUE(r.ok()) << (r.problems.empty() ? "" : r.problems[0]);
  EXPECT_EQ(r.commits, 2);
  EXPECT_EQ(r.trees, 2);
  EXPECT_GT(r.blobs, 0);
  EXPECT_TRUE(r.renormalized.empty());
}

TEST_F(MaintenanceTest, VerifyFindsEachKindOfDamage) {
  struct Case {
    const char* name;
    const char* sql;
    const char* expect;  // substring of a problem line
  };
  const Case cases[] = {
      {"blob bytes", "UPDATE blobs SET data = x'28b52ffd0000' WHERE rowid = 1", "blob "},
      {"blob size", "UPDATE blobs SET raw_size = raw_size + 1 WHERE rowid = 2", "expected"},
      {"blob hash", "UPDATE blobs SET raw_hash = '00' WHERE rowid = 3", "content hash"},
      {"missing blob", "DELETE FROM blobs WHERE rowid = 4", "names missing blob"},
      {"record bytes", "UPDATE variants SET data = x'00' WHERE rowid = 1", "record "},
      {"missing record", "DELETE FROM variants WHERE rowid = 2", "missing variant record"},
      {"tree order", "UPDATE tree_variants SET idx = 100 WHERE idx = 0", "content hash differs"},
      {"missing tree", "DELETE FROM trees", "names missing tree"},
      {"variant_blobs", "DELETE FROM variant_blobs WHERE stage = 'ptx'", "disagree"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ScratchDir copy;
    std::filesystem::copy_file(path_, copy.file("h.db"));
    std::string saved = path_;
    path_ = copy.file("h.db");
    tamper(c.sql);
    VerifyReport r = run_verify();
    EXPECT_FALSE(r.ok());
    bool found = false;
    for (const auto& p : r.problems) found = found || p.find(c.expect) != std::string::npos;
    EXPECT_TRUE(found) << (r.problems.empty() ? "no problems" : r.problems[0]);
    path_ = saved;
  }
}

TEST_F(MaintenanceTest, GcDropsOnlyWhatNoCommitReaches) {
  auto s = Store::open(path_);
  ASSERT_TRUE(s);
  auto before = s->stats();
  ASSERT_TRUE(before);
  auto g0 = gc(*s, false);
  ASSERT_TRUE(g0) << g0.status().to_string();
  EXPECT_EQ(g0->blobs, 0) << "everything is referenced";
  EXPECT_EQ(g0->trees, 0);

  ASSERT_TRUE(s->forget(kSha2).is_ok());
  auto g = gc(*s, /*vacuum=*/true);
  ASSERT_TRUE(g) << g.status().to_string();
  EXPECT_EQ(g->trees, 1);
  EXPECT_GT(g->variants, 0);
  EXPECT_GT(g->blobs, 0);
  EXPECT_GT(g->blob_bytes, 0);
  EXPECT_LT(g->file_bytes_after, g->file_bytes_before);
  auto after = s->stats();
  ASSERT_TRUE(after);
  EXPECT_EQ(after->blobs, before->blobs - g->blobs);
  // The remaining commit is intact and loads with the same texts.
  auto r = verify(*s);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->ok()) << (r->problems.empty() ? "" : r->problems[0]);
  auto back = s->load(kSha1);
  ASSERT_TRUE(back) << back.status().to_string();
  auto want = build::read_stage(*base_.variants[5].stage("ttgir"));
  auto got = build::read_stage(*back->variants[5].stage("ttgir"));
  ASSERT_TRUE(want && got);
  EXPECT_EQ(got->view(), want->view());
  // A re-record after gc finds no stale raw_index entries pointing nowhere.
  RecordOptions o;
  o.sha = kSha2;
  auto st = s->record(other_, o);
  ASSERT_TRUE(st) << st.status().to_string();
  EXPECT_EQ(st->new_blobs, static_cast<size_t>(g->blobs));
  auto r2 = verify(*s);
  ASSERT_TRUE(r2);
  EXPECT_TRUE(r2->ok());
}

}  // namespace
}  // namespace ksnap::store

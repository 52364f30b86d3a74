#include "store/sqlite_db.h"

#include <gtest/gtest.h>

#include "store/test_util.h"

namespace ksnap::store {
namespace {

using testing::ScratchDir;

TEST(SqliteDbTest, TransactionsCommitRollBackAndNest) {
  ScratchDir dir;
  auto db = Db::open(dir.file("t.db"), true);
  ASSERT_TRUE(db) << db.status().to_string();
  ASSERT_TRUE(db->exec("CREATE TABLE t(k TEXT, v INTEGER, b BLOB)").is_ok());
  {
    auto t = Transaction::begin(*db, true);
    ASSERT_TRUE(t);
    auto q = db->prepare("INSERT INTO t VALUES(?, ?, ?)");
    ASSERT_TRUE(q);
    ASSERT_TRUE(q->run_with(std::string("a"), int64_t{1}, Blob{std::string("\0x", 2)}).is_ok());
    ASSERT_TRUE(q->run_with(std::string("b"), int64_t{2}, Blob{"y"}).is_ok());
    // A nested begin is a no-op; its commit leaves the outer one open.
    auto inner = Transaction::begin(*db, false);
    ASSERT_TRUE(inner);
    EXPECT_TRUE(inner->commit().is_ok());
    EXPECT_TRUE(db->in_transaction());
    EXPECT_TRUE(t->commit().is_ok());
  }
  EXPECT_FALSE(db->in_transaction());
  {
    auto t = Transaction::begin(*db, true);
    ASSERT_TRUE(t);
    ASSERT_TRUE(db->exec("INSERT INTO t VALUES('c', 3, x'00')").is_ok());
    // Dropped without commit: rolled back.
  }
  auto n = db->query_int("SELECT count(*) FROM t");
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 2);
  auto q = db->prepare("SELECT k, v, b FROM t ORDER BY k");
  ASSERT_TRUE(q);
  auto row = q->step();
  ASSERT_TRUE(row && *row);
  EXPECT_EQ(q->text(0), "a");
  EXPECT_EQ(q->integer(1), 1);
  EXPECT_EQ(q->blob(2), std::string("\0x", 2));
}

TEST(SqliteDbTest, ErrorsNameTheFile) {
  ScratchDir dir;
  auto db = Db::open(dir.file("e.db"), true);
  ASSERT_TRUE(db);
  Status s = db->exec("SELECT * FROM no_such_table");
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.location().file, dir.file("e.db"));
  EXPECT_NE(s.message().find("no_such_table"), std::string::npos);
  auto p = db->prepare("NOT SQL");
  ASSERT_FALSE(p);
  EXPECT_EQ(p.status().location().file, dir.file("e.db"));
  auto none = db->query_int("SELECT 1 WHERE 0");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.status().code(), ErrorCode::kNotFound);
  auto missing = Db::open(dir.file("missing.db"), false);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  ASSERT_TRUE(db->exec("CREATE TABLE u(k TEXT PRIMARY KEY)").is_ok());
  ASSERT_TRUE(db->exec("INSERT INTO u VALUES('x')").is_ok());
  Status dup = db->exec("INSERT INTO u VALUES('x')");
  EXPECT_EQ(dup.code(), ErrorCode::kCorrupt);  // a constraint broken = data that disagrees
}

TEST(SqliteDbTest, OpensInWalMode) {
  ScratchDir dir;
  auto db = Db::open(dir.file("w.db"), true);
  ASSERT_TRUE(db);
  auto q = db->prepare("PRAGMA journal_mode");
  ASSERT_TRUE(q);
  ASSERT_TRUE(q->step());
  EXPECT_EQ(q->text(0), "wal");
}

}  // namespace
}  // namespace ksnap::store

#include <gtest/gtest.h>

#include "ksnap/store/store.h"
#include "store/sqlite_db.h"
#include "store/test_util.h"

namespace ksnap::store {
namespace {

using testing::ScratchDir;

TEST(SchemaTest, FreshStoreGetsEveryTableAndTheVersion) {
  ScratchDir dir;
  { ASSERT_TRUE(Store::open(dir.file("s.db"), true)); }
  auto db = Db::open(dir.file("s.db"), false);
  ASSERT_TRUE(db);
  for (const char* t : {"meta", "blobs", "raw_index", "variants", "variant_blobs", "trees",
                        "tree_variants", "commits", "parents", "unstable"}) {
    auto n =
        db->query_int(std::string("SELECT count(*) FROM sqlite_master WHERE name='") + t + "'");
    ASSERT_TRUE(n);
    EXPECT_EQ(*n, 1) << t;
  }
  auto q = db->prepare("SELECT value FROM meta WHERE key='schema_version'");
  ASSERT_TRUE(q);
  ASSERT_TRUE(q->step());
  EXPECT_EQ(q->text(0), std::to_string(kSchemaVersion));
  // Opening again is fine and changes nothing.
  EXPECT_TRUE(Store::open(dir.file("s.db")));
}

TEST(SchemaTest, RefusesNewerAndForeignDatabases) {
  struct Case {
    const char* name;
    const char* sql;  // applied to a fresh store, or to an empty database
    bool fresh_store;
    ErrorCode code;
    const char* message;
  };
  const Case cases[] = {
      {"newer", "UPDATE meta SET value='99' WHERE key='schema_version'", true,
       ErrorCode::kUnsupported, "schema version 99"},
      {"no version", "DELETE FROM meta", true, ErrorCode::kCorrupt, "no schema_version"},
      {"foreign", "CREATE TABLE notes(x)", false, ErrorCode::kCorrupt, "not a ksnap history store"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ScratchDir dir;
    const std::string path = dir.file("s.db");
    if (c.fresh_store) {
      ASSERT_TRUE(Store::open(path, true));
    }
    {
      auto db = Db::open(path, true);
      ASSERT_TRUE(db);
      ASSERT_TRUE(db->exec(c.sql).is_ok());
    }
    auto s = Store::open(path);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.status().code(), c.code) << s.status().to_string();
    EXPECT_NE(s.status().message().find(c.message), std::string::npos) << s.status().message();
    EXPECT_EQ(s.status().location().file, path);
  }
}

}  // namespace
}  // namespace ksnap::store

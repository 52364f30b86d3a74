#include "ksnap/store/git.h"

#include <gtest/gtest.h>

#include "store/test_util.h"

namespace ksnap::store::git {
namespace {

using ksnap::store::testing::GitRepo;
using ksnap::store::testing::ScratchDir;

TEST(GitTest, ParseLogTable) {
  const std::string a(40, 'a'), b(40, 'b'), c(40, 'c');
  auto r = parse_log(a + "\t1700000000\t" + b + " " + c + "\tMerge x\tand tabs\n" + b +
                     "\t1699990000\t\troot commit\n\n");
  ASSERT_TRUE(r) << r.status().to_string();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].sha, a);
  EXPECT_EQ((*r)[0].parents, (std::vector<std::string>{b, c}));
  EXPECT_EQ((*r)[0].date, 1700000000);
  EXPECT_EQ((*r)[0].subject, "Merge x\tand tabs");
  EXPECT_TRUE((*r)[1].parents.empty());

  struct Bad {
    std::string text;
    uint32_t line;
  };
  const Bad bad[] = {
      {a + "\t1700000000\t\tok\nshort\t1\t\tx\n", 2},
      {a + "\tnoon\t\tx\n", 1},
      {a + " 1700000000\n", 1},
  };
  for (const Bad& x : bad) {
    auto e = parse_log(x.text);
    ASSERT_FALSE(e) << x.text;
    EXPECT_EQ(e.status().code(), ErrorCode::kParseError);
    EXPECT_EQ(e.status().location().line, x.line) << e.status().to_string();
  }
}

TEST(GitTest, AsksARealRepository) {
  ScratchDir dir;
  GitRepo repo(dir.path());
  std::string c1 = repo.commit("first", 1700000000);
  std::string c2 = repo.commit("second", 1700086400);
  ASSERT_EQ(c1.size(), 40u);
  ASSERT_TRUE(is_repository(dir.path()));
  auto head = rev_parse(dir.path(), "HEAD");
  ASSERT_TRUE(head) << head.status().to_string();
  EXPECT_EQ(*head, c2);
  auto prefix = rev_parse(dir.path(), c1.substr(0, 8));
  ASSERT_TRUE(prefix);
  EXPECT_EQ(*prefix, c1);
  auto s = show(dir.path(), c2);
  ASSERT_TRUE(s) << s.status().to_string();
  EXPECT_EQ(s->parents, std::vector<std::string>{c1});
  EXPECT_EQ(s->date, 1700086400);
  EXPECT_EQ(s->subject, "second");
  auto h = history(dir.path(), c2, 0);
  ASSERT_TRUE(h);
  ASSERT_EQ(h->size(), 2u);
  EXPECT_EQ((*h)[1].sha, c1);
  auto mb = merge_base(dir.path(), c2, c1);
  ASSERT_TRUE(mb);
  EXPECT_EQ(*mb, c1);

  auto missing = rev_parse(dir.path(), "no-such-branch");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  // An option-looking revision is not taken as an option.
  EXPECT_FALSE(rev_parse(dir.path(), "--all"));
}

TEST(GitTest, NotARepository) {
  ScratchDir dir;
  EXPECT_FALSE(is_repository(dir.path()));
  auto r = rev_parse(dir.path(), "HEAD");
  ASSERT_FALSE(r);
  EXPECT_NE(r.status().message().find(dir.path()), std::string::npos);
}

}  // namespace
}  // namespace ksnap::store::git

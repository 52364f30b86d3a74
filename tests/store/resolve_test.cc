#include "ksnap/store/resolve.h"

#include <gtest/gtest.h>

#include "ksnap/store/store.h"
#include "store/test_util.h"

namespace ksnap::store {
namespace {

using testing::commit;
using testing::GitRepo;
using ResolveTest = testing::StoreFixture;

TEST_F(ResolveTest, FoldersCommitsAndGitRevisions) {
  GitRepo repo(dir_.path());
  std::string c1 = repo.commit("one", 1733011200);
  std::string c2 = repo.commit("two", 1733097600);
  ASSERT_TRUE(store_->record(base_, commit(c1)));
  const std::string path = store_->path();

  auto folder = resolve_build(testing::corpus_build("base"), path, dir_.path());
  ASSERT_TRUE(folder) << folder.status().to_string();
  EXPECT_EQ(folder->kind, build::BuildKind::kCapture);

  struct Case {
    std::string arg;
    ErrorCode code;
    std::string message;  // substring of the error
  };
  const Case cases[] = {
      {c1, ErrorCode::kOk, ""},
      {c1.substr(0, 7), ErrorCode::kOk, ""},
      {"HEAD~1", ErrorCode::kOk, ""},                           // git resolves it to c1
      {"main", ErrorCode::kNotFound, "which is not recorded"},  // c2
      {c2.substr(0, 10), ErrorCode::kNotFound, "which is not recorded"},
      {"nonsense", ErrorCode::kNotFound, "neither a build folder nor a commit"},
  };
  for (const Case& c : cases) {
    auto r = resolve_commit(c.arg, path, dir_.path());
    if (c.code == ErrorCode::kOk) {
      ASSERT_TRUE(r) << c.arg << ": " << r.status().to_string();
      EXPECT_EQ(*r, c1) << c.arg;
    } else {
      ASSERT_FALSE(r) << c.arg;
      EXPECT_EQ(r.status().code(), c.code) << c.arg;
      EXPECT_NE(r.status().message().find(c.message), std::string::npos) << r.status().message();
    }
  }
  auto b = resolve_build("HEAD~1", path, dir_.path());
  ASSERT_TRUE(b) << b.status().to_string();
  EXPECT_EQ(b->kind, build::BuildKind::kMemory);
  EXPECT_EQ(b->variants.size(), base_.variants.size());
}

TEST(ResolveNoStoreTest, SaysThereIsNoStore) {
  testing::ScratchDir dir;
  auto r = resolve_build("3f2a1b7", dir.file("none.db"), "");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(r.status().message().find("no history store"), std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace ksnap::store

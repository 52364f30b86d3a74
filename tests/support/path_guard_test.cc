#include "ksnap/support/path_guard.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace ksnap {
namespace {

namespace fs = std::filesystem;

class PathGuardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "ksnap-guard-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    top_ = tmpl;
    root_ = top_ + "/cap";
    fs::create_directories(root_ + "/cache/H");
    fs::create_directories(top_ + "/outside");
    std::ofstream(root_ + "/cache/H/k.ttir") << "module {}\n";
    std::ofstream(top_ + "/outside/secret") << "secret\n";
    fs::create_symlink(top_ + "/outside/secret", root_ + "/cache/H/out_abs");
    fs::create_symlink("../../../outside/secret", root_ + "/cache/H/out_rel");
    fs::create_symlink("k.ttir", root_ + "/cache/H/in_link");
    fs::create_symlink(top_ + "/outside", root_ + "/cache/OUTDIR");
    fs::create_symlink("H", root_ + "/cache/ALIAS");
    fs::create_symlink("nowhere", root_ + "/cache/H/dangling");
    ASSERT_EQ(::mkfifo((root_ + "/cache/H/fifo").c_str(), 0600), 0);
  }
  void TearDown() override { fs::remove_all(top_); }
  std::string top_, root_;
};

TEST_F(PathGuardTest, ConfinesToTheRoot) {
  struct Case {
    const char* name;
    std::string rel;
    PathGuard::Kind kind;
    ErrorCode code;  // kOk = accepted
    const char* says;
  };
  const Case cases[] = {
      {"plain_file", "cache/H/k.ttir", PathGuard::kFile, ErrorCode::kOk, ""},
      {"folder", "cache/H", PathGuard::kDirectory, ErrorCode::kOk, ""},
      {"dot_and_slashes", "./cache//H/./k.ttir", PathGuard::kFile, ErrorCode::kOk, ""},
      {"dotdot_inside", "cache/H/../H/k.ttir", PathGuard::kFile, ErrorCode::kOk, ""},
      {"link_inside", "cache/H/in_link", PathGuard::kFile, ErrorCode::kOk, ""},
      {"folder_link_inside", "cache/ALIAS/k.ttir", PathGuard::kFile, ErrorCode::kOk, ""},
      {"traversal", "../../../../../../../../etc/passwd", PathGuard::kFile,
       ErrorCode::kInvalidArgument, "leaves"},
      {"traversal_after_folder", "cache/../../outside/secret", PathGuard::kFile,
       ErrorCode::kInvalidArgument, "leaves"},
      {"absolute", "/etc/passwd", PathGuard::kFile, ErrorCode::kInvalidArgument, "absolute"},
      {"link_out_absolute", "cache/H/out_abs", PathGuard::kFile, ErrorCode::kInvalidArgument,
       "symbolic link"},
      {"link_out_relative", "cache/H/out_rel", PathGuard::kFile, ErrorCode::kInvalidArgument,
       "symbolic link"},
      {"folder_link_out", "cache/OUTDIR/secret", PathGuard::kFile, ErrorCode::kInvalidArgument,
       "symbolic link"},
      {"folder_link_out_as_folder", "cache/OUTDIR", PathGuard::kDirectory,
       ErrorCode::kInvalidArgument, "symbolic link"},
      // ".." is resolved before links: this names cache/cap/cache/H/k.ttir.
      {"link_then_dotdot", "cache/OUTDIR/../cap/cache/H/k.ttir", PathGuard::kFile,
       ErrorCode::kNotFound, "does not exist"},
      {"dangling", "cache/H/dangling", PathGuard::kFile, ErrorCode::kNotFound, "link to nothing"},
      {"missing", "cache/H/none.ttir", PathGuard::kFile, ErrorCode::kNotFound, "does not exist"},
      {"file_as_folder", "cache/H/k.ttir/x", PathGuard::kFile, ErrorCode::kNotFound,
       "does not exist"},
      {"fifo", "cache/H/fifo", PathGuard::kFile, ErrorCode::kInvalidArgument, "not a regular file"},
      {"folder_as_file", "cache/H", PathGuard::kFile, ErrorCode::kInvalidArgument, "is a folder"},
      {"empty", "", PathGuard::kFile, ErrorCode::kInvalidArgument, "empty"},
      {"root_itself", "cache/..", PathGuard::kDirectory, ErrorCode::kInvalidArgument, "itself"},
      {"nul", std::string("cache/H/k.ttir\0x", 16), PathGuard::kFile, ErrorCode::kInvalidArgument,
       "NUL"},
      {"control_chars_shown_escaped", "\x1b]0;x\x07", PathGuard::kFile, ErrorCode::kNotFound,
       "\\x1b]0;x\\x07"},
  };
  PathGuard g(root_ + "/");
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = g.resolve(c.rel, c.kind);
    if (c.code == ErrorCode::kOk) {
      ASSERT_TRUE(r) << r.status().to_string();
      EXPECT_EQ(r->rfind(root_ + "/", 0), 0u) << *r;
      EXPECT_EQ(r->find("/./"), std::string::npos) << *r;
      continue;
    }
    ASSERT_FALSE(r) << *r;
    EXPECT_EQ(r.status().code(), c.code) << r.status().to_string();
    EXPECT_NE(r.status().message().find(c.says), std::string::npos) << r.status().to_string();
  }
}

/// What resolve() answered: the path, or the code and message.
std::string answer(const Expected<std::string>& r) {
  return r ? "ok " + *r : std::to_string(static_cast<int>(r.status().code())) + " " + r.status().message();
}

TEST_F(PathGuardTest, AFolderListingAnswersAsLstatDoes) {
  // A guard that has listed cache/H (two lookups in a row there) answers
  // every name in it as a fresh guard does, which asks lstat.
  const char* names[] = {"k.ttir", "none.ttir", "in_link", "out_abs", "out_rel", "dangling",
                         "fifo",   "k.ttir/x",  "..",      ".",       ""};
  for (PathGuard::Kind kind : {PathGuard::kFile, PathGuard::kDirectory}) {
    for (const char* n : names) {
      SCOPED_TRACE(n);
      std::string rel = std::string("cache/H/") + n;
      PathGuard fresh(root_);
      std::string expected = answer(fresh.resolve(rel, kind));
      PathGuard warm(root_);
      ASSERT_TRUE(warm.resolve("cache/H/k.ttir", PathGuard::kFile));
      ASSERT_FALSE(warm.resolve("cache/H/absent.llir", PathGuard::kFile));  // listed now
      EXPECT_EQ(answer(warm.resolve(rel, kind)), expected);
      EXPECT_EQ(answer(warm.resolve(rel, kind)), expected);  // and again
    }
  }
  // A folder inside cache/H, and the folder listing seeing it.
  fs::create_directories(root_ + "/cache/H/sub");
  PathGuard warm(root_);
  ASSERT_TRUE(warm.resolve("cache/H/k.ttir", PathGuard::kFile));
  ASSERT_TRUE(warm.resolve("cache/H/k.ttir", PathGuard::kFile));
  EXPECT_EQ(answer(warm.resolve("cache/H/sub", PathGuard::kDirectory)), "ok " + root_ + "/cache/H/sub");
  EXPECT_NE(answer(warm.resolve("cache/H/sub", PathGuard::kFile)).find("is a folder"),
            std::string::npos);
}

TEST_F(PathGuardTest, AFolderTooBigToListIsAskedByLstat) {
  fs::create_directories(root_ + "/big");
  for (int i = 0; i < 1100; ++i) std::ofstream(root_ + "/big/f" + std::to_string(i));
  PathGuard g(root_);
  for (int round = 0; round < 2; ++round) {
    EXPECT_TRUE(g.resolve("big/f0", PathGuard::kFile));
    EXPECT_TRUE(g.resolve("big/f1099", PathGuard::kFile));
    EXPECT_EQ(g.resolve("big/none", PathGuard::kFile).status().code(), ErrorCode::kNotFound);
  }
}

TEST_F(PathGuardTest, RootReachedThroughALinkStillConfines) {
  fs::create_symlink(root_, top_ + "/via");
  PathGuard g(top_ + "/via");
  EXPECT_TRUE(g.resolve("cache/H/in_link", PathGuard::kFile));
  EXPECT_FALSE(g.resolve("cache/H/out_abs", PathGuard::kFile));
  PathGuard missing(top_ + "/none");
  EXPECT_EQ(missing.resolve("x", PathGuard::kFile).status().code(), ErrorCode::kNotFound);
}

}  // namespace
}  // namespace ksnap

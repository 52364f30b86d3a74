// The tuning cache file under hostile or unusual conditions (issue 15 item
// 11): a malformed entry is kept verbatim, a file this library cannot read
// (a newer version, not a cache) is never overwritten, a cache reached
// through a symbolic link is written through it, and two writers through
// different names of one cache take the same lock.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "ksnap/support/file.h"
#include "ksnap/tune/cache.h"

namespace ksnap::tune {
namespace {

namespace fs = std::filesystem;

DeviceFingerprint device() {
  DeviceFingerprint d;
  d.backend = "cuda";
  d.name = "NVIDIA H200";
  d.uuid = "GPU-0000";
  d.cc_major = 9;
  d.sm_count = 132;
  d.driver_version = 13000;
  d.cuda_version = 13000;
  d.library_version = library_version();
  return d;
}

CacheEntry entry(uint64_t group, const std::string& w, size_t choice) {
  CacheEntry e;
  e.group_hash = group;
  e.group_name = "matmul";
  e.workload = w;
  e.choice = choice;
  e.choice_name = "v" + std::to_string(choice);
  e.choice_hash = 100 + choice;
  e.decision = "tied";
  e.median_us = {1.5, 2.5};
  e.device = device();
  return e;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// A fresh folder for one test, removed afterwards.
struct Folder {
  std::string path;
  explicit Folder(const char* tag) {
    path = (fs::temp_directory_path() /
            ("ksnap_cache_files_" + std::string(tag) + "_" + std::to_string(::getpid())))
               .string();
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Folder() { fs::remove_all(path); }
  size_t count() const {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(path)) ++n;
    return n;
  }
};

TEST(CacheFiles, MalformedEntriesAreReportedUsedAroundAndKeptVerbatim) {
  Folder dir("malformed");
  std::string path = dir.path + "/cache.json";
  // Odd spacing, a number spelled 2.50, brackets and a comma inside a
  // string: a re-dump would change them, the rewrite must not.
  const std::string bad_object = "{\"group\": \"zz\",   \"note\": [1, 2.50, \"a,b]}\"]}";
  const std::string bad_scalar = "42";
  const std::string good =
      "{\"group\": \"1\", \"workload\": \"w1\", \"decision\": \"tied\", \"choice\": 0, "
      "\"choice_hash\": \"64\", \"median_us\": [1.5], \"device\": {\"backend\": \"cuda\", "
      "\"name\": \"n\", \"uuid\": \"u\", \"library\": \"l\", \"sm_count\": 1, \"driver\": 1, "
      "\"cuda\": 1, \"cc\": [9, 0]}}";
  std::string text = "{\"format\": \"ksnap-tune-cache\", \"version\": 1, \"entries\": [\n  " +
                     bad_object + ",\n  " + good + ",\n  " + bad_scalar + "]}\n";
  ASSERT_TRUE(write_file_atomic(path, text).is_ok());

  TuningCache c(path);
  Status s = c.load();
  EXPECT_EQ(s.code(), ErrorCode::kCorrupt) << s.to_string();
  EXPECT_EQ(s.location().file, path);
  EXPECT_EQ(s.location().line, 2u);
  EXPECT_NE(s.message().find("2 malformed entries"), std::string::npos) << s.message();
  EXPECT_EQ(c.malformed(), 2u);
  EXPECT_EQ(c.entries().size(), 1u);  // the well-formed one is used

  ASSERT_TRUE(c.store(entry(5, "w5", 2)).is_ok());
  std::string after = slurp(path);
  EXPECT_NE(after.find(bad_object), std::string::npos) << after;
  EXPECT_NE(after.find(" " + bad_scalar + "\n"), std::string::npos) << after;
  ASSERT_TRUE(c.store(entry(6, "w6", 1)).is_ok());  // and again: still there, once
  after = slurp(path);
  EXPECT_EQ(after.find(bad_object), after.rfind(bad_object));
  TuningCache again(path);
  Status s2 = again.load();
  EXPECT_EQ(s2.code(), ErrorCode::kCorrupt);
  EXPECT_EQ(again.entries().size(), 3u);
  EXPECT_EQ(again.malformed(), 2u);
  EXPECT_TRUE(again.lookup(5, "w5", device(), {}).entry);
  // The strict reader (`ksnap tune cache`) still refuses the file.
  EXPECT_EQ(parse_cache(after, "x.json").status().code(), ErrorCode::kCorrupt);
}

TEST(CacheFiles, UnreadableFilesAreReportedAndNeverOverwritten) {
  std::string good = serialize_cache({entry(1, "w", 0)});
  struct Case {
    const char* what;
    std::string text;
    const char* says;
  };
  const Case cases[] = {
      {"newer version",
       "{\"format\": \"ksnap-tune-cache\", \"version\": 2, \"entries\": [], \"shards\": [1]}",
       "unsupported tuning cache version 2"},
      {"version spelled as text", "{\"format\": \"ksnap-tune-cache\", \"version\": \"1\"}",
       "version"},
      {"truncated", good.substr(0, good.size() / 2), "parse error"},
      {"another program's JSON", "{\"format\": \"other\", \"keep\": true}",
       "not a ksnap tuning cache"},
      {"not JSON", "\x01\x02garbage", "parse error"},
  };
  Folder dir("unreadable");
  std::string path = dir.path + "/cache.json";
  for (const Case& k : cases) {
    ASSERT_TRUE(write_file_atomic(path, k.text).is_ok());
    TuningCache c(path);
    Status loaded = c.load();
    EXPECT_FALSE(loaded.is_ok()) << k.what;
    EXPECT_TRUE(c.entries().empty()) << k.what;
    Status stored = c.store(entry(5, "w", 1));
    EXPECT_FALSE(stored.is_ok()) << k.what;
    EXPECT_NE(stored.to_string().find(k.says), std::string::npos)
        << k.what << ": " << stored.to_string();
    EXPECT_NE(stored.message().find("not overwritten"), std::string::npos) << stored.message();
    EXPECT_EQ(stored.location().file.find(dir.path), 0u) << stored.to_string();
    EXPECT_EQ(slurp(path), k.text) << k.what;
    EXPECT_EQ(dir.count(), 2u) << k.what;  // the file and its lock: no temporary left
  }
  // An empty file is an empty cache, written.
  ASSERT_TRUE(write_file_atomic(path, "").is_ok());
  TuningCache c(path);
  EXPECT_TRUE(c.store(entry(5, "w", 1)).is_ok());
  EXPECT_EQ(c.entries().size(), 1u);
}

TEST(CacheFiles, AWriteThroughASymbolicLinkReplacesTheTarget) {
  Folder dir("link");
  fs::create_directories(dir.path + "/real");
  fs::create_directories(dir.path + "/names");
  std::string target = dir.path + "/real/cache.json";
  struct Case {
    const char* what;
    std::string link;
    std::string to;  // what the link holds
  };
  const Case cases[] = {
      {"relative link", dir.path + "/names/rel.json", "../real/cache.json"},
      {"absolute link", dir.path + "/names/abs.json", target},
      {"link to a link", dir.path + "/names/chain.json", "rel.json"},
  };
  for (const Case& k : cases) fs::create_symlink(k.to, k.link);
  size_t n = 0;
  for (const Case& k : cases) {
    // The first write creates the target through the link (nothing there yet).
    ASSERT_TRUE(TuningCache(k.link).store(entry(++n, "w", 0)).is_ok()) << k.what;
    EXPECT_TRUE(fs::is_symlink(k.link)) << k.what << ": the link was replaced";
    EXPECT_EQ(fs::read_symlink(k.link).string(), k.to) << k.what;
    TuningCache back(target);
    ASSERT_TRUE(back.load().is_ok()) << k.what;
    EXPECT_EQ(back.entries().size(), n) << k.what;
  }
  // The lock and every temporary file live next to the target, not the names.
  EXPECT_TRUE(fs::exists(target + ".lock"));
  size_t names = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path + "/names")) ++names;
  EXPECT_EQ(names, 3u);
  size_t real = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path + "/real")) ++real;
  EXPECT_EQ(real, 2u);
}

TEST(CacheFiles, WritersThroughDifferentNamesTakeTheSameLock) {
  Folder dir("lock");
  std::string target = dir.path + "/cache.json";
  std::string link = dir.path + "/alias.json";
  fs::create_symlink("cache.json", link);
  ASSERT_TRUE(TuningCache(target).store(entry(1, "w", 0)).is_ok());
  // Hold the target's lock here; a writer through the link must wait for it.
  std::string lock_path = fs::canonical(target).string() + ".lock";
  int fd = ::open(lock_path.c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  pid_t kid = fork();
  if (kid == 0) _exit(TuningCache(link).store(entry(2, "w", 1)).is_ok() ? 0 : 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int st = 0;
  EXPECT_EQ(waitpid(kid, &st, WNOHANG), 0)
      << "the writer through the link did not wait for the lock";
  ::flock(fd, LOCK_UN);
  ::close(fd);
  pid_t done = 0;
  for (int i = 0; i < 500 && done == 0; ++i) {  // at most 10 s
    done = waitpid(kid, &st, WNOHANG);
    if (done == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (done == 0) {
    ::kill(kid, SIGKILL);
    waitpid(kid, &st, 0);
    FAIL() << "the writer did not finish after the lock was released";
  }
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);

  // Many writers, half through each name: nothing lost, the link kept.
  const int procs = 6, each = 10;
  std::vector<pid_t> kids;
  for (int p = 0; p < procs; ++p) {
    pid_t pid = fork();
    if (pid == 0) {
      TuningCache c(p % 2 ? link : target);
      for (int i = 0; i < each; ++i)
        if (!c.store(entry(100 + p, "w" + std::to_string(i), 0)).is_ok()) _exit(1);
      _exit(0);
    }
    kids.push_back(pid);
  }
  for (pid_t k : kids) {
    waitpid(k, &st, 0);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  EXPECT_TRUE(fs::is_symlink(link));
  TuningCache c(target);
  ASSERT_TRUE(c.load().is_ok());
  EXPECT_EQ(c.entries().size(), size_t(2 + procs * each));
}

TEST(CacheFiles, AFifoInPlaceOfTheCacheIsReportedWithoutBlocking) {
  Folder dir("fifo");
  std::string path = dir.path + "/cache.json";
  ASSERT_EQ(::mkfifo(path.c_str(), 0644), 0);
  TuningCache c(path);
  Status s = c.load();  // would block forever in open() without O_NONBLOCK
  EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument) << s.to_string();
  EXPECT_NE(s.message().find("not a regular file"), std::string::npos) << s.message();
  EXPECT_FALSE(c.store(entry(1, "w", 0)).is_ok());
}

}  // namespace
}  // namespace ksnap::tune

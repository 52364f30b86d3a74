#include "ksnap/tune/cache.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include "ksnap/support/file.h"

namespace ksnap::tune {
namespace {

DeviceFingerprint h200() {
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

CacheEntry entry(uint64_t group, const std::string& w, size_t choice,
                 DeviceFingerprint d = h200()) {
  CacheEntry e;
  e.group_hash = group;
  e.group_name = "matmul";
  e.workload = w;
  e.choice = choice;
  e.choice_name = "v" + std::to_string(choice);
  e.choice_hash = 100 + choice;
  e.decision = "tied";
  e.median_us = {1.5, 2.5};
  e.device = std::move(d);
  return e;
}

std::string temp(const char* tag) {
  return "/tmp/ksnap_cache_test_" + std::to_string(::getpid()) + "_" + tag + ".json";
}

uint64_t hash_now(size_t v) { return 100 + v; }

TEST(Cache, RoundTripsEntries) {
  std::vector<CacheEntry> es = {entry(1, "512x512x512", 4), entry(2, "p2:1024", 0)};
  auto back = parse_cache(serialize_cache(es), "c.json");
  ASSERT_TRUE(back) << back.status().to_string();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0].choice, 4u);
  EXPECT_EQ((*back)[0].device, h200());
  EXPECT_EQ((*back)[1].workload, "p2:1024");
  EXPECT_EQ((*back)[0].median_us, (std::vector<double>{1.5, 2.5}));
}

struct StaleCase {
  const char* what;
  void (*mutate)(DeviceFingerprint&);
  const char* why;
};

TEST(Cache, AnyDeviceMismatchMakesTheEntryStale) {
  const StaleCase cases[] = {
      {"uuid", [](DeviceFingerprint& d) { d.uuid = "GPU-1111"; }, "device uuid"},
      {"name", [](DeviceFingerprint& d) { d.name = "NVIDIA H100"; }, "device name"},
      {"cc", [](DeviceFingerprint& d) { d.cc_minor = 1; }, "compute capability"},
      {"sms", [](DeviceFingerprint& d) { d.sm_count = 114; }, "SM count"},
      {"driver", [](DeviceFingerprint& d) { d.driver_version = 12080; }, "driver version"},
      {"cuda", [](DeviceFingerprint& d) { d.cuda_version = 12040; }, "CUDA version"},
      {"lib", [](DeviceFingerprint& d) { d.library_version = "old"; }, "library version"},
  };
  std::string path = temp("stale");
  std::remove(path.c_str());
  TuningCache c(path);
  ASSERT_TRUE(c.store(entry(7, "w", 1)).is_ok());
  for (const auto& k : cases) {
    DeviceFingerprint d = h200();
    k.mutate(d);
    CacheLookup l = c.lookup(7, "w", d, hash_now);
    EXPECT_FALSE(l.entry) << k.what;
    EXPECT_NE(l.why_not.find(k.why), std::string::npos) << k.what << ": " << l.why_not;
  }
  EXPECT_TRUE(c.lookup(7, "w", h200(), hash_now).entry);
  EXPECT_FALSE(c.lookup(8, "w", h200(), hash_now).entry);  // other binaries
  auto changed = c.lookup(7, "w", h200(), [](size_t v) { return 999 + v; });
  EXPECT_FALSE(changed.entry);
  EXPECT_EQ(changed.why_not, "stale: variant binary changed");
  std::remove(path.c_str());
  std::remove((path + ".lock").c_str());
}

TEST(Cache, StoreMergesAndKeepsOtherDevices) {
  std::string path = temp("merge");
  std::remove(path.c_str());
  TuningCache a(path), b(path);
  ASSERT_TRUE(a.store(entry(1, "w", 0)).is_ok());
  DeviceFingerprint other = h200();
  other.uuid = "GPU-2222";
  ASSERT_TRUE(b.store(entry(1, "w", 3, other)).is_ok());  // b never loaded: merges from disk
  ASSERT_TRUE(b.store(entry(1, "w", 2)).is_ok());         // replaces a's entry, same slot
  TuningCache c(path);
  ASSERT_TRUE(c.load().is_ok());
  ASSERT_EQ(c.entries().size(), 2u);
  EXPECT_EQ(c.lookup(1, "w", h200(), hash_now).entry->choice, 2u);
  EXPECT_EQ(c.lookup(1, "w", other, hash_now).entry->choice, 3u);
  std::remove(path.c_str());
  std::remove((path + ".lock").c_str());
}

TEST(Cache, CorruptOrTruncatedFilesAreReportedAndIgnored) {
  std::string good = serialize_cache({entry(1, "w", 0), entry(2, "w", 1)});
  const std::pair<std::string, ErrorCode> cases[] = {
      {good.substr(0, good.size() / 2), ErrorCode::kParseError},  // truncated
      {"\x01\x02garbage", ErrorCode::kParseError},
      {"{\"format\": \"other\"}", ErrorCode::kCorrupt},
      {"{\"format\": \"ksnap-tune-cache\", \"version\": 9, \"entries\": []}",
       ErrorCode::kParseError},
      {"{\"format\": \"ksnap-tune-cache\", \"version\": 1,\n \"entries\": [{\"group\": \"zz\"}]}",
       ErrorCode::kCorrupt},
  };
  std::string path = temp("corrupt");
  for (const auto& [text, code] : cases) {
    ASSERT_TRUE(write_file_atomic(path, text).is_ok());
    TuningCache c(path);
    Status s = c.load();
    EXPECT_FALSE(s.is_ok());
    EXPECT_EQ(s.code(), code) << s.to_string();
    EXPECT_EQ(s.location().file, path);
    EXPECT_TRUE(c.entries().empty());
    EXPECT_FALSE(c.lookup(1, "w", h200(), hash_now).entry);
    // What a write does to these files: cache_files_test.cc (never overwritten,
    // malformed entries kept).
  }
  auto bad = parse_cache(cases[4].first, "x.json");
  EXPECT_EQ(bad.status().location().line, 2u);
  std::remove(path.c_str());
  std::remove((path + ".lock").c_str());
}

TEST(Cache, ConcurrentProcessesLoseNothing) {
  std::string path = temp("procs");
  std::remove(path.c_str());
  const int procs = 6, each = 15;
  std::vector<pid_t> kids;
  for (int p = 0; p < procs; ++p) {
    pid_t pid = fork();
    if (pid == 0) {
      TuningCache c(path);
      for (int i = 0; i < each; ++i)
        if (!c.store(entry(p, "w" + std::to_string(i), i % 3)).is_ok()) _exit(1);
      _exit(0);
    }
    kids.push_back(pid);
  }
  for (pid_t k : kids) {
    int st = 0;
    waitpid(k, &st, 0);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  TuningCache c(path);
  ASSERT_TRUE(c.load().is_ok());
  EXPECT_EQ(c.entries().size(), size_t(procs * each));
  std::remove(path.c_str());
  std::remove((path + ".lock").c_str());
}

TEST(Cache, MissingFileIsAnEmptyCache) {
  TuningCache c("/nonexistent/dir/cache.json");
  EXPECT_TRUE(c.load().is_ok());
  EXPECT_FALSE(c.store(entry(1, "w", 0)).is_ok());  // cannot create: an error, no crash
}

}  // namespace
}  // namespace ksnap::tune

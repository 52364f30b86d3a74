// `ksnap tune replay` / `ksnap tune cache` through the real executable
// (skipped when the CLI is not built, e.g. before the diff engine links).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "ksnap/support/file.h"

namespace {

struct CmdResult {
  int rc = -1;
  std::string out;
};

CmdResult run(const std::string& args) {
  CmdResult r;
  FILE* p = ::popen((std::string(KSNAP_BINARY) + " " + args + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int st = ::pclose(p);
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

TEST(TuneCommand, ReplayTextJsonAndErrors) {
  if (!ksnap::is_regular_file(KSNAP_BINARY)) GTEST_SKIP() << "no " << KSNAP_BINARY;
  std::string path = "/tmp/ksnap_tune_cmd_" + std::to_string(::getpid()) + ".json";
  std::string text = "{\"shapes\": [{\"shape\": [4, 4], \"samples_us\": [";
  for (int v = 0; v < 3; ++v) {
    text += v ? ",[" : "[";
    for (int i = 0; i < 50; ++i) text += (i ? "," : "") + std::to_string(100 + 40 * v + i % 7);
    text += "]";
  }
  text += "]}]}";
  ASSERT_TRUE(ksnap::write_file_atomic(path, text).is_ok());
  CmdResult t = run("tune replay " + path + " --trials 50");
  EXPECT_EQ(t.rc, 0) << t.out;
  EXPECT_NE(t.out.find("4x4"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("100.0%"), std::string::npos) << t.out;
  CmdResult j = run("tune replay " + path + " --trials 20 --format json");
  EXPECT_EQ(j.rc, 0);
  EXPECT_NE(j.out.find("\"hit_rate\": 1.0"), std::string::npos) << j.out;
  ASSERT_TRUE(ksnap::write_file_atomic(path, "{\"shapes\": [\n{\"samples_us\": [[1, -1]]}]}").is_ok());
  CmdResult bad = run("tune replay " + path);
  EXPECT_EQ(bad.rc, 2);
  EXPECT_NE(bad.out.find(path + ":2"), std::string::npos) << bad.out;
  CmdResult missing = run("tune replay /nonexistent.json");
  EXPECT_EQ(missing.rc, 2);
  ASSERT_TRUE(ksnap::write_file_atomic(path, "{\"format\": \"ksnap-tune-cache\", \"version\": 1,").is_ok());
  CmdResult cache = run("tune cache " + path);
  EXPECT_EQ(cache.rc, 2) << cache.out;
  EXPECT_NE(cache.out.find("invalid JSON"), std::string::npos) << cache.out;
  std::remove(path.c_str());
}

}  // namespace

// Crash safety of record (record.cc): a child process records commit after
// commit and is SIGKILLed at a random moment, round after round; after every
// kill the store must verify, and every commit must be either fully there
// (every stage text as recorded) or absent. Also: a reader running beside a
// writer only ever sees whole commits.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <random>
#include <thread>

#include "ksnap/build/build.h"
#include "ksnap/store/maintenance.h"
#include "ksnap/store/store.h"
#include "store/test_util.h"

namespace ksnap::store {
namespace {

using testing::corpus_build;
using testing::ScratchDir;

constexpr int kPerChild = 6;  // commits a child tries to record before exiting

std::string commit_sha(int round, int j) {
  char buf[41];
  std::snprintf(buf, sizeof buf, "%040x", round * 1000 + j + 1);
  return buf;
}

/// The build commit (round, j) records: one of the corpus builds, plus a
/// "crashpad" stage of pseudo-random text per variant so that every commit
/// writes new blobs (stored by raw hash: no lexer for that stage).
build::Build commit_build(const std::vector<build::Build>& builds, int round, int j) {
  build::Build b = builds[static_cast<size_t>(round + j) % builds.size()];
  std::mt19937_64 rng(static_cast<uint64_t>(round) * 7919 + static_cast<uint64_t>(j));
  for (build::Variant& v : b.variants) {
    std::string pad;
    for (int i = 0; i < 3000; ++i) pad += std::to_string(rng() % 100000) + (i % 16 ? " " : "\n");
    v.stages.push_back(build::StageFile{"crashpad", v.cache_dir + "/pad",
                                        std::make_shared<const std::string>(std::move(pad))});
  }
  return b;
}

[[noreturn]] void child_records(const std::string& path, const std::vector<build::Build>& builds,
                                int round) {
  auto s = Store::open(path, true);
  if (!s) ::_exit(3);
  for (int j = 0; j < kPerChild; ++j) {
    RecordOptions o;
    o.sha = commit_sha(round, j);
    if (j) o.parents = {commit_sha(round, j - 1)};
    if (!s->record(commit_build(builds, round, j), o)) ::_exit(4);
  }
  ::_exit(0);
}

/// Every recorded commit (of `round`, or all for -1) loads and matches what
/// was recorded, stage by stage; *seen = number of recorded commits.
void expect_whole_commits(Store& s, const std::vector<build::Build>& builds, int* seen,
                          int round = -1) {
  auto commits = s.commits();
  ASSERT_TRUE(commits) << commits.status().to_string();
  *seen = static_cast<int>(commits->size());
  for (const CommitInfo& c : *commits) {
    int id = std::stoi(c.sha, nullptr, 16) - 1;
    if (round >= 0 && id / 1000 != round) continue;
    build::Build want = commit_build(builds, id / 1000, id % 1000);
    auto got = s.load(c.sha);
    ASSERT_TRUE(got) << c.sha << ": " << got.status().to_string();
    ASSERT_EQ(got->variants.size(), want.variants.size()) << c.sha;
    for (size_t v = 0; v < want.variants.size(); ++v) {
      ASSERT_EQ(got->variants[v].stages.size(), want.variants[v].stages.size()) << c.sha;
      for (size_t k = 0; k < want.variants[v].stages.size(); ++k) {
        auto a = build::read_stage(want.variants[v].stages[k]);
        auto b = build::read_stage(got->variants[v].stages[k]);
        ASSERT_TRUE(a && b);
        // The store keeps one text per normalized form: what comes back
        // normalizes like what was recorded (raw bytes may be an earlier spelling).
        const std::string& stage = want.variants[v].stages[k].stage;
        ASSERT_EQ(blob_id_for(stage, *a, nullptr), blob_id_for(stage, *b, nullptr))
            << c.sha << " " << got->variants[v].stages[k].path;
      }
    }
  }
}

std::vector<build::Build> load_corpus() {
  std::vector<build::Build> out;
  for (const char* name : {"base", "noise", "no_licm", "fusion_off"}) {
    std::string dir = corpus_build(name);
    if (dir.empty()) continue;
    auto b = build::load_build(dir);
    if (b) out.push_back(std::move(*b));
  }
  return out;
}

TEST(CrashTest, KilledRecordNeverCorruptsTheStore) {
  std::vector<build::Build> builds = load_corpus();
  if (builds.size() < 4) GTEST_SKIP() << "no corpus";
  ScratchDir dir;
  const std::string path = dir.file("h.db");

  // How long one child run takes, to spread the kills over all of it.
  auto t0 = std::chrono::steady_clock::now();
  pid_t probe = ::fork();
  ASSERT_GE(probe, 0);
  if (probe == 0) child_records(dir.file("probe.db"), builds, 999);
  int status = 0;
  ::waitpid(probe, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "probe child failed";
  auto full_us =
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0)
          .count();

  std::mt19937 rng(20241201);
  const int rounds = 40;
  int killed_midway = 0, last_seen = 0;
  for (int round = 0; round < rounds; ++round) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) child_records(path, builds, round);
    // Later rounds write fewer blobs (the corpus stages are stored by then)
    // and run faster than the probe: aim the kills at the first half.
    std::uniform_int_distribution<long> delay(0, full_us / 2);
    std::this_thread::sleep_for(std::chrono::microseconds(delay(rng)));
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    killed_midway += WIFSIGNALED(status) ? 1 : 0;
    if (WIFEXITED(status)) {
      ASSERT_EQ(WEXITSTATUS(status), 0) << "child failed in round " << round;
    }

    auto s = Store::open(path);
    if (!s && s.status().code() == ErrorCode::kNotFound) continue;  // killed before creating it
    ASSERT_TRUE(s) << "round " << round << ": " << s.status().to_string();
    auto r = verify(*s);
    ASSERT_TRUE(r) << r.status().to_string();
    ASSERT_TRUE(r->ok()) << "round " << round << ": " << r->problems[0];
    int seen = 0;
    expect_whole_commits(*s, builds, &seen, round);
    if (::testing::Test::HasFatalFailure()) return;
    EXPECT_GE(seen, last_seen) << "a committed record disappeared";
    last_seen = seen;
  }
  auto s = Store::open(path);
  ASSERT_TRUE(s);
  int seen = 0;
  expect_whole_commits(*s, builds, &seen);
  EXPECT_EQ(seen, last_seen);
  EXPECT_GT(killed_midway, rounds / 2) << "most children should die mid-run";
  EXPECT_GT(last_seen, 0) << "some records should have completed";
  std::printf("crash test: %d rounds, %d killed mid-run, %d whole commits survive, run %ld us\n",
              rounds, killed_midway, last_seen, static_cast<long>(full_us));
}

TEST(CrashTest, ReadersBesideAWriterSeeOnlyWholeCommits) {
  std::vector<build::Build> builds = load_corpus();
  if (builds.size() < 4) GTEST_SKIP() << "no corpus";
  ScratchDir dir;
  const std::string path = dir.file("h.db");
  { ASSERT_TRUE(Store::open(path, true)); }
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) child_records(path, builds, 0);
  int reads = 0, max_seen = 0;
  int status = 0;
  for (;;) {
    bool done = ::waitpid(pid, &status, WNOHANG) == pid;
    auto s = Store::open(path);
    ASSERT_TRUE(s) << s.status().to_string();
    int seen = 0;
    expect_whole_commits(*s, builds, &seen);
    if (::testing::Test::HasFatalFailure()) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return;
    }
    max_seen = std::max(max_seen, seen);
    ++reads;
    if (done) break;
  }
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(max_seen, kPerChild);
  EXPECT_GT(reads, 1);
}

}  // namespace
}  // namespace ksnap::store

// Crash safety of record (record.cc): a child process records commit after
// commit and is SIGKILLed at a random moment, round after round; after every
// kill the store must verify, and every commit must be either fully there
// (every stage text as recorded) or absent. Also: a reader running beside a
// writer only ever sees whole commits. (The same with the real `ksnap record`
// binary, and a full disk: robustness_test.cc.)
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
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
                                        std::make_shared<const std::string>(std::move(pad)), {}, {}});
  }
  return b;
}

/// Records the commits of `round`; after each one, writes one byte to
/// `progress_fd` (when >= 0) so that the parent can aim its kill.
[[noreturn]] void child_records(const std::string& path, const std::vector<build::Build>& builds,
                                int round, int progress_fd = -1) {
  auto s = Store::open(path, true);
  if (!s) ::_exit(3);
  for (int j = 0; j < kPerChild; ++j) {
    RecordOptions o;
    o.sha = commit_sha(round, j);
    if (j) o.parents = {commit_sha(round, j - 1)};
    if (!s->record(commit_build(builds, round, j), o)) ::_exit(4);
    if (progress_fd >= 0 && ::write(progress_fd, "c", 1) != 1) ::_exit(5);
  }
  ::_exit(0);
}

/// Reads child progress bytes until `want` commits are reported (true), the
/// child closes the pipe (false) or `timeout` passes (false). Sets the times
/// each byte arrived.
bool wait_for_commits(int fd, int want, int* seen,
                      std::vector<std::chrono::steady_clock::time_point>* at,
                      std::chrono::seconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (*seen < want) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    char c;
    ssize_t n = ::read(fd, &c, 1);
    if (n <= 0) return false;  // the child exited
    ++*seen;
    at->push_back(std::chrono::steady_clock::now());
  }
  return true;
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
    if (!b) {  // a corpus that is there must load: a loader regression fails here
      ADD_FAILURE() << dir << ": " << b.status().to_string();
      continue;
    }
    out.push_back(std::move(*b));
  }
  return out;
}

TEST(CrashTest, KilledRecordNeverCorruptsTheStore) {
  std::vector<build::Build> builds = load_corpus();
  if (builds.size() < 4) GTEST_SKIP() << "no corpus";
  ScratchDir dir;
  const std::string path = dir.file("h.db");
  using Clock = std::chrono::steady_clock;

  // Kills are aimed by progress, not by wall time measured once (which
  // flaked when the machine's load changed between the probe and the
  // rounds): each round picks a commit j, waits until the child reports j
  // whole commits, then kills after a random fraction of one commit's
  // duration (estimated from the commits this test has watched so far), so
  // the kill lands inside commit j+1 whatever the load.
  double commit_us = 0;
  int watched = 0;
  auto learn = [&](const std::vector<Clock::time_point>& at, Clock::time_point start) {
    for (size_t k = 0; k < at.size(); ++k) {
      double us =
          std::chrono::duration<double, std::micro>(at[k] - (k ? at[k - 1] : start)).count();
      commit_us = (commit_us * watched + us) / (watched + 1);
      ++watched;
    }
  };
  {  // A probe child, run to completion: the first estimate.
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    auto t0 = Clock::now();
    pid_t probe = ::fork();
    ASSERT_GE(probe, 0);
    if (probe == 0) {
      ::close(fds[0]);
      child_records(dir.file("probe.db"), builds, 999, fds[1]);
    }
    ::close(fds[1]);
    int seen = 0;
    std::vector<Clock::time_point> at;
    wait_for_commits(fds[0], kPerChild, &seen, &at, std::chrono::seconds(300));
    ::close(fds[0]);
    int status = 0;
    ::waitpid(probe, &status, 0);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "probe child failed";
    ASSERT_EQ(seen, kPerChild);
    learn(at, t0);
  }

  std::mt19937 rng(20241201);
  const int rounds = 40;
  int killed_midway = 0, last_seen = 0;
  for (int round = 0; round < rounds; ++round) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    auto t0 = Clock::now();
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(fds[0]);
      child_records(path, builds, round, fds[1]);
    }
    ::close(fds[1]);
    const int j = std::uniform_int_distribution<int>(0, kPerChild - 1)(rng);
    int seen = 0;
    std::vector<Clock::time_point> at;
    bool reached = wait_for_commits(fds[0], j, &seen, &at, std::chrono::seconds(300));
    learn(at, t0);
    std::uniform_real_distribution<double> frac(0.0, 1.0);
    std::this_thread::sleep_for(
        std::chrono::microseconds(static_cast<long>(frac(rng) * commit_us)));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ::close(fds[0]);  // after the child is gone: it never dies of SIGPIPE
    killed_midway += WIFSIGNALED(status) ? 1 : 0;
    if (WIFEXITED(status)) {
      ASSERT_EQ(WEXITSTATUS(status), 0) << "child failed in round " << round;
    }
    ASSERT_TRUE(reached || WIFEXITED(status)) << "round " << round << ": no progress in 300 s";

    auto s = Store::open(path);
    if (!s && s.status().code() == ErrorCode::kNotFound) continue;  // killed before creating it
    ASSERT_TRUE(s) << "round " << round << ": " << s.status().to_string();
    auto r = verify(*s);
    ASSERT_TRUE(r) << r.status().to_string();
    ASSERT_TRUE(r->ok()) << "round " << round << ": " << r->problems[0];
    int round_seen = 0;
    expect_whole_commits(*s, builds, &round_seen, round);
    if (::testing::Test::HasFatalFailure()) return;
    EXPECT_GE(round_seen, last_seen) << "a committed record disappeared";
    last_seen = round_seen;
  }
  auto s = Store::open(path);
  ASSERT_TRUE(s);
  int seen = 0;
  expect_whole_commits(*s, builds, &seen);
  EXPECT_EQ(seen, last_seen);
  EXPECT_GT(killed_midway, rounds / 2) << "most children should die mid-run";
  EXPECT_GT(last_seen, 0) << "some records should have completed";
  std::printf(
      "crash test: %d rounds, %d killed mid-run, %d whole commits survive, %.0f us per commit\n",
      rounds, killed_midway, last_seen, commit_us);
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

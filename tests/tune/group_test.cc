#include "ksnap/tune/group.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <set>
#include <thread>
#include <sys/wait.h>
#include <unistd.h>

#include "ksnap/support/file.h"
#include "ksnap/tune/cpu_backend.h"

namespace ksnap::tune {
namespace {

/// Variants that "run" for medians[v] µs (±noise) of fake time.
struct Fixture {
  explicit Fixture(std::vector<double> medians, double noise = 0.02, uint64_t seed = 1)
      : clock(std::make_shared<FakeClock>()), rng(seed) {
    std::vector<CpuVariant> vs;
    for (size_t v = 0; v < medians.size(); ++v) {
      double m = medians[v];
      vs.push_back({"v" + std::to_string(v), [this, m, noise](const Workload&, const ArgPack&) {
                      std::lock_guard<std::mutex> lock(mu);
                      std::normal_distribution<double> n(0, noise);
                      clock->advance(m * std::exp(n(rng)));
                    }});
    }
    backend = std::make_shared<CpuBackend>(std::move(vs), clock);
  }
  std::shared_ptr<FakeClock> clock;
  std::mutex mu;
  std::mt19937_64 rng;
  std::shared_ptr<CpuBackend> backend;
};

GroupOptions quiet(Policy p = Policy::kOnline) {
  GroupOptions o;
  o.read_env = false;
  o.policy = p;
  return o;
}

std::string temp_path(const char* tag) {
  return "/tmp/ksnap_tune_test_" + std::to_string(::getpid()) + "_" + tag + ".json";
}

TEST(Group, OnlineExplorationCommitsToTheFastest) {
  Fixture f({300, 100, 200});
  auto g = Group::create(f.backend, quiet());
  ASSERT_TRUE(g) << g.status().to_string();
  Workload w{64, 64};
  size_t calls = 0;
  while (!(*g)->decision(w) && calls < 10000) {
    ASSERT_TRUE((*g)->dispatch(w, ArgPack()).is_ok());
    ++calls;
  }
  ASSERT_TRUE((*g)->decision(w));
  EXPECT_EQ(*(*g)->decision(w), 1u);
  EXPECT_LT(calls, 100u);
  // After commit every call runs the choice, and nothing else.
  size_t before = f.backend->launches(1), other = f.backend->launches(0) + f.backend->launches(2);
  for (int i = 0; i < 50; ++i) ASSERT_TRUE((*g)->dispatch(w, ArgPack()).is_ok());
  EXPECT_EQ(f.backend->launches(1), before + 50);
  EXPECT_EQ(f.backend->launches(0) + f.backend->launches(2), other);
  GroupReport r = (*g)->report();
  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].decision, Decision::kSeparated);
  EXPECT_EQ(r.workloads[0].choice_name, "v1");
  EXPECT_GT(r.workloads[0].regret_us, 0);
  EXPECT_NEAR(r.workloads[0].variants[1].median_us, 100, 5);
  EXPECT_NE(r.to_text().find("reason: separated"), std::string::npos) << r.to_text();
  EXPECT_NE(r.to_json().find("\"ci95_us\""), std::string::npos);
}

TEST(Group, ResultsReadLaterStillDecide) {
  Fixture f({100, 150});
  f.backend->set_result_delay(3);  // events complete three polls after launch
  auto g = Group::create(f.backend, quiet());
  Workload w{1};
  for (int i = 0; i < 200 && !(*g)->decision(w); ++i) ASSERT_TRUE((*g)->dispatch(w, {}).is_ok());
  ASSERT_TRUE((*g)->decision(w));
  EXPECT_EQ(*(*g)->decision(w), 0u);
}

TEST(Group, BucketingSharesDecisions) {
  Fixture f({200, 100});
  GroupOptions o = quiet();
  o.bucketing = Bucketing::pow2();
  auto g = Group::create(f.backend, o);
  for (int i = 0; i < 200 && !(*g)->decision({500}); ++i) ASSERT_TRUE((*g)->dispatch({500}, {}).is_ok());
  EXPECT_EQ((*g)->decision({300}), std::optional<size_t>(1));  // same bucket, p2:512
  EXPECT_FALSE((*g)->decision({513}));                           // p2:1024
  EXPECT_EQ(Bucketing::pow2().label({500, 3}), "p2:512x4");
}

TEST(Group, CaptureNeverTimesAndRunsTheDefault) {
  Fixture f({200, 100});
  GroupOptions o = quiet();
  o.default_variant = 0;
  auto g = Group::create(f.backend, o);
  f.backend->set_capturing(true);
  for (int i = 0; i < 20; ++i) ASSERT_TRUE((*g)->dispatch({8}, {}).is_ok());
  EXPECT_EQ(f.backend->launches(0), 20u);
  EXPECT_EQ((*g)->report().workloads[0].explore_launches, 0u);
  EXPECT_FALSE((*g)->decision({8}));
}

TEST(Group, ForceAndDisable) {
  Fixture f({200, 100, 300});
  auto g = Group::create(f.backend, quiet());
  ASSERT_TRUE((*g)->force(2).is_ok());
  for (int i = 0; i < 5; ++i) ASSERT_TRUE((*g)->dispatch({1}, {}).is_ok());
  EXPECT_EQ(f.backend->launches(2), 5u);
  EXPECT_FALSE((*g)->force(7).is_ok());
  ASSERT_TRUE((*g)->force(std::nullopt).is_ok());
  (*g)->set_tuning_enabled(false);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE((*g)->dispatch({1}, {}).is_ok());
  EXPECT_EQ(f.backend->launches(0), 5u);  // the default variant, no exploration
  EXPECT_FALSE((*g)->decision({1}));
}

TEST(Group, EnvironmentControls) {
  Fixture f({200, 100, 300});
  setenv("KSNAP_TUNE_FORCE", "other:0,envgroup:v2", 1);
  GroupOptions o;
  o.name = "envgroup";
  auto g = Group::create(f.backend, o);
  unsetenv("KSNAP_TUNE_FORCE");
  ASSERT_TRUE(g) << g.status().to_string();
  ASSERT_TRUE((*g)->dispatch({1}, {}).is_ok());
  EXPECT_EQ(f.backend->launches(2), 1u);
  setenv("KSNAP_TUNE_FORCE", "nope", 1);
  auto bad = Group::create(f.backend, o);
  unsetenv("KSNAP_TUNE_FORCE");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.status().message().find("no variant 'nope'"), std::string::npos);
  setenv("KSNAP_TUNE_BUDGET", "zero", 1);
  auto bad2 = Group::create(f.backend, o);
  unsetenv("KSNAP_TUNE_BUDGET");
  ASSERT_FALSE(bad2);
  EXPECT_NE(bad2.status().message().find("KSNAP_TUNE_BUDGET"), std::string::npos);
}

TEST(Group, AheadOfTimeOnSyntheticDataRestoresNothingAndDecides) {
  Fixture f({200, 100, 300});
  GroupOptions o = quiet(Policy::kAheadOfTime);
  o.layout.buffer("x", Role::kInput, Fill::kF32, [](const Workload& w) { return 4 * w[0]; });
  o.layout.scalar_i32("n", [](const Workload& w) { return w[0]; });
  auto g = Group::create(f.backend, o);
  ASSERT_TRUE((*g)->tune({256}).is_ok());
  EXPECT_EQ((*g)->decision({256}), std::optional<size_t>(1));
  // Untuned workloads run the default without exploring.
  size_t before = f.backend->launches(0);
  ASSERT_TRUE((*g)->dispatch({512}, {}).is_ok());
  EXPECT_EQ(f.backend->launches(0), before + 1);
  EXPECT_FALSE((*g)->decision({512}));
  GroupOptions none = quiet(Policy::kAheadOfTime);
  auto g2 = Group::create(f.backend, none);
  EXPECT_EQ((*g2)->tune({1}).code(), ErrorCode::kInvalidArgument);  // no layout
}

TEST(Group, AheadOfTimeOnCallerBuffersRestoresOutputs) {
  // An in-place kernel: every launch increments the buffer.
  auto clock = std::make_shared<FakeClock>();
  std::vector<CpuVariant> vs;
  for (double us : {50.0, 20.0})
    vs.push_back({"inc" + std::to_string(int(us)), [clock, us](const Workload&, const ArgPack& a) {
                    *a.pointer<int>(0) += 1;
                    clock->advance(us);
                  }});
  auto be = std::make_shared<CpuBackend>(std::move(vs), clock);
  GroupOptions o = quiet(Policy::kAheadOfTime);
  o.layout.buffer("acc", Role::kInOut, Fill::kZero, [](const Workload&) { return 4; });
  auto g = Group::create(be, o);
  int acc = 41;
  ArgPack args;
  args.ptr(&acc);
  ASSERT_TRUE((*g)->tune({1}, args).is_ok());
  EXPECT_EQ(acc, 41) << "tuning must leave the caller's in-out buffer as it was";
  EXPECT_EQ((*g)->decision({1}), std::optional<size_t>(1));
  ASSERT_TRUE((*g)->dispatch({1}, args).is_ok());
  EXPECT_EQ(acc, 42);
}

TEST(Group, AtLoadTunesDeclaredWorkloads) {
  Fixture f({100, 200});
  GroupOptions o = quiet(Policy::kAtLoad);
  o.layout.scalar_i32("n", [](const Workload& w) { return w[0]; });
  o.load_workloads = {{1}, {2}, {3}};
  auto g = Group::create(f.backend, o);
  ASSERT_TRUE(g) << g.status().to_string();
  for (int64_t n : {1, 2, 3}) EXPECT_EQ((*g)->decision({n}), std::optional<size_t>(0));
}

TEST(Group, CacheIsReusedAndStaleEntriesAreNot) {
  std::string path = temp_path("cache");
  std::remove(path.c_str());
  {
    Fixture f({300, 100});
    GroupOptions o = quiet();
    o.cache_path = path;
    auto g = Group::create(f.backend, o);
    for (int i = 0; i < 200 && !(*g)->decision({7}); ++i) ASSERT_TRUE((*g)->dispatch({7}, {}).is_ok());
    ASSERT_EQ((*g)->decision({7}), std::optional<size_t>(1));
  }
  {  // Same binaries, same device: the decision is loaded, nothing explored.
    Fixture f({300, 100});
    GroupOptions o = quiet();
    o.cache_path = path;
    auto g = Group::create(f.backend, o);
    ASSERT_TRUE((*g)->dispatch({7}, {}).is_ok());
    EXPECT_EQ(f.backend->launches(1), 1u);
    EXPECT_EQ(f.backend->launches(0), 0u);
    EXPECT_EQ((*g)->report().workloads[0].decision, Decision::kCached);
  }
  {  // Another driver: stale, re-explored.
    Fixture f({300, 100});
    DeviceFingerprint d = f.backend->device();
    d.driver_version += 1;
    f.backend->set_device(d);
    GroupOptions o = quiet();
    o.cache_path = path;
    auto g = Group::create(f.backend, o);
    ASSERT_TRUE((*g)->dispatch({7}, {}).is_ok());
    EXPECT_FALSE((*g)->decision({7}));
    EXPECT_NE((*g)->report().workloads[0].reason.find("driver version differs"), std::string::npos)
        << (*g)->report().workloads[0].reason;
  }
  std::remove(path.c_str());
  std::remove((path + ".lock").c_str());
}

TEST(Group, ConcurrentDispatchIsSafe) {
  Fixture f({120, 100, 140, 160});
  auto g = Group::create(f.backend, quiet());
  std::vector<std::thread> ts;
  for (int t = 0; t < 8; ++t)
    ts.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) ASSERT_TRUE((*g)->dispatch({t % 3}, {}).is_ok());
    });
  for (auto& t : ts) t.join();
  // One fake clock is shared by 8 threads, so a launch's measured time may
  // include other threads' launches: which variant wins is not defined here
  // (single-threaded tests check that); every workload must still commit to
  // some variant, and no launch may be lost.
  for (int64_t k = 0; k < 3; ++k) {
    auto d = (*g)->decision({k});
    ASSERT_TRUE(d.has_value()) << k;
    EXPECT_LT(*d, 4u) << k;
  }
  size_t total = 0;
  for (size_t v = 0; v < 4; ++v) total += f.backend->launches(v);
  EXPECT_EQ(total, 16000u);
}

TEST(Group, ManyWorkloadsOverflowTheTable) {
  Fixture f({200, 100});
  GroupOptions o = quiet();
  o.table_capacity = 4;
  auto g = Group::create(f.backend, o);
  for (int64_t k = 0; k < 20; ++k)
    for (int i = 0; i < 200 && !(*g)->decision({k}); ++i) ASSERT_TRUE((*g)->dispatch({k}, {}).is_ok());
  for (int64_t k = 0; k < 20; ++k) EXPECT_EQ((*g)->decision({k}), std::optional<size_t>(1));
}

TEST(Group, RejectsBadOptions) {
  Fixture f({1, 2});
  GroupOptions o = quiet();
  o.default_variant = 5;
  EXPECT_EQ(Group::create(f.backend, o).status().code(), ErrorCode::kInvalidArgument);
  auto empty = std::make_shared<CpuBackend>(std::vector<CpuVariant>{});
  EXPECT_EQ(Group::create(empty, quiet()).status().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace ksnap::tune

namespace ksnap::tune {
namespace {

// Every commit is visible (issue 18): the callback sees the choice, the
// runner-up and its margin and the launches spent, and KSNAP_TUNE_LOG /
// commit_log_path gets the same as one JSON line per commit.
TEST(Group, EveryCommitIsACallbackAndAJsonLine) {
  Fixture f({300, 100, 130});
  GroupOptions o = quiet();
  std::vector<CommitEvent> seen;
  o.on_commit = [&seen](const CommitEvent& e) { seen.push_back(e); };
  o.commit_log_path = temp_path("commit_log");
  std::remove(o.commit_log_path.c_str());
  auto g = Group::create(f.backend, o);
  ASSERT_TRUE(g) << g.status().to_string();
  for (Workload w : {Workload{64, 64}, Workload{128, 128}}) {
    for (size_t calls = 0; !(*g)->decision(w) && calls < 10000; ++calls)
      ASSERT_TRUE((*g)->dispatch(w, ArgPack()).is_ok());
    ASSERT_TRUE((*g)->decision(w));
  }
  ASSERT_EQ(seen.size(), 2u);
  for (const CommitEvent& e : seen) {
    EXPECT_EQ(e.group, "group");
    EXPECT_EQ(e.choice, 1u);
    EXPECT_EQ(e.choice_name, "v1");
    ASSERT_TRUE(e.runner_up.has_value());
    EXPECT_EQ(e.runner_up_name, "v2");
    EXPECT_NEAR(e.margin, 0.30, 0.06);  // 130 vs 100 µs
    EXPECT_GT(e.launches, 0u);
    EXPECT_NE(e.decision, Decision::kExploring);
  }
  EXPECT_NE(seen[0].workload, seen[1].workload);
  auto text = read_binary_file(o.commit_log_path);
  ASSERT_TRUE(text) << text.status().to_string();
  std::vector<std::string> lines;
  for (size_t at = 0, nl; (nl = text->find('\n', at)) != std::string::npos; at = nl + 1)
    lines.push_back(text->substr(at, nl - at));
  ASSERT_EQ(lines.size(), 2u) << *text;
  EXPECT_EQ(lines[0], seen[0].to_json());
  for (const char* key : {"\"choice\":\"v1\"", "\"runner_up\":\"v2\"", "\"margin\":", "\"launches\":",
                          "\"decision\":", "\"workload\":"})
    EXPECT_NE(lines[1].find(key), std::string::npos) << key << " in " << lines[1];
  std::remove(o.commit_log_path.c_str());
}

// An unwritable commit log never stops tuning: the commit still happens.
TEST(Group, AnUnwritableCommitLogDoesNotStopTuning) {
  Fixture f({200, 100});
  GroupOptions o = quiet();
  o.commit_log_path = "/nonexistent/dir/commits.jsonl";
  auto g = Group::create(f.backend, o);
  ASSERT_TRUE(g);
  Workload w{8, 8};
  for (size_t calls = 0; !(*g)->decision(w) && calls < 10000; ++calls)
    ASSERT_TRUE((*g)->dispatch(w, ArgPack()).is_ok());
  ASSERT_TRUE((*g)->decision(w));
  EXPECT_EQ(*(*g)->decision(w), 1u);
}

}  // namespace
}  // namespace ksnap::tune

namespace ksnap::tune {
namespace {

/// Tunes workload `w` on `g` until it commits; the choice.
size_t tune_until_committed(Group& g, const Workload& w) {
  for (size_t calls = 0; !g.decision(w) && calls < 20000; ++calls)
    if (!g.dispatch(w, ArgPack()).is_ok()) return SIZE_MAX;
  return g.decision(w) ? *g.decision(w) : SIZE_MAX;
}

// Two processes (here: two groups created before either decided) sharing a
// cache file, whose races would choose differently: the second adopts the
// first one's decision (issue 18: "independent processes agree").
TEST(Group, ASharedCacheFileMakesGroupsAgree) {
  const std::string cache = temp_path("shared_decisions");
  std::remove(cache.c_str());
  Fixture fa({100, 200}), fb({200, 100});  // A's race picks v0, B's would pick v1
  GroupOptions o = quiet();
  o.cache_path = cache;
  auto a = Group::create(fa.backend, o);
  auto b = Group::create(fb.backend, o);
  ASSERT_TRUE(a && b);
  Workload w{32, 32};
  EXPECT_EQ(tune_until_committed(**a, w), 0u);
  EXPECT_EQ(tune_until_committed(**b, w), 0u);
  GroupReport rb = (*b)->report();
  ASSERT_EQ(rb.workloads.size(), 1u);
  EXPECT_EQ(rb.workloads[0].decision, Decision::kAdopted);
  EXPECT_NE(rb.workloads[0].reason.find("already held v0"), std::string::npos) << rb.workloads[0].reason;
  EXPECT_NE(rb.workloads[0].reason.find("this race chose v1"), std::string::npos) << rb.workloads[0].reason;
  // Without adoption, each keeps its own race's choice.
  std::remove(cache.c_str());
  o.adopt_shared_decisions = false;
  auto c = Group::create(fa.backend, o);
  auto d = Group::create(fb.backend, o);
  EXPECT_EQ(tune_until_committed(**c, w), 0u);
  EXPECT_EQ(tune_until_committed(**d, w), 1u);
  std::remove(cache.c_str());
  std::remove((cache + ".lock").c_str());
}

// The same with real processes tuning at once (fork): every one ends on the
// same variant, whichever stored first.
TEST(Group, ConcurrentProcessesAgreeThroughTheCacheFile) {
  const std::string cache = temp_path("agree_procs");
  std::remove(cache.c_str());
  const int procs = 4;
  std::vector<pid_t> kids;
  std::vector<std::string> outs;
  for (int p = 0; p < procs; ++p) {
    outs.push_back(temp_path(("agree_out_" + std::to_string(p)).c_str()));
    pid_t pid = fork();
    if (pid == 0) {
      // Odd processes see v1 faster, even ones v0.
      Fixture f(p % 2 ? std::vector<double>{200, 100} : std::vector<double>{100, 200}, 0.02, 7 + p);
      GroupOptions o = quiet();
      o.cache_path = cache;
      auto g = Group::create(f.backend, o);
      if (!g) _exit(2);
      size_t choice = tune_until_committed(**g, Workload{16, 16});
      FILE* out = std::fopen(outs.back().c_str(), "w");
      if (!out) _exit(3);
      std::fprintf(out, "%zu", choice);
      std::fclose(out);
      _exit(0);
    }
    kids.push_back(pid);
  }
  for (pid_t k : kids) {
    int st = 0;
    waitpid(k, &st, 0);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << st;
  }
  std::set<std::string> choices;
  for (const std::string& o : outs) {
    auto t = read_binary_file(o);
    ASSERT_TRUE(t) << o;
    choices.insert(*t);
    std::remove(o.c_str());
  }
  EXPECT_EQ(choices.size(), 1u) << "processes disagree";
  EXPECT_TRUE(choices.count("0") || choices.count("1"));
  std::remove(cache.c_str());
  std::remove((cache + ".lock").c_str());
}

// The agreement hook (rank 0 decides, the others adopt): what it returns is
// committed, as "adopted"; an index out of range is ignored.
TEST(Group, TheAgreementHookDecides) {
  Fixture f({100, 300, 200});
  GroupOptions o = quiet();
  std::vector<size_t> proposals;
  o.agree = [&proposals](const CommitEvent& e) -> std::optional<size_t> {
    proposals.push_back(e.choice);
    return e.workload == "8x8" ? std::optional<size_t>(2) : std::optional<size_t>(99);
  };
  auto g = Group::create(f.backend, o);
  ASSERT_TRUE(g);
  EXPECT_EQ(tune_until_committed(**g, Workload{8, 8}), 2u);
  EXPECT_EQ(tune_until_committed(**g, Workload{4, 4}), 0u);  // 99: ignored
  ASSERT_EQ(proposals.size(), 2u);
  EXPECT_EQ(proposals[0], 0u);
  GroupReport r = (*g)->report();
  bool adopted = false;
  for (const auto& wr : r.workloads)
    if (wr.workload == "8x8") {
      adopted = wr.decision == Decision::kAdopted &&
                wr.reason.find("the agreement hook chose v2") != std::string::npos;
    }
  EXPECT_TRUE(adopted);
}

}  // namespace
}  // namespace ksnap::tune

namespace ksnap::tune {
namespace {

// Budgets in time, not only launches (issue 18): near-equal variants would
// race long; explore_budget_ms commits the leader once that much timed
// exploration is spent.
TEST(Group, AnExplorationTimeBudgetCommitsTheLeader) {
  Fixture f({100, 101, 102}, 0.05);
  GroupOptions o = quiet();
  o.explore_budget_ms = 3;
  auto g = Group::create(f.backend, o);
  ASSERT_TRUE(g);
  Workload w{2, 2};
  ASSERT_NE(tune_until_committed(**g, w), SIZE_MAX);
  WorkloadReport r = (*g)->report().workloads.at(0);
  EXPECT_EQ(r.decision, Decision::kBudget) << r.reason;
  EXPECT_NE(r.reason.find("of timed exploration spent"), std::string::npos) << r.reason;
  EXPECT_GE(r.explore_us, 3000);
  EXPECT_LE(r.explore_us, 3000 + 200);  // the budget plus the launch that crossed it
}

// At most max_explore_share of a workload's calls are timed exploration.
TEST(Group, TheExploringShareIsCapped) {
  Fixture f({300, 100, 200});
  GroupOptions o = quiet();
  o.max_explore_share = 0.25;
  auto g = Group::create(f.backend, o);
  ASSERT_TRUE(g);
  Workload w{3, 3};
  size_t calls = 0;
  for (; !(*g)->decision(w) && calls < 20000; ++calls) ASSERT_TRUE((*g)->dispatch(w, ArgPack()).is_ok());
  ASSERT_TRUE((*g)->decision(w));
  EXPECT_EQ(*(*g)->decision(w), 1u);
  WorkloadReport r = (*g)->report().workloads.at(0);
  EXPECT_LE(static_cast<double>(r.explore_launches), 0.25 * static_cast<double>(calls) + 1)
      << r.explore_launches << " of " << calls;
  // Out of range is an error, not a silent default.
  o.max_explore_share = 0;
  EXPECT_FALSE(Group::create(f.backend, o));
  o.max_explore_share = 0.5;
  o.explore_budget_ms = -1;
  EXPECT_FALSE(Group::create(f.backend, o));
}

}  // namespace
}  // namespace ksnap::tune

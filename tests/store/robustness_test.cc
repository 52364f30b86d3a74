// Robustness of the history store against the real `ksnap record` process:
//   - KilledBinary: the binary is SIGKILLed at random points (not an
//     in-process child as in crash_test.cc), round after round; after each
//     kill `ksnap store verify` is clean, every commit that was recorded is
//     whole, and the store stays usable (a last record completes).
//   - DiskFull: a record that runs out of space (a small tmpfs where one
//     can be mounted, and always a file-size limit, RLIMIT_FSIZE) fails with
//     a clean error (exit 2, a message), leaves no corrupt store, and a
//     record succeeds once there is room again.
// Also: store records with deep JSON or bytes that are not UTF-8.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <thread>

#include "ksnap/build/build.h"
#include "ksnap/store/maintenance.h"
#include "ksnap/store/store.h"
#include "ksnap/support/text.h"
#include "store/test_util.h"
#include "store/variant_codec.h"

namespace fs = std::filesystem;

namespace ksnap::store {
namespace {

using testing::corpus_build;
using testing::ScratchDir;

struct Proc {
  int rc = -1;         ///< exit status, or 128 + signal
  std::string err;     ///< stderr
  double seconds = 0;  ///< wall time
};

/// Starts `ksnap args...` with stderr to `err_path`; `fsize_limit` > 0 sets
/// RLIMIT_FSIZE in the child (writes past it fail with EFBIG, SIGXFSZ ignored).
pid_t spawn(const std::vector<std::string>& args, const std::string& err_path,
            rlim_t fsize_limit = 0) {
  pid_t pid = ::fork();
  if (pid != 0) return pid;
  int fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) ::dup2(fd, 2);
  int null = ::open("/dev/null", O_WRONLY);
  if (null >= 0) ::dup2(null, 1);
  if (fsize_limit) {
    ::signal(SIGXFSZ, SIG_IGN);
    rlimit rl{fsize_limit, fsize_limit};
    ::setrlimit(RLIMIT_FSIZE, &rl);
  }
  std::vector<char*> argv{const_cast<char*>(KSNAP_BINARY)};
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execv(KSNAP_BINARY, argv.data());
  ::_exit(127);
}

int wait_rc(pid_t pid) {
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

Proc run(const std::vector<std::string>& args, const std::string& scratch, rlim_t fsize = 0) {
  const std::string err = scratch + "/stderr.txt";
  auto t0 = std::chrono::steady_clock::now();
  Proc p;
  p.rc = wait_rc(spawn(args, err, fsize));
  p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  p.err = slurp(err);
  return p;
}

std::string sha_of(int n) {
  char buf[41];
  std::snprintf(buf, sizeof buf, "%040x", 0xabc000 + n);
  return buf;
}

/// A copy of the corpus `base` capture whose every text stage gains a line
/// that survives normalization, so that each round writes new blobs.
std::string round_capture(const std::string& scratch, int round) {
  const std::string dst = scratch + "/cap" + std::to_string(round);
  if (fs::exists(dst)) return dst;
  fs::copy(corpus_build("base"), dst, fs::copy_options::recursive);
  const std::string n = std::to_string(round);
  for (const auto& e : fs::recursive_directory_iterator(dst + "/cache")) {
    const std::string ext = e.path().extension().string();
    std::string line;
    if (ext == ".ttir" || ext == ".ttgir")
      line = "\"ksnap.round\"() {n = " + n + " : i32} : () -> ()\n";
    if (ext == ".llir") line = "@ksnap_round = global i32 " + n + "\n";
    if (ext == ".ptx") line = ".global .u32 ksnap_round_" + n + ";\n";
    if (!line.empty()) std::ofstream(e.path(), std::ios::app) << line;
  }
  return dst;
}

std::vector<std::string> record_args(const std::string& cap, const std::string& db, int n) {
  return {"record",    cap,
          "--store",   db,
          "--repo",    "",
          "--commit",  sha_of(n),
          "--date",    std::to_string(1700000000 + n),
          "--subject", "round " + std::to_string(n),
          "-q"};
}

/// Every commit in the store loads, and its stages normalize like the
/// capture it was recorded from (capture `cap_of(n)` for commit sha_of(n)).
void expect_whole(const std::string& db, const std::string& scratch, int* count) {
  auto s = Store::open(db);
  ASSERT_TRUE(s) << s.status().to_string();
  auto r = verify(*s);
  ASSERT_TRUE(r) << r.status().to_string();
  ASSERT_TRUE(r->ok()) << r->problems[0];
  auto commits = s->commits();
  ASSERT_TRUE(commits);
  *count = static_cast<int>(commits->size());
  for (const CommitInfo& c : *commits) {
    int n = static_cast<int>(std::stoul(c.sha, nullptr, 16) - 0xabc000);
    auto want = build::load_build(round_capture(scratch, n));
    ASSERT_TRUE(want) << want.status().to_string();
    auto got = s->load(c.sha);
    ASSERT_TRUE(got) << c.sha << ": " << got.status().to_string();
    ASSERT_EQ(got->variants.size(), want->variants.size());
    for (size_t v = 0; v < want->variants.size(); ++v) {
      ASSERT_EQ(got->variants[v].stages.size(), want->variants[v].stages.size());
      for (size_t k = 0; k < want->variants[v].stages.size(); ++k) {
        auto a = build::read_stage(want->variants[v].stages[k]);
        auto b = build::read_stage(got->variants[v].stages[k]);
        ASSERT_TRUE(a && b);
        const std::string& stage = want->variants[v].stages[k].stage;
        ASSERT_EQ(blob_id_for(stage, *a, nullptr), blob_id_for(stage, *b, nullptr)) << c.sha;
      }
    }
  }
}

TEST(StoreRobustness, KilledBinaryNeverCorruptsTheStore) {
  if (corpus_build("base").empty()) GTEST_SKIP() << "no corpus";
  ScratchDir dir;
  const std::string db = dir.file("h.db");
  // The first estimate of one record's duration: a run to completion.
  Proc probe = run(record_args(round_capture(dir.path(), 0), dir.file("probe.db"), 0), dir.path());
  ASSERT_EQ(probe.rc, 0) << probe.err;
  // Kills land uniformly in [0, window]; the window adapts so that both
  // kills mid-run and completions keep happening whatever the load: it
  // grows after a kill and shrinks after a completion.
  double window = probe.seconds * 1.2;
  std::mt19937 rng(4242);
  const int rounds = 30;
  int killed = 0, completed = 0, last_count = 0;
  std::vector<int> finished;
  for (int round = 1; round <= rounds; ++round) {
    std::string cap = round_capture(dir.path(), round);
    pid_t pid = spawn(record_args(cap, db, round), dir.file("stderr.txt"));
    double delay = std::uniform_real_distribution<double>(0, window)(rng);
    std::this_thread::sleep_for(std::chrono::duration<double>(delay));
    ::kill(pid, SIGKILL);
    int rc = wait_rc(pid);
    if (rc == 128 + SIGKILL) {
      ++killed;
      window *= 1.08;
    } else {
      ASSERT_EQ(rc, 0) << "round " << round << ": " << slurp(dir.file("stderr.txt"));
      ++completed;
      finished.push_back(round);
      window *= 0.9;
    }
    if (!fs::exists(db)) continue;  // killed before the store was created
    Proc v = run({"store", "verify", "--store", db}, dir.path());
    ASSERT_EQ(v.rc, 0) << "round " << round << ": ksnap store verify: " << v.err;
    int count = 0;
    expect_whole(db, dir.path(), &count);
    if (HasFatalFailure()) return;
    EXPECT_GE(count, last_count) << "a recorded commit disappeared";
    last_count = count;
  }
  // Still usable: a record runs to completion and verifies.
  Proc last = run(record_args(round_capture(dir.path(), 99), db, 99), dir.path());
  ASSERT_EQ(last.rc, 0) << last.err;
  Proc v = run({"store", "verify", "--store", db}, dir.path());
  EXPECT_EQ(v.rc, 0) << v.err;
  int count = 0;
  expect_whole(db, dir.path(), &count);
  // Every run that exited 0 is there; a run killed after its commit but
  // before it exited may be there too (whole, as checked above).
  auto s = Store::open(db);
  ASSERT_TRUE(s);
  for (int n : finished)
    EXPECT_TRUE(s->load(sha_of(n))) << "round " << n << " finished but is missing";
  EXPECT_TRUE(s->load(sha_of(99)));
  EXPECT_GE(count, completed + 1);
  EXPECT_LE(count, rounds + 1);
  EXPECT_GE(killed, rounds / 4) << "kills should land mid-run";
  EXPECT_GE(completed, 1);
  std::printf("killed-binary test: %d rounds, %d killed, %d completed, window %.3f s\n", rounds,
              killed, completed, window);
}

/// A clean failure: exit 2 with a message, not a signal or a sanitizer abort.
void expect_clean_failure(const Proc& p) {
  EXPECT_EQ(p.rc, 2) << p.err;
  EXPECT_NE(p.err.find("ksnap: "), std::string::npos) << p.err;
  EXPECT_EQ(p.err.find("Sanitizer"), std::string::npos) << p.err;
}

/// Records until a write fails (the limit is hit), then checks the store.
void fill_then_check(const std::string& db, const std::string& scratch, rlim_t fsize,
                     const std::function<void()>& make_room) {
  Proc first = run(record_args(round_capture(scratch, 0), db, 0), scratch);
  ASSERT_EQ(first.rc, 0) << first.err;
  int failed_at = -1;
  for (int round = 1; round <= 40 && failed_at < 0; ++round) {
    Proc p = run(record_args(round_capture(scratch, round), db, round), scratch, fsize);
    if (p.rc != 0) {
      expect_clean_failure(p);
      failed_at = round;
      std::printf("out of space at record %d: %s", round, p.err.c_str());
    }
  }
  ASSERT_GT(failed_at, 0) << "never ran out of space";
  // Whatever was recorded before is whole; the failed commit is absent.
  int count = 0;
  expect_whole(db, scratch, &count);
  EXPECT_EQ(count, failed_at);
  make_room();
  Proc v = run({"store", "verify", "--store", db}, scratch);
  EXPECT_EQ(v.rc, 0) << v.err;
  Proc again = run(record_args(round_capture(scratch, failed_at), db, failed_at), scratch);
  EXPECT_EQ(again.rc, 0) << again.err;
  expect_whole(db, scratch, &count);
  EXPECT_EQ(count, failed_at + 1);
}

TEST(StoreRobustness, FileSizeLimitGivesACleanErrorAndNoCorruptStore) {
  if (corpus_build("base").empty()) GTEST_SKIP() << "no corpus";
  ScratchDir dir;
  const std::string db = dir.file("h.db");
  // The first record makes the store ~100 KiB; the limit lets a few more in.
  fill_then_check(db, dir.path(), 600 * 1024, [] {});
}

TEST(StoreRobustness, FullDiskGivesACleanErrorAndNoCorruptStore) {
  if (corpus_build("base").empty()) GTEST_SKIP() << "no corpus";
  ScratchDir dir;
  const std::string mnt = dir.file("tmpfs");
  fs::create_directories(mnt);
  if (::mount("ksnap-test", mnt.c_str(), "tmpfs", 0, "size=4m") != 0)
    GTEST_SKIP() << "cannot mount a tmpfs here (" << std::strerror(errno)
                 << "; needs root with CAP_SYS_ADMIN): the full-disk case is covered by "
                    "FileSizeLimitGivesACleanErrorAndNoCorruptStore";
  struct Unmount {
    std::string at;
    ~Unmount() { ::umount2(at.c_str(), MNT_DETACH); }
  } unmount{mnt};
  // Leave ~1 MiB of the 4 MiB free: a few records fit, then ENOSPC.
  {
    std::ofstream filler(mnt + "/filler", std::ios::binary);
    std::string block(64 * 1024, 'x');
    for (int i = 0; i < 48; ++i) filler << block;
  }
  const std::string db = mnt + "/h.db";
  fill_then_check(db, dir.path(), 0, [&] { fs::remove(mnt + "/filler"); });
  ASSERT_FALSE(HasFatalFailure());
  std::printf("full-disk test: ran on a 4 MiB tmpfs\n");
}

TEST(StoreRobustness, RecordsWithDeepJsonOrBadBytesDecodeCleanly) {
  const std::string deep =
      "{\"kernel\": " + std::string(50000, '[') + std::string(50000, ']') + "}";
  auto d = decode_variant(deep, "id", "variant record x");
  ASSERT_FALSE(d);
  EXPECT_EQ(d.status().code(), ErrorCode::kCorrupt);
  EXPECT_NE(d.status().message().find("nested deeper"), std::string::npos)
      << d.status().to_string();
  // Found by store_record_fuzz: a float where an integer is kept was cast
  // out of range (undefined behavior) by the JSON library.
  build::Variant ok;
  ok.kernel = "k";
  ok.resources["n_regs"] = 128;
  ok.source_line = 12;
  const std::string good = encode_variant(ok, {});
  for (const auto& [from, to] : {std::pair{"\"n_regs\":128", "\"n_regs\":1.3e81"},
                                 std::pair{"\"source_line\":12", "\"source_line\":1e10"},
                                 std::pair{"\"source_line\":12", "\"source_line\":4294967296"}}) {
    std::string bad = good;
    ASSERT_NE(bad.find(from), std::string::npos) << good;
    bad.replace(bad.find(from), std::string(from).size(), to);
    auto r = decode_variant(bad, "id", "variant record z");
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.status().code(), ErrorCode::kCorrupt);
    EXPECT_NE(r.status().message().find("expected integer"), std::string::npos)
        << r.status().to_string();
  }
  build::Variant v;
  v.kernel = "k\xff";
  v.constexprs["B\xfe"] = "1";
  std::string rec = encode_variant(v, {StoredStage{"ttir", "00", "cache/H/k\xff.ttir", ""}});
  EXPECT_TRUE(is_valid_utf8(rec));
  auto back = decode_variant(rec, "id", "variant record y");
  ASSERT_TRUE(back) << back.status().to_string();
  EXPECT_EQ(back->meta.kernel, "k\\xff");
  EXPECT_EQ(back->stages[0].path, "cache/H/k\\xff.ttir");
}

}  // namespace
}  // namespace ksnap::store

// Issue 15 items 3 and 12 through the real `ksnap` binary: a folder of IR
// files is confined like a capture (no symbolic link out of it), and a path
// given on the command line is read only when it is a regular file within
// the run's limits — a FIFO fails at once instead of blocking, /dev/zero and
// a huge sparse file fail before a byte is read. Every run has a test-side
// timeout (a hang fails the test) and its peak memory is measured.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "cli_util.h"

namespace fs = std::filesystem;
using ksnap::cli_test::TempDir;

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAsan = true;
#else
constexpr bool kAsan = false;
#endif
#else
constexpr bool kAsan = false;
#endif

struct Outcome {
  int rc = -1;
  bool timed_out = false;
  long max_rss_kib = 0;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// Runs `ksnap args...` with `env` added, killed after `timeout`. With
/// `cap_memory` (not under ASan, which reserves far more address space) the
/// child's address space is capped at 2 GiB, so code that would read a huge
/// input whole fails quickly instead of filling the machine.
Outcome ksnap(const std::vector<std::string>& args,
              const std::vector<std::pair<std::string, std::string>>& env = {},
              bool cap_memory = false, std::chrono::seconds timeout = std::chrono::seconds(30)) {
  TempDir io("paths_io");
  std::string out = io.path + "/out", err = io.path + "/err";
  pid_t pid = fork();
  if (pid == 0) {
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    if (cap_memory && !kAsan) {
      rlimit r{rlim_t{2} << 30, rlim_t{2} << 30};
      ::setrlimit(RLIMIT_AS, &r);
    }
    if (!freopen(out.c_str(), "w", stdout) || !freopen(err.c_str(), "w", stderr)) _exit(127);
    std::vector<char*> argv{const_cast<char*>(KSNAP_BINARY)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(KSNAP_BINARY, argv.data());
    _exit(127);
  }
  Outcome r;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  int st = 0;
  rusage ru{};
  while (true) {
    pid_t done = ::wait4(pid, &st, WNOHANG, &ru);
    if (done == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      r.timed_out = true;
      ::kill(pid, SIGKILL);
      ::wait4(pid, &st, 0, &ru);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  r.max_rss_kib = ru.ru_maxrss;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

std::string corpus_stage(const std::string& ext) {
  std::string cache = std::string(KSNAP_EXAMPLE_DIR) + "/base/cache";
  for (const auto& d : fs::directory_iterator(cache))
    for (const auto& f : fs::directory_iterator(d.path()))
      if (f.path().extension() == ext) return f.path().string();
  return "";
}

std::string describe(const std::vector<std::string>& args) {
  std::string s = "ksnap";
  for (const auto& a : args) s += " " + a;
  return s;
}

TEST(HostilePathsCli, AFolderOfIrFilesIsConfinedLikeACapture) {
  TempDir t("paths_plain");
  std::string ttgir = corpus_stage(".ttgir");
  ASSERT_FALSE(ttgir.empty());
  for (const char* side : {"/a", "/b"}) {
    fs::create_directories(t.path + side);
    fs::copy_file(ttgir, t.path + side + "/k.ttgir");
  }
  std::ofstream(t.path + "/secret.txt") << "root:x:0:0:root:/root:/bin/bash\n";
  // A link that stays inside is followed, as in a capture.
  fs::create_symlink("k.ttgir", t.path + "/b/inside.ttgir");
  Outcome ok = ksnap({"diff", t.path + "/a", t.path + "/b", "--color", "never"});
  EXPECT_EQ(ok.rc, 0) << ok.err;
  EXPECT_FALSE(ok.timed_out);

  struct Case {
    const char* what;
    std::string link_to;
  };
  const Case cases[] = {
      {"relative link out", "../secret.txt"},
      {"absolute link out", t.path + "/secret.txt"},
      {"link to /etc/passwd", "/etc/passwd"},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.what);
    std::string link = t.path + "/b/x.ttgir";
    fs::remove(link);
    fs::create_symlink(k.link_to, link);
    Outcome r = ksnap({"diff", t.path + "/a", t.path + "/b", "--color", "never"});
    EXPECT_FALSE(r.timed_out);
    EXPECT_EQ(r.rc, 2) << r.out << r.err;
    EXPECT_NE(r.err.find(link), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("symbolic link that leads out of"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("root:x:0:0"), std::string::npos) << r.out;
    EXPECT_EQ(r.err.find("root:x:0:0"), std::string::npos) << r.err;
  }
  // A FIFO among the IR files: refused by name, never opened for reading.
  fs::remove(t.path + "/b/x.ttgir");
  ASSERT_EQ(::mkfifo((t.path + "/b/f.ttgir").c_str(), 0644), 0);
  Outcome f = ksnap({"diff", t.path + "/a", t.path + "/b"}, {}, false, std::chrono::seconds(20));
  EXPECT_FALSE(f.timed_out) << "ksnap diff blocked on a FIFO";
  EXPECT_EQ(f.rc, 2) << f.err;
  EXPECT_NE(f.err.find("f.ttgir"), std::string::npos) << f.err;
  EXPECT_NE(f.err.find("not a regular file"), std::string::npos) << f.err;
}

TEST(HostilePathsCli, AFifoOnTheCommandLineFailsAtOnce) {
  TempDir t("paths_fifo");
  std::string base = std::string(KSNAP_EXAMPLE_DIR) + "/base";
  std::ofstream(t.path + "/head.csv") << "point,us\np,1\n";
  struct Case {
    const char* what;
    std::string fifo;
    std::vector<std::string> args;
  };
  const std::string n = t.path + "/k.ttgir", s = t.path + "/samples.json", b = t.path + "/base.csv",
                    c = t.path + "/cache.json";
  const Case cases[] = {
      {"normalize", n, {"normalize", n}},
      {"tune replay", s, {"tune", "replay", s}},
      {"--bench-base",
       b,
       {"diff", base, base, "--bench-base", b, "--bench-head", t.path + "/head.csv"}},
      {"tune cache", c, {"tune", "cache", c}},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.what);
    ASSERT_EQ(::mkfifo(k.fifo.c_str(), 0644), 0);
    auto start = std::chrono::steady_clock::now();
    Outcome r = ksnap(k.args, {}, false, std::chrono::seconds(20));
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_FALSE(r.timed_out) << describe(k.args) << " blocked on a FIFO";
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_LT(secs, 15.0);
    EXPECT_NE(r.err.find(k.fifo), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("is not a regular file (a FIFO)"), std::string::npos) << r.err;
  }
}

TEST(HostilePathsCli, DevicesAndHugeFilesAreRefusedBeforeReading) {
  TempDir t("paths_huge");
  // A 3 GiB file that takes no disk: sparse. Over the CLI's 1 GiB per file.
  std::string big = t.path + "/big.ttgir";
  std::ofstream(big).close();
  std::error_code ec;
  fs::resize_file(big, uint64_t{3} << 30, ec);
  if (ec) GTEST_SKIP() << "cannot make a sparse file here: " << ec.message();
  struct Case {
    const char* what;
    std::vector<std::string> args;
    std::string says;
  };
  const Case cases[] = {
      {"/dev/zero to normalize",
       {"normalize", "/dev/zero", "--stage", "ttgir"},
       "/dev/zero: invalid argument: is not a regular file (a character device)"},
      {"/dev/zero to tune replay", {"tune", "replay", "/dev/zero"}, "is not a regular file"},
      {"3 GiB sparse file",
       {"normalize", big},
       "file is 3221225472 bytes, over the limit of 1073741824 (KSNAP_MAX_FILE_BYTES)"},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.what);
    Outcome r = ksnap(k.args, {}, /*cap_memory=*/true, std::chrono::seconds(60));
    ASSERT_FALSE(r.timed_out) << describe(k.args);
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find(k.says), std::string::npos) << r.err;
    if (!kAsan) EXPECT_LT(r.max_rss_kib, 256 * 1024) << "the input was read";
  }
}

TEST(HostilePathsCli, TheLimitsAreSetByTheEnvironment) {
  TempDir t("paths_limits");
  std::string ttgir = corpus_stage(".ttgir");
  ASSERT_FALSE(ttgir.empty());
  uint64_t size = fs::file_size(ttgir);
  ASSERT_GT(size, 100u);
  std::string size_text = std::to_string(size);
  // Per file.
  Outcome small = ksnap({"normalize", ttgir}, {{"KSNAP_MAX_FILE_BYTES", "100"}});
  EXPECT_EQ(small.rc, 2) << small.err;
  EXPECT_NE(small.err.find(ttgir + ": invalid argument: file is " + size_text +
                           " bytes, over the limit of 100 (KSNAP_MAX_FILE_BYTES)"),
            std::string::npos)
      << small.err;
  Outcome fits = ksnap({"normalize", ttgir}, {{"KSNAP_MAX_FILE_BYTES", "64M"}});
  EXPECT_EQ(fits.rc, 0) << fits.err;
  // Per run: two captures whose manifests together exceed the budget.
  std::string base = std::string(KSNAP_EXAMPLE_DIR) + "/base";
  uint64_t manifest = fs::file_size(base + "/manifest.json");
  Outcome budget = ksnap({"diff", base, base},
                         {{"KSNAP_MAX_INPUT_BYTES", std::to_string(manifest + manifest / 2)}});
  EXPECT_EQ(budget.rc, 2) << budget.err;
  // BASE and HEAD load on two threads: which file of the capture crosses the
  // budget first depends on their order, so the error names one of its files
  // (never a fixed one) and says how the budget is set.
  EXPECT_NE(budget.err.find(base + "/"), std::string::npos) << budget.err;
  EXPECT_NE(budget.err.find(": invalid argument: input budget exceeded"), std::string::npos)
      << budget.err;
  EXPECT_NE(budget.err.find("(KSNAP_MAX_INPUT_BYTES)"), std::string::npos) << budget.err;
  // A value that is not a size.
  for (const char* bad : {"lots", "12X", "-1", "99999999999999999999"}) {
    Outcome r = ksnap({"normalize", ttgir}, {{"KSNAP_MAX_INPUT_BYTES", bad}});
    EXPECT_EQ(r.rc, 2) << bad;
    EXPECT_NE(r.err.find("KSNAP_MAX_INPUT_BYTES '" + std::string(bad) + "' is not a size"),
              std::string::npos)
        << r.err;
  }
}

}  // namespace

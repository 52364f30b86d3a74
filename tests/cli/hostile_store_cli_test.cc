// The reproducers of issue 15 items 5, 6 and 9 through the real `ksnap`
// binary: a history store whose rows were damaged, `store gc` racing a
// `record`, and read-only commands on stores they must not change. Each
// store is recorded here from the bundled examples/corpus and then damaged
// behind ksnap's back with SQLite.
//   - A damaged blob (a zstd frame without a content size and a stored size
//     of -1, 64 GiB or 4 GiB; a frame of more or fewer bytes; a text whose
//     hash differs) is exit 2 with the commit, stage and blob named — for
//     `diff`, `show`, `log` and `store verify` — in little memory. It was an
//     abort (exit 134: length_error / bad_alloc thrown in the loader
//     thread), "internal error: basic_string::_M_create", or 4 GiB resident.
//   - `record` and `store gc` run at once, round after round: the commit is
//     whole and `store verify` clean after every round.
//   - `store ls`, `log`, `show`, `diff`, `store verify|info|unstable` and
//     `baseline` leave the store file byte-identical with the same mtime;
//     a newer schema (kept in rollback-journal mode: the old code switched
//     it to WAL), an empty file and a missing one are exit 2, unchanged.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_util.h"
#include "store/hostile_util.h"

namespace fs = std::filesystem;

namespace {

using ksnap::cli_test::CmdResult;
using ksnap::cli_test::run;
using ksnap::cli_test::TempDir;
namespace frames = ksnap::store::testing;
using frames::file_state;
using frames::FileState;
using frames::run_sql;
using frames::slurp;

const std::string kA(40, 'a'), kB(40, 'b');

std::string example(const std::string& b) { return std::string(KSNAP_EXAMPLE_DIR) + "/" + b; }

struct Measured {
  int rc = -1;
  std::string out, err;
  int64_t max_rss = 0;  ///< Peak resident bytes of the process.
};

/// Starts `ksnap args...` (no shell) with stdout and stderr to files in `dir`.
pid_t spawn(const std::vector<std::string>& args, const std::string& dir, const std::string& tag) {
  pid_t pid = ::fork();
  if (pid != 0) return pid;
  int out = ::open((dir + "/" + tag + ".out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int err = ::open((dir + "/" + tag + ".err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (out >= 0) ::dup2(out, 1);
  if (err >= 0) ::dup2(err, 2);
  std::vector<char*> argv{const_cast<char*>(KSNAP_BINARY)};
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execv(KSNAP_BINARY, argv.data());
  ::_exit(127);
}

Measured finish(pid_t pid, const std::string& dir, const std::string& tag) {
  Measured m;
  int st = 0;
  rusage ru{};
  while (::wait4(pid, &st, 0, &ru) < 0 && errno == EINTR) {
  }
  m.rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  m.max_rss = static_cast<int64_t>(ru.ru_maxrss) * 1024;
  m.out = slurp(dir + "/" + tag + ".out");
  m.err = slurp(dir + "/" + tag + ".err");
  return m;
}

Measured run_measured(const std::vector<std::string>& args, const std::string& dir) {
  return finish(spawn(args, dir, "m"), dir, "m");
}

/// The blobs of commit `sha`'s stage `stage`.
constexpr const char* kBlobsOf =
    "SELECT vb.blob FROM commits c JOIN tree_variants tv ON tv.tree = c.tree "
    "JOIN variant_blobs vb ON vb.variant = tv.variant WHERE c.sha = ";

class HostileStoreCli : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = tmp_.path + "/h.db";
    CmdResult a =
        run("record -q --store " + db_ + " --repo '' --commit " + kA + " " + example("base"));
    ASSERT_EQ(a.rc, 0) << a.err;
    CmdResult b = run("record -q --store " + db_ + " --repo '' --commit " + kB + " --parent " + kA +
                      " " + example("no_licm"));
    ASSERT_EQ(b.rc, 0) << b.err;
  }
  /// A copy of the recorded store (the writer has closed: no WAL left).
  std::string copy(const std::string& name) {
    std::string p = tmp_.path + "/" + name + ".db";
    fs::copy_file(db_, p, fs::copy_options::overwrite_existing);
    return p;
  }

  TempDir tmp_{"hostile_store"};
  std::string db_;
};

// Item 5.
TEST_F(HostileStoreCli, DamagedBlobsAreLocatedErrorsInEveryCommand) {
  // A TTGIR blob of commit B that commit A lacks: diff, show and log read it.
  const std::string id =
      run_sql(db_, std::string(kBlobsOf) + "'" + kB + "' AND vb.stage = 'ttgir' " +
                       "AND vb.blob NOT IN (" + kBlobsOf + "'" + kA + "')");
  ASSERT_FALSE(id.empty());
  const int64_t size =
      std::stoll(run_sql(db_, "SELECT raw_size FROM blobs WHERE id = '" + id + "'"));
  const std::string small = frames::frame_without_size("tt.func @k() {\n}\n");
  struct Case {
    const char* name;
    int64_t raw_size;
    std::string frame;
    const char* message;
  };
  const Case cases[] = {
      {"size -1", -1, small, "stored size -1 is not in [0, 4294967296]"},
      {"size 64 GiB", int64_t{64} << 30, small, "stored size 68719476736 is not in"},
      {"size 4 GiB", int64_t{4} << 30, small,
       "frame holds at most 131072 bytes, expected 4294967296"},
      {"fewer bytes", size, frames::frame_without_size(std::string(size - 1, 'x')),
       "decompressed to"},
      {"more bytes", size, frames::frame_without_size(std::string(size + 1, 'x')),
       "the frame holds more than the stored size"},
      {"other text", size, frames::frame_without_size(std::string(size, 'x')),
       "content hash differs from the recorded one"},
  };
  const std::string blob = "blob " + id + ": ";
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string p = copy("damaged");
    run_sql(p,
            "UPDATE blobs SET raw_size = " + std::to_string(c.raw_size) +
                ", data = ? WHERE id = '" + id + "'",
            &c.frame);
    Measured d = run_measured({"diff", "--store", p, "aaaa", "bbbb", "--no-pager"}, tmp_.path);
    EXPECT_EQ(d.rc, 2) << d.err;
    EXPECT_NE(d.err.find(p + ": "), std::string::npos) << d.err;
    EXPECT_NE(d.err.find("commit bbbbbbbbbbbb, "), std::string::npos) << d.err;
    EXPECT_NE(d.err.find(" stage ttgir: " + blob + c.message), std::string::npos) << d.err;
    EXPECT_LT(d.max_rss, int64_t{1} << 30) << "peak resident bytes";
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"show", "--store", p, "bbbb"},
          std::vector<std::string>{"log", "--store", p, "--repo", ""}}) {
      Measured r = run_measured(args, tmp_.path);
      EXPECT_EQ(r.rc, 2) << args[0] << ": " << r.err;
      EXPECT_NE(r.err.find(blob + c.message), std::string::npos) << args[0] << ": " << r.err;
    }
    Measured v = run_measured({"store", "verify", "--store", p}, tmp_.path);
    EXPECT_EQ(v.rc, 2) << v.err;
    EXPECT_NE(v.out.find("problem: " + blob + c.message), std::string::npos) << v.out;
    EXPECT_NE(v.out.find("; 1 problems"), std::string::npos) << v.out;
    EXPECT_EQ(v.err.find("internal error"), std::string::npos) << v.err;
  }
}

// Item 6: the old record decided "already stored" before its write
// transaction; a gc in between deleted those rows and the record exited 0
// with a commit whose tree named missing records (verify: 8 problems).
TEST_F(HostileStoreCli, RecordAndGcAtOnceNeverLoseACommit) {
  constexpr int kRounds = 12;
  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const std::string p = tmp_.path + "/race.db";
    fs::remove(p);
    ASSERT_EQ(
        run("record -q --store " + p + " --repo '' --commit " + kA + " " + example("base")).rc, 0);
    ASSERT_EQ(run("store forget --store " + p + " --repo '' " + kA).rc, 0);  // all unreferenced
    pid_t rec = spawn({"record", "-q", "--store", p, "--repo", "", "--commit", kB, example("base")},
                      tmp_.path, "rec");
    pid_t gc = spawn({"store", "gc", "--store", p}, tmp_.path, "gc");
    Measured r = finish(rec, tmp_.path, "rec");
    Measured g = finish(gc, tmp_.path, "gc");
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(g.rc, 0) << g.err;
    CmdResult v = run("store verify --store " + p);
    EXPECT_EQ(v.rc, 0) << v.out << v.err;
    EXPECT_NE(v.out.find("; 0 problems"), std::string::npos) << v.out;
    // Commit B is whole: it is the capture it recorded.
    CmdResult d = run("diff --store " + p + " bbbb " + example("base") + " --exit-code --stat");
    EXPECT_EQ(d.rc, 0) << d.out << d.err;
  }
}

// Item 9.
TEST_F(HostileStoreCli, ReadOnlyCommandsLeaveTheStoreByteIdentical) {
  auto readers = [](const std::string& p) {
    return std::vector<std::string>{
        "store ls --store " + p,       "log --store " + p + " --repo ''",
        "show --store " + p + " bbbb", "diff --store " + p + " aaaa bbbb --no-pager",
        "store verify --store " + p,   "store info --store " + p,
        "store unstable --store " + p, "baseline --store " + p + " --repo '' --for bbbb",
    };
  };
  struct Case {
    const char* name;
    std::function<std::string(void)> make;  // returns the store path
    int rc;                                 // of every reader
    const char* message;                    // in each reader's stderr
    bool writers_refused;                   // `store gc` and `record` too, unchanged
  };
  const Case cases[] = {
      {"recorded store", [&] { return copy("normal"); }, 0, "", false},
      {"newer schema, rollback journal",
       [&] {
         std::string p = copy("newer");
         run_sql(p, "PRAGMA journal_mode=DELETE");
         run_sql(p, "UPDATE meta SET value = '5' WHERE key = 'schema_version'");
         return p;
       },
       2, "history store schema version 5; this ksnap reads and writes version 4", true},
      {"empty file",
       [&] {
         std::string p = tmp_.path + "/empty.db";
         std::ofstream(p).flush();
         return p;
       },
       2, "not a ksnap history store: an empty database, no history recorded", false},
      {"missing file", [&] { return tmp_.path + "/missing.db"; }, 2, "no history store", false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string p = c.make();
    const FileState before = file_state(p);
    std::vector<std::string> commands = readers(p);
    if (c.writers_refused) {
      commands.push_back("store gc --store " + p);
      commands.push_back("record --store " + p + " --repo '' --commit " + std::string(40, 'c') +
                         " " + example("base"));
    }
    for (const std::string& cmd : commands) {
      SCOPED_TRACE(cmd);
      CmdResult r = run(cmd);
      // diff of two different commits is 0 without --exit-code.
      EXPECT_EQ(r.rc, c.rc) << r.err;
      if (c.rc != 0) {
        EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
        EXPECT_NE(r.err.find(p), std::string::npos) << r.err;
      }
      EXPECT_TRUE(file_state(p) == before) << "the store file changed";
      // No write was even begun (a rollback journal). SQLite reading a WAL
      // file makes its empty WAL and shared-memory index beside it when they
      // are missing (a read-only connection cannot remove them; the next
      // writer does); nothing else, and nothing for a file not in WAL mode.
      EXPECT_FALSE(fs::exists(p + "-journal"));
      if (c.rc != 0) EXPECT_FALSE(fs::exists(p + "-wal") || fs::exists(p + "-shm"));
      if (fs::exists(p + "-wal")) EXPECT_EQ(fs::file_size(p + "-wal"), 0u);
    }
  }
}

}  // namespace

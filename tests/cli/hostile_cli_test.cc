// The reproducers of issue 9 through the real `ksnap` binary (also run under
// ASan+UBSan by scripts/test.sh): deep JSON, bytes that are not UTF-8,
// wrong types in a tuning cache and paths that leave the capture folder each
// give exit 2 with a located message, or a correct result — never a crash,
// an abort, a read outside the capture or a write to the store.
// Every input is built here from the bundled examples/corpus/base.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "ksnap/support/text.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Outcome {
  int rc = -1;
  std::string out, err;
};

/// Runs `ksnap <args>` (args already shell-quoted where needed).
Outcome ksnap(const std::string& args) {
  std::string err_path =
      (fs::temp_directory_path() / ("ksnap_hostile_err_" + std::to_string(::getpid()))).string();
  std::string cmd = std::string(KSNAP_BINARY) + " " + args + " 2>" + err_path;
  Outcome r;
  FILE* p = ::popen(cmd.c_str(), "r");
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int st = ::pclose(p);
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  std::ifstream e(err_path, std::ios::binary);
  std::stringstream ss;
  ss << e.rdbuf();
  r.err = ss.str();
  fs::remove(err_path);
  return r;
}

std::string read(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string deep(size_t n) { return std::string(n, '[') + std::string(n, ']'); }

constexpr const char* kAddDir = "FSIAEYNGL5QHXZSO2PIZWCCTE5D6TQGDQWYFK7S4HBYQURSVBIVA";
constexpr const char* kSha = "0123456789abcdef0123456789abcdef01234567";

class HostileCli : public ::testing::Test {
 public:  // the case tables' lambdas build inputs through these
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "ksnap-hostile-cli-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    top_ = tmpl;
    base_ = top_ + "/base";
    head_ = top_ + "/head";
    fs::copy(std::string(KSNAP_EXAMPLE_DIR) + "/base", base_, fs::copy_options::recursive);
    fs::copy(base_, head_, fs::copy_options::recursive);
    fs::create_directories(top_ + "/outside");
    write(top_ + "/outside/secret.ttir", "module { SECRET_OUTSIDE }\n");
  }
  void TearDown() override { fs::remove_all(top_); }

  /// head's manifest with entry 0 rewritten by `edit`.
  void edit_head_entry(const std::function<void(json&)>& edit) {
    json m = json::parse(read(head_ + "/manifest.json"));
    edit(m["entries"][0]);
    write(head_ + "/manifest.json", m.dump(1));
  }
  /// Every subcommand that loads a build, on head: rc 2, `says` in the message.
  void expect_every_loader_rejects(const std::string& says) {
    const std::string store = top_ + "/h.db";
    for (const std::string& cmd :
         {"show " + head_, "show -f json " + head_, "diff " + base_ + " " + head_,
          "diff -f json " + base_ + " " + head_,
          "record " + head_ + " --store " + store + " --repo '' --commit " + kSha}) {
      SCOPED_TRACE(cmd);
      Outcome r = ksnap(cmd);
      EXPECT_EQ(r.rc, 2) << r.err;
      EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("manifest.json:"), std::string::npos) << "located: " << r.err;
      EXPECT_EQ(r.out.find("SECRET_OUTSIDE"), std::string::npos);
      EXPECT_EQ(r.out.find("root:"), std::string::npos);
    }
    EXPECT_FALSE(fs::exists(store)) << "nothing recorded";
  }

  std::string top_, base_, head_;
};

TEST_F(HostileCli, DeepConstexprInTheManifest) {
  edit_head_entry([](json& e) { e["constexprs"]["BLOCK_SIZE"] = "@DEEP@"; });
  std::string m = read(head_ + "/manifest.json");
  size_t at = m.find("\"@DEEP@\"");
  ASSERT_NE(at, std::string::npos);
  write(head_ + "/manifest.json", m.replace(at, 8, deep(50000)));
  expect_every_loader_rejects("nested deeper than 100 levels");
}

TEST_F(HostileCli, DeepTritonMetadata) {
  write(head_ + "/cache/" + kAddDir + "/add_kernel.json",
        "{\"num_warps\": 4,\n \"x\": " + deep(50000) + "}");
  for (const std::string& cmd : {"show " + head_, "diff " + base_ + " " + head_}) {
    Outcome r = ksnap(cmd);
    EXPECT_EQ(r.rc, 2) << cmd << ": " << r.err;
    EXPECT_NE(r.err.find("add_kernel.json:2:"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("nested deeper"), std::string::npos) << r.err;
  }
}

TEST_F(HostileCli, PathTraversalAbsoluteAndSymlinkStagesAreRejected) {
  struct Case {
    const char* name;
    std::function<void(HostileCli*)> make;
    const char* says;
  };
  const Case cases[] = {
      {"dotdot",
       [](HostileCli* t) {
         t->edit_head_entry([](json& e) {
           e["stages"] = {{"ttir", "../../../../../../../../etc/passwd"}};
         });
       },
       "leaves"},
      {"absolute",
       [](HostileCli* t) {
         t->edit_head_entry([](json& e) { e["stages"] = {{"ttir", "/etc/passwd"}}; });
       },
       "absolute"},
      {"symlink_out",
       [](HostileCli* t) {
         fs::create_symlink(t->top_ + "/outside/secret.ttir",
                            t->head_ + "/cache/" + kAddDir + "/evil.ttir");
         t->edit_head_entry([](json& e) {
           e["stages"] = {{"ttir", std::string("cache/") + kAddDir + "/evil.ttir"}};
         });
       },
       "symbolic link"},
      {"cache_dir_out",
       [](HostileCli* t) { t->edit_head_entry([](json& e) { e["cache_dir"] = "../../outside"; }); },
       "not one folder name"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    fs::remove_all(head_);
    fs::copy(base_, head_, fs::copy_options::recursive);
    c.make(this);
    expect_every_loader_rejects(c.says);
  }
}

TEST_F(HostileCli, DiffJsonWithANonUtf8ByteInAnIrStringLiteral) {
  std::string ttgir = head_ + "/cache/" + kAddDir + "/add_kernel.ttgir";
  std::string text = read(ttgir);
  size_t at = text.find("\"cuda:90\"");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 9,
               "\"cuda:\xff"
               "90\"");
  write(ttgir, text);
  Outcome r = ksnap("diff -f json " + base_ + " " + head_);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(ksnap::is_valid_utf8(r.out));
  json j = json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(j.is_discarded()) << r.out.substr(0, 300);
  EXPECT_EQ(j["changed_stages"], 1);
  EXPECT_NE(r.out.find("cuda:\\\\xff90"), std::string::npos)
      << "the byte is spelled \\xff (docs/diff-json.md)";
}

TEST_F(HostileCli, NonUtf8KernelNamesInShowAndStoreJson) {
  // A bare Triton cache whose kernel file names are not UTF-8.
  std::string cache = top_ + "/bare";
  fs::create_directories(cache + "/H1");
  std::string k = "k\xff";
  write(cache + "/H1/" + k + ".json", "{\"num_warps\": 4, \"name\": \"k\"}");
  write(cache + "/H1/" + k + ".ttir", "module {\n  tt.func @k() {\n    tt.return\n  }\n}\n");
  Outcome show = ksnap("show -f json " + cache);
  ASSERT_EQ(show.rc, 0) << show.err;
  EXPECT_TRUE(ksnap::is_valid_utf8(show.out));
  json j = json::parse(show.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j[0]["kernel"], "k\\xff");
  const std::string store = top_ + "/h.db";
  Outcome rec = ksnap("record " + cache + " --store " + store + " --repo '' --commit " + kSha +
                      " --date 1700000000 --subject s -q");
  ASSERT_EQ(rec.rc, 0) << rec.err;
  Outcome log = ksnap("log -f json --store " + store + " --repo '' --no-summary");
  ASSERT_EQ(log.rc, 0) << log.err;
  EXPECT_TRUE(ksnap::is_valid_utf8(log.out));
  EXPECT_FALSE(json::parse(log.out, nullptr, false).is_discarded()) << log.out;
  Outcome verify = ksnap("store verify --store " + store);
  EXPECT_EQ(verify.rc, 0) << verify.out << verify.err;
}

TEST_F(HostileCli, TuneCacheWithANumberForFormat) {
  std::string path = top_ + "/cache.json";
  write(path, "{\n  \"format\": 1,\n  \"version\": 1,\n  \"entries\": []\n}\n");
  Outcome r = ksnap("tune cache " + path);
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find(path + ":2:13: parse error: expected string for \"format\", got number"),
            std::string::npos)
      << r.err;
}

TEST_F(HostileCli, TuneReplayDeepShapeAndWrongTypes) {
  struct Case {
    const char* name;
    std::string text;
    const char* says;
  };
  const Case cases[] = {
      {"deep_shape",
       "{\"shapes\": [{\"shape\": " + deep(50000) + ", \"samples_us\": [[1, 2], [3, 4]]}]}",
       "nested deeper"},
      {"string_sample", "{\"shapes\": [{\"samples_us\": [[1, \"2\"]]}]}", "expected number"},
      {"shapes_object", "{\"shapes\": {}}", "non-empty \"shapes\" array"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::string path = top_ + "/samples.json";
    write(path, c.text);
    for (const char* fmt : {"text", "json"}) {
      Outcome r = ksnap(std::string("tune replay --trials 5 -f ") + fmt + " " + path);
      EXPECT_EQ(r.rc, 2) << r.err;
      EXPECT_NE(r.err.find(path + ":1:"), std::string::npos) << r.err;
      EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    }
  }
}

}  // namespace

namespace {

TEST(HostileCliMessages, ErrorMessagesNeverCarryControlCharacters) {
  // An OSC 52 clipboard write and a screen clear in a folder name.
  Outcome r = ksnap("show '/nonexistent/\x1b]52;c;cHduZWQ=\x07\x1b[2J'");
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\x07'), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\\x1b]52;c;cHduZWQ=\\x07\\x1b[2J"), std::string::npos) << r.err;
}

}  // namespace

// Shared helpers of the store tests: corpus builds and scratch folders.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "ksnap/store/store.h"
#include "ksnap/support/file.h"

namespace ksnap::store::testing {

/// A corpus build folder ("base", "noise", "no_licm", "fusion_off"): the
/// committed examples/corpus copy when present, else the shared corpus;
/// "" when neither exists (the test then skips).
inline std::string corpus_build(const std::string& name) {
  for (const char* root : {KSNAP_EXAMPLE_DIR, KSNAP_CORPUS_DIR}) {
    std::string p = std::string(root) + "/" + name;
    if (is_regular_file(p + "/manifest.json")) return p;
  }
  return "";
}

/// A fresh folder under the system temp dir, removed with the object.
class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ksnap-store-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data()) ? tmpl : std::string();
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

/// Copies capture folder `from` to `to` (text stages and manifests only are needed).
inline void copy_capture(const std::string& from, const std::string& to) {
  std::filesystem::copy(from, to, std::filesystem::copy_options::recursive);
}

}  // namespace ksnap::store::testing

#include <cstdio>
#include <stdexcept>

namespace ksnap::store::testing {

/// Runs a shell command, returns its stdout with the trailing newline cut;
/// "" on failure (tests then fail on the value).
inline std::string sh(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int rc = ::pclose(p);
  if (rc != 0) return "";
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

/// A throwaway git repository with deterministic identities and dates.
class GitRepo {
 public:
  explicit GitRepo(const std::string& dir) : dir_(dir) {
    sh("git -C " + dir_ + " init -q -b main && git -C " + dir_ +
       " config user.email t@example.com && git -C " + dir_ + " config user.name t");
  }
  /// An empty commit at Unix time `date`; returns its full id.
  std::string commit(const std::string& msg, int64_t date) {
    std::string d = std::to_string(date) + " +0000";
    sh("cd " + dir_ + " && GIT_AUTHOR_DATE='" + d + "' GIT_COMMITTER_DATE='" + d +
       "' git commit -q --allow-empty -m '" + msg + "'");
    return sh("git -C " + dir_ + " rev-parse HEAD");
  }
  void git(const std::string& args) { sh("cd " + dir_ + " && git " + args + " >/dev/null 2>&1"); }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

}  // namespace ksnap::store::testing

#include <gtest/gtest.h>

#include <memory>

#include "ksnap/build/build.h"

namespace ksnap::store::testing {

inline const std::string kSha1(40, '1');
inline const std::string kSha2(40, '2');

inline RecordOptions commit(const std::string& sha, std::vector<std::string> parents = {},
                            int64_t date = 0) {
  RecordOptions o;
  o.sha = sha;
  o.parents = std::move(parents);
  o.date = date;
  return o;
}

/// A fresh store beside the corpus `base` build (skips without a corpus).
class StoreFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    if (corpus_build("base").empty() || corpus_build("no_licm").empty() ||
        corpus_build("noise").empty())
      GTEST_SKIP() << "no corpus";
    base_ = load("base");
    auto s = Store::open(dir_.file("h.db"), true);
    ASSERT_TRUE(s) << s.status().to_string();
    store_ = std::make_unique<Store>(std::move(*s));
  }
  static build::Build load(const std::string& name) {
    auto b = build::load_build(corpus_build(name));
    EXPECT_TRUE(b) << b.status().to_string();
    return b ? std::move(*b) : build::Build{};
  }
  ScratchDir dir_;
  build::Build base_;
  std::unique_ptr<Store> store_;
};

}  // namespace ksnap::store::testing

#include "ksnap/history/log.h"

#include <gtest/gtest.h>

#include "ksnap/build/build.h"
#include "ksnap/diff/engine.h"
#include "store/test_util.h"

namespace ksnap::store {
namespace {

using namespace ::ksnap::history;

using testing::copy_capture;
using testing::corpus_build;
using testing::ScratchDir;

std::string sha(char c) { return std::string(40, c); }

/// c1 base; c2 noise (cosmetic only); c3 = base with one matmul variant's
/// TTGIR taken from no_licm; c4 = c3 again; c5 = no_licm.
class LogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string base = corpus_build("base"), noise = corpus_build("noise"),
                no_licm = corpus_build("no_licm");
    if (base.empty() || noise.empty() || no_licm.empty()) GTEST_SKIP() << "no corpus";
    auto nl = build::load_build(no_licm);
    ASSERT_TRUE(nl);
    // The first matmul variant: its TTGIR is where the perturbation goes.
    const build::Variant* mm = nullptr;
    for (const auto& v : nl->variants)
      if (v.kernel == "matmul_kernel" && !mm) mm = &v;
    ASSERT_NE(mm, nullptr);
    changed_id_ = mm->id();
    std::string perturbed = dir_.file("perturbed");
    copy_capture(base, perturbed);
    std::filesystem::copy_file(mm->stage("ttgir")->path,
                               perturbed + "/cache/" + mm->cache_dir + "/matmul_kernel.ttgir",
                               std::filesystem::copy_options::overwrite_existing);
    auto s = Store::open(dir_.file("h.db"), true);
    ASSERT_TRUE(s);
    store_ = std::make_unique<Store>(std::move(*s));
    const std::string caps[] = {base, noise, perturbed, perturbed, no_licm};
    std::string parent;
    for (int i = 0; i < 5; ++i) {
      auto b = build::load_build(caps[i]);
      ASSERT_TRUE(b) << b.status().to_string();
      RecordOptions o;
      o.sha = sha(static_cast<char>('1' + i));
      if (!parent.empty()) o.parents = {parent};
      o.date = 1733011200 + i * 86400;
      o.subject = "commit " + std::to_string(i + 1);
      ASSERT_TRUE(store_->record(*b, o));
      parent = o.sha;
    }
    auto want = diff::diff_paths(base, perturbed);
    ASSERT_TRUE(want) << want.status().to_string();
    for (const auto& v : want->variants)
      if (const diff::StageDiff* sd = v.stage("ttgir"); sd && v.changed()) {
        want_added_ = sd->lines_added;
        want_removed_ = sd->lines_removed;
      }
    ASSERT_GT(want_added_ + want_removed_, 0u);
  }
  std::vector<std::string> shas(const std::vector<LogEntry>& log) {
    std::vector<std::string> out;
    for (const auto& e : log) out.push_back(e.commit.sha);
    return out;
  }
  Expected<std::vector<LogEntry>> run(const std::string& kernel, const std::string& stage = "",
                                      const std::string& from = "", size_t max = 0) {
    LogQuery q;
    q.kernel = kernel;
    q.stage = stage;
    q.from = from;
    q.max_count = max;
    q.repo = "";
    return kernel_log(*store_, q);
  }

  ScratchDir dir_;
  std::unique_ptr<Store> store_;
  std::string changed_id_;
  uint32_t want_added_ = 0, want_removed_ = 0;
};

TEST_F(LogTest, ListsExactlyTheCommitsWhereTheKernelChanged) {
  struct Case {
    std::string kernel, stage, from;
    size_t max;
    std::vector<std::string> want;
  };
  const Case cases[] = {
      {"", "", "", 0, {sha('5'), sha('3')}},
      {"matmul_kernel", "", "", 0, {sha('5'), sha('3')}},
      {"matmul_kernel", "ttgir", "", 0, {sha('5'), sha('3')}},
      {"matmul_kernel", "llir", "", 0, {sha('5')}},
      {"attn_fwd", "", "", 0, {sha('5')}},
      {"add_kernel", "", "", 0, {}},  // no_licm leaves loop-free kernels alone
      {"", "", "", 1, {sha('5')}},
      {"", "", sha('4').substr(0, 6), 0, {sha('3')}},
      {"", "", sha('2'), 0, {}},  // the noise commit changed nothing
  };
  for (const Case& c : cases) {
    auto log = run(c.kernel, c.stage, c.from, c.max);
    ASSERT_TRUE(log) << log.status().to_string();
    EXPECT_EQ(shas(*log), c.want) << "kernel=" << c.kernel << " stage=" << c.stage
                                  << " from=" << c.from;
    for (const auto& e : *log)
      for (const auto& k : e.kernels)
        if (!c.kernel.empty()) {
          EXPECT_EQ(k.kernel, c.kernel);
        }
  }
  // A kernel or stage no recorded commit has is an error, not an empty log.
  auto unknown = run("no_such_kernel");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(unknown.status().message().find("(kernels: add_kernel, attn_fwd"), std::string::npos)
      << unknown.status().message();
  auto typo = run("matmul_kernal");
  ASSERT_FALSE(typo);
  EXPECT_NE(typo.status().message().find("did you mean 'matmul_kernel'?"), std::string::npos);
  auto stage = run("matmul_kernel", "tgir");
  ASSERT_FALSE(stage);
  EXPECT_EQ(stage.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(stage.status().message().find("did you mean 'ttgir'?"), std::string::npos)
      << stage.status().message();
}

TEST_F(LogTest, SummaryNamesTheVariantStageAndLines) {
  auto log = run("matmul_kernel", "", sha('4'));
  ASSERT_TRUE(log) << log.status().to_string();
  ASSERT_EQ(log->size(), 1u);
  const LogEntry& e = (*log)[0];
  EXPECT_EQ(e.parent, sha('2'));
  ASSERT_EQ(e.kernels.size(), 1u);
  const KernelChange& k = e.kernels[0];
  EXPECT_EQ(k.changed, std::vector<std::string>{changed_id_});
  EXPECT_EQ(k.variants_total, 2u);
  ASSERT_EQ(k.stages.size(), 1u);
  EXPECT_EQ(k.stages[0].stage, "ttgir");
  EXPECT_EQ(k.stages[0].lines_added, want_added_);
  EXPECT_EQ(k.stages[0].lines_removed, want_removed_);
  std::string line = format_log_line(e, k);
  EXPECT_EQ(line.substr(0, 23), sha('3').substr(0, 12) + " 2024-12-03");
  EXPECT_NE(line.find("matmul_kernel {BLOCK_SIZE_K=32, BLOCK_SIZE_M=64"), std::string::npos) << line;
  EXPECT_NE(
      line.find("ttgir +" + std::to_string(want_added_) + " -" + std::to_string(want_removed_)),
      std::string::npos)
      << line;
  EXPECT_NE(line.find("commit 3"), std::string::npos) << line;
}

TEST_F(LogTest, SeveralVariantsAreCounted) {
  auto log = run("softmax_kernel");
  ASSERT_TRUE(log);
  ASSERT_EQ(log->size(), 1u);
  const KernelChange& k = (*log)[0].kernels[0];
  std::string line = format_log_line((*log)[0], k);
  EXPECT_NE(line.find("softmax_kernel 2 of 2 variants:"), std::string::npos) << line;
}

TEST_F(LogTest, WithoutSummariesNoLinesAreCounted) {
  LogQuery q;
  q.repo = "";
  q.summaries = false;
  auto log = kernel_log(*store_, q);
  ASSERT_TRUE(log);
  ASSERT_EQ(shas(*log), (std::vector<std::string>{sha('5'), sha('3')}));
  for (const auto& e : *log)
    for (const auto& k : e.kernels)
      for (const auto& s : k.stages) EXPECT_EQ(s.lines_added + s.lines_removed, 0u);
}

TEST_F(LogTest, Errors) {
  auto bad = run("", "", "ffff");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.status().code(), ErrorCode::kNotFound);
  ScratchDir d;
  auto empty = Store::open(d.file("e.db"), true);
  ASSERT_TRUE(empty);
  auto none = kernel_log(*empty, LogQuery{});
  ASSERT_FALSE(none);
  EXPECT_NE(none.status().message().find("empty"), std::string::npos);
}

TEST(LogIdentityTest, TwoScriptsOfOneKernelAreComparedEachWithItself) {
  // Commits 1 and 2 both compile matmul_kernel from bench/a.py and bench/b.py
  // (same id); commit 2 comes from another checkout, lists b.py first and
  // only b.py's TTGIR changed. The log pairs each script with itself.
  std::string base = corpus_build("base"), no_licm = corpus_build("no_licm");
  if (base.empty() || no_licm.empty()) GTEST_SKIP() << "no corpus";
  auto b = build::load_build(base);
  auto nl = build::load_build(no_licm);
  ASSERT_TRUE(b && nl);
  const build::Variant* mm = nullptr;
  for (const auto& v : b->variants)
    if (v.kernel == "matmul_kernel" && !mm) mm = &v;
  ASSERT_NE(mm, nullptr);
  const build::Variant* changed = nullptr;
  for (const auto& v : nl->variants)
    if (v.id() == mm->id()) changed = &v;
  ASSERT_NE(changed, nullptr);
  auto at = [](build::Variant v, const std::string& file) {
    v.qualname = "__main__.matmul_kernel";
    v.source_file = file;
    return v;
  };
  build::Build c1 = *b, c2 = *b;
  c1.variants = {at(*mm, "/ci/a/bench/a.py"), at(*mm, "/ci/a/bench/b.py")};
  build::Variant b2 = at(*mm, "/ci/b/bench/b.py");
  for (auto& st : b2.stages)
    if (st.stage == "ttgir") st.path = changed->stage("ttgir")->path;
  c2.variants = {b2, at(*mm, "/ci/b/bench/a.py")};
  ScratchDir dir;
  auto s = Store::open(dir.file("h.db"), true);
  ASSERT_TRUE(s);
  RecordOptions o1, o2;
  o1.sha = sha('1');
  o2.sha = sha('2');
  o2.parents = {o1.sha};
  ASSERT_TRUE(s->record(c1, o1));
  ASSERT_TRUE(s->record(c2, o2));
  LogQuery q;
  q.repo = "";
  q.summaries = false;
  auto log = kernel_log(*s, q);
  ASSERT_TRUE(log) << log.status().to_string();
  ASSERT_EQ(log->size(), 1u);
  ASSERT_EQ((*log)[0].kernels.size(), 1u);
  const KernelChange& k = (*log)[0].kernels[0];
  EXPECT_EQ(k.changed.size(), 1u);
  EXPECT_EQ(k.variants_total, 2u);
  EXPECT_EQ(k.added + k.removed, 0u);
  ASSERT_EQ(k.stages.size(), 1u);
  EXPECT_EQ(k.stages[0].stage, "ttgir");
}

}  // namespace
}  // namespace ksnap::store

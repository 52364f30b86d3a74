#include "ksnap/store/baseline.h"

#include <gtest/gtest.h>

#include "ksnap/build/build.h"
#include "store/test_util.h"

namespace ksnap::store {
namespace {

using testing::corpus_build;
using testing::GitRepo;
using testing::ScratchDir;

constexpr int64_t kDay = 86400;
constexpr int64_t kT0 = 1733011200;  // 2024-12-01

/// main: A - B - C - D (B, D recorded); pr: C - P; dates one day apart.
class BaselineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_dir_ = corpus_build("base");
    if (base_dir_.empty()) GTEST_SKIP() << "no corpus";
    auto b = build::load_build(base_dir_);
    ASSERT_TRUE(b) << b.status().to_string();
    build_ = std::move(*b);
    repo_ = std::make_unique<GitRepo>(dir_.path());
    a_ = repo_->commit("A", kT0);
    b_ = repo_->commit("B", kT0 + kDay);
    c_ = repo_->commit("C", kT0 + 2 * kDay);
    d_ = repo_->commit("D", kT0 + 3 * kDay);
    repo_->git("checkout -q -b pr " + c_);
    p_ = repo_->commit("P", kT0 + 4 * kDay);
    repo_->git("checkout -q main");
    ASSERT_EQ(p_.size(), 40u);
    auto s = Store::open(dir_.file("h.db"), true);
    ASSERT_TRUE(s) << s.status().to_string();
    store_ = std::make_unique<Store>(std::move(*s));
    record(b_, {a_}, kT0 + kDay);
    record(d_, {c_}, kT0 + 3 * kDay);
  }
  void record(const std::string& sha, std::vector<std::string> parents, int64_t date) {
    RecordOptions o;
    o.sha = sha;
    o.parents = std::move(parents);
    o.date = date;
    auto st = store_->record(build_, o);
    ASSERT_TRUE(st) << st.status().to_string();
  }
  Expected<Baseline> find(const std::string& rev, const std::string& base_ref = "",
                          bool use_git = true) {
    BaselineQuery q;
    q.for_rev = rev;
    q.base_ref = base_ref;
    q.repo = use_git ? dir_.path() : "";
    return find_baseline(*store_, q);
  }

  ScratchDir dir_;
  std::string base_dir_;
  build::Build build_;
  std::unique_ptr<GitRepo> repo_;
  std::unique_ptr<Store> store_;
  std::string a_, b_, c_, d_, p_;
};

TEST_F(BaselineTest, PrFallsBackToNearestRecordedAncestorOfMergeBase) {
  auto r = find(p_, "main");
  ASSERT_TRUE(r) << r.status().to_string();
  EXPECT_EQ(r->for_sha, p_);
  EXPECT_EQ(r->start_sha, c_);  // merge-base(P, main)
  EXPECT_TRUE(r->from_merge_base);
  EXPECT_EQ(r->baseline.sha, b_);  // C is not recorded
  EXPECT_EQ(r->hops, 1);
  EXPECT_EQ(r->commits_behind, 1);
  ASSERT_TRUE(r->days_behind.has_value());
  EXPECT_DOUBLE_EQ(*r->days_behind, 1.0);
  EXPECT_TRUE(r->used_git);
  std::string text = r->describe();
  EXPECT_NE(text.find(b_.substr(0, 12)), std::string::npos) << text;
  EXPECT_NE(text.find("merge-base " + c_.substr(0, 12)), std::string::npos) << text;
  EXPECT_NE(text.find("1 commit and 1.0 days behind"), std::string::npos) << text;
}

TEST_F(BaselineTest, RecordedMergeBaseIsExact) {
  // A PR off D: its merge-base D is recorded.
  repo_->git("checkout -q -b pr2 " + d_);
  std::string q = repo_->commit("Q", kT0 + 5 * kDay);
  auto r = find(q, "main");
  ASSERT_TRUE(r) << r.status().to_string();
  EXPECT_EQ(r->baseline.sha, d_);
  EXPECT_TRUE(r->exact());
  EXPECT_EQ(r->commits_behind, 0);
  EXPECT_DOUBLE_EQ(r->days_behind.value_or(-1), 0.0);
  EXPECT_NE(r->describe().find("merge-base with main (recorded)"), std::string::npos)
      << r->describe();
}

TEST_F(BaselineTest, WithoutBaseRefWalksFromTheHead) {
  auto r = find(p_.substr(0, 10));  // a prefix git resolves
  ASSERT_TRUE(r) << r.status().to_string();
  EXPECT_EQ(r->start_sha, p_);
  EXPECT_EQ(r->baseline.sha, b_);
  EXPECT_EQ(r->hops, 2);
  EXPECT_EQ(r->commits_behind, 2);  // P and C
  EXPECT_DOUBLE_EQ(r->days_behind.value_or(-1), 3.0);
}

TEST_F(BaselineTest, StoreParentsAnswerWithoutGit) {
  // E is recorded with parent D, and git has never heard of E.
  const std::string e(40, 'e');
  record(e, {d_}, kT0 + 6 * kDay);
  auto self = find(e.substr(0, 8), "", /*use_git=*/false);
  ASSERT_TRUE(self) << self.status().to_string();
  EXPECT_EQ(self->baseline.sha, e);
  EXPECT_FALSE(self->used_git);
  BaselineQuery q;
  q.for_rev = e;
  q.repo = "";
  q.exclude_self = true;
  auto prev = find_baseline(*store_, q);
  ASSERT_TRUE(prev) << prev.status().to_string();
  EXPECT_EQ(prev->baseline.sha, d_);
  EXPECT_EQ(prev->hops, 1);
  EXPECT_DOUBLE_EQ(prev->days_behind.value_or(-1), 3.0);
  // D's recorded parent C is unrecorded and without git nothing is known beyond it.
  q.for_rev = d_;
  auto none = find_baseline(*store_, q);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(none.status().message().find("parents known only from the store"), std::string::npos)
      << none.status().message();
}

TEST_F(BaselineTest, Errors) {
  auto unknown = find("no-such-rev");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(unknown.status().message().find("no-such-rev"), std::string::npos);
  // Nothing recorded at or before A.
  auto before = find(a_);
  ASSERT_FALSE(before);
  EXPECT_EQ(before.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(before.status().message().find("no recorded ancestor"), std::string::npos);
  // --base-ref needs git.
  auto nogit = find(d_, "main", /*use_git=*/false);
  ASSERT_FALSE(nogit);
  EXPECT_EQ(nogit.status().code(), ErrorCode::kUnavailable);
  BaselineQuery q;
  EXPECT_EQ(find_baseline(*store_, q).status().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace ksnap::store

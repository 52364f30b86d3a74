// A diff against a recorded commit asks the store about HEAD's bytes
// (Build::known_texts) before normalizing them: bytes any record read are
// decided by their kept hash, and the result is exactly the folder diff's.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <string>
#include <tuple>

#include "ksnap/build/build.h"
#include "ksnap/diff/engine.h"
#include "ksnap/store/store.h"
#include "store/test_util.h"

namespace ksnap::store {
namespace {

using testing::commit;
using testing::corpus_build;
using testing::kSha1;
using testing::kSha2;

using Seen =
    std::map<std::string, std::tuple<int, uint32_t, uint32_t, size_t, uint64_t, uint64_t>>;

Seen seen(const diff::DiffResult& r) {
  Seen out;
  for (const diff::VariantDiff& v : r.variants)
    for (const diff::StageDiff& s : v.stages)
      out[v.key.id() + "|" + v.head_id + "|" + s.stage] = {
          static_cast<int>(s.status), s.lines_added, s.lines_removed, s.hunks.size(),
          s.change_signature, s.head_hash};
  return out;
}

/// Passes questions on to the store's table and counts the answers.
class Counting final : public build::KnownTexts {
 public:
  explicit Counting(std::shared_ptr<const build::KnownTexts> inner) : inner_(std::move(inner)) {}
  std::optional<uint64_t> normalized_hash(std::string_view raw,
                                          std::string_view dialect) const override {
    ++asked;
    auto h = inner_->normalized_hash(raw, dialect);
    if (h) ++answered;
    return h;
  }
  mutable std::atomic<size_t> asked{0}, answered{0};

 private:
  std::shared_ptr<const build::KnownTexts> inner_;
};

/// Says every text normalizes to `h`: shows that the engine takes the answer.
class Lying final : public build::KnownTexts {
 public:
  std::optional<uint64_t> normalized_hash(std::string_view, std::string_view) const override {
    return h;
  }
  uint64_t h = 0;
};

class RawNormDiff : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* b : {"base", "noise", "no_licm"})
      if (corpus_build(b).empty()) GTEST_SKIP() << "no corpus";
    for (auto [name, out] : {std::pair{"base", &base_}, {"noise", &noise_}, {"no_licm", &no_licm_}}) {
      auto b = build::load_build(corpus_build(name));
      ASSERT_TRUE(b) << b.status().to_string();
      *out = std::move(*b);
    }
    ASSERT_FALSE(base_.variants.empty() || noise_.variants.empty() || no_licm_.variants.empty());
    auto s = Store::open(dir_.file("h.db"), true);
    ASSERT_TRUE(s);
    // main's history: base, then a commit whose capture was noise's bytes.
    ASSERT_TRUE(s->record(base_, commit(kSha1)));
    ASSERT_TRUE(s->record(noise_, commit(kSha2, {kSha1})));
    auto back = s->load(kSha1);
    ASSERT_TRUE(back) << back.status().to_string();
    recorded_ = std::move(*back);
    ASSERT_TRUE(recorded_.known_texts);
  }
  testing::ScratchDir dir_;
  build::Build base_, noise_, no_licm_, recorded_;
};

TEST_F(RawNormDiff, HeadBytesAnotherCommitRecordedAreNotNormalizedAndSayWhatTheFoldersSay) {
  for (const build::Build* head : {&noise_, &no_licm_}) {
    SCOPED_TRACE(head == &noise_ ? "noise" : "no_licm");
    auto counting = std::make_shared<Counting>(recorded_.known_texts);
    build::Build with = recorded_;
    with.known_texts = counting;
    build::Build without = recorded_;
    without.known_texts = nullptr;
    auto from_folder = diff::diff_builds(base_, *head);
    auto asked_store = diff::diff_builds(with, *head);
    auto not_asked = diff::diff_builds(without, *head);
    ASSERT_TRUE(from_folder && asked_store && not_asked);
    const Seen want = seen(*from_folder);
    EXPECT_EQ(seen(*asked_store).size(), want.size());
    Seen a = seen(*asked_store), n = seen(*not_asked);
    for (const auto& [key, w] : want) {
      ASSERT_TRUE(a.count(key)) << key;
      // Status, lines, hunks, signature as the folders; an unchanged stage's
      // HEAD hash as well when anything computed it.
      EXPECT_EQ(std::get<0>(a[key]), std::get<0>(w)) << key;
      EXPECT_EQ(std::get<1>(a[key]), std::get<1>(w)) << key;
      EXPECT_EQ(std::get<2>(a[key]), std::get<2>(w)) << key;
      EXPECT_EQ(std::get<3>(a[key]), std::get<3>(w)) << key;
      EXPECT_EQ(std::get<4>(a[key]), std::get<4>(w)) << key;
      if (std::get<5>(a[key]) && std::get<5>(w)) {
        EXPECT_EQ(std::get<5>(a[key]), std::get<5>(w));
      }
      EXPECT_EQ(a[key], n[key]) << key << ": the answer changed the result";
    }
    EXPECT_GT(counting->asked.load(), 0u);
    if (head == &noise_) {
      // Every noise file differs from base's bytes, and commit 2 read each.
      EXPECT_EQ(counting->answered.load(), counting->asked.load());
      EXPECT_EQ(counting->answered.load(), want.size());
    } else {
      // no_licm was never recorded: its changed texts are unknown, and its
      // unchanged ones are base's bytes (decided before asking).
      EXPECT_LT(counting->answered.load(), counting->asked.load());
    }
  }
}

TEST_F(RawNormDiff, TheAnswerIsTakenOnlyUnderDefaultRules) {
  // A lie that every text normalizes to the kept hash of one BASE stage that
  // no_licm changes: under default rules that stage turns unchanged, which
  // shows the answer stands in for normalizing HEAD; under other rules the
  // table is not asked and nothing moves.
  auto truth = diff::diff_builds(recorded_, no_licm_);
  ASSERT_TRUE(truth);
  std::string victim_key;
  uint64_t victim_hash = 0;
  for (const diff::VariantDiff& v : truth->variants)
    for (const diff::StageDiff& s : v.stages) {
      if (!victim_key.empty() || s.status != diff::ChangeStatus::kChanged) continue;
      const build::StageFile* f = recorded_.variants[static_cast<size_t>(v.base_index)].stage(s.stage);
      if (!f || !f->normalized_hash) continue;
      victim_key = v.key.id() + "|" + v.head_id + "|" + s.stage;
      victim_hash = *f->normalized_hash;
    }
  ASSERT_FALSE(victim_key.empty()) << "no_licm changes stages of base";
  auto lie = std::make_shared<Lying>();
  lie->h = victim_hash;
  build::Build lied = recorded_;
  lied.known_texts = lie;
  auto lied_default = diff::diff_builds(lied, no_licm_);
  ASSERT_TRUE(lied_default);
  Seen t = seen(*truth), l = seen(*lied_default);
  ASSERT_EQ(t.size(), l.size());
  for (const auto& [key, want] : t) {
    if (key == victim_key)
      EXPECT_EQ(std::get<0>(l[key]), static_cast<int>(diff::ChangeStatus::kUnchanged)) << key;
    else
      EXPECT_EQ(std::get<0>(l[key]), std::get<0>(want)) << key;
  }
  diff::DiffOptions raw_names;
  raw_names.normalize.rename_values = false;
  auto lied_other = diff::diff_builds(lied, no_licm_, raw_names);
  auto truth_other = diff::diff_builds(recorded_, no_licm_, raw_names);
  ASSERT_TRUE(lied_other && truth_other);
  EXPECT_EQ(seen(*lied_other), seen(*truth_other)) << "other rules: the table is not asked";
}

}  // namespace
}  // namespace ksnap::store

// A diff against a recorded commit uses the store's kept normalized hashes
// (StageFile::normalized_hash) instead of normalizing that side again, and
// says exactly what a diff of the two folders says.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>

#include "ksnap/build/build.h"
#include "ksnap/diff/engine.h"
#include "ksnap/ir/lexer.h"
#include "ksnap/normalize/normalize.h"
#include "ksnap/store/store.h"
#include "store/test_util.h"

namespace ksnap::store {
namespace {

using testing::commit;
using testing::corpus_build;
using testing::kSha1;

/// What a reader sees of each (variant, stage): status, lines, hunks, signature.
using Seen = std::map<std::string, std::tuple<int, uint32_t, uint32_t, size_t, uint64_t>>;

Seen seen(const diff::DiffResult& r) {
  Seen out;
  for (const diff::VariantDiff& v : r.variants)
    for (const diff::StageDiff& s : v.stages)
      out[v.label + "|" + v.key.id() + "|" + v.head_id + "|" + s.stage] = {
          static_cast<int>(s.status), s.lines_added, s.lines_removed, s.hunks.size(),
          s.change_signature};
  return out;
}

class KeptHashDiff : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* b : {"base", "noise", "no_licm", "fusion_off"})
      if (corpus_build(b).empty()) GTEST_SKIP() << "no corpus";
    auto b = build::load_build(corpus_build("base"));
    ASSERT_TRUE(b);
    auto s = Store::open(dir_.file("h.db"), true);
    ASSERT_TRUE(s);
    ASSERT_TRUE(s->record(*b, commit(kSha1)));
    auto back = s->load(kSha1);
    ASSERT_TRUE(back) << back.status().to_string();
    recorded_ = std::move(*back);
  }
  testing::ScratchDir dir_;
  build::Build recorded_;
};

TEST_F(KeptHashDiff, ADiffAgainstARecordedCommitSaysWhatTheFoldersSay) {
  diff::DiffOptions raw_names;  // other rules: the kept hashes are not used
  raw_names.normalize.rename_values = false;
  for (const char* head_name : {"noise", "no_licm", "fusion_off", "base"}) {
    SCOPED_TRACE(head_name);
    auto head = build::load_build(corpus_build(head_name));
    ASSERT_TRUE(head);
    auto base = build::load_build(corpus_build("base"));
    ASSERT_TRUE(base);
    for (const diff::DiffOptions& o : {diff::DiffOptions{}, raw_names}) {
      auto from_folder = diff::diff_builds(*base, *head, o);
      auto from_store = diff::diff_builds(recorded_, *head, o);
      ASSERT_TRUE(from_folder && from_store);
      Seen a = seen(*from_folder), b = seen(*from_store);
      EXPECT_EQ(a.size(), b.size());
      for (const auto& [key, want] : a) {
        auto it = b.find(key);
        ASSERT_NE(it, b.end()) << key;
        EXPECT_EQ(it->second, want) << key;
      }
    }
  }
}

TEST_F(KeptHashDiff, TheKeptHashStandsInForNormalizingOnlyUnderDefaultRules) {
  // HEAD = no_licm. Give one changed BASE stage HEAD's normalized hash as its
  // kept hash: under default rules the engine compares by it (and so calls the
  // stage unchanged, which shows that it did not normalize BASE's text);
  // under other rules it normalizes and finds the change.
  auto head = build::load_build(corpus_build("no_licm"));
  ASSERT_TRUE(head);
  auto first = diff::diff_builds(recorded_, *head);
  ASSERT_TRUE(first);
  const diff::VariantDiff* changed = nullptr;
  const diff::StageDiff* stage = nullptr;
  for (const auto& v : first->variants)
    for (const auto& s : v.stages)
      if (!changed && s.status == diff::ChangeStatus::kChanged && v.base_index >= 0 &&
          v.head_index >= 0) {
        changed = &v;
        stage = &s;
      }
  ASSERT_NE(changed, nullptr);
  build::Variant& bv = recorded_.variants[changed->base_index];
  const build::StageFile* hf = head->variants[changed->head_index].stage(stage->stage);
  ASSERT_NE(hf, nullptr);
  auto htext = build::read_stage(*hf);
  ASSERT_TRUE(htext);
  ir::Dialect d;
  ASSERT_TRUE(ir::dialect_for_stage(stage->stage, &d));
  auto hh = norm::normalized_hash(*htext, d);
  ASSERT_TRUE(hh);
  for (auto& f : bv.stages)
    if (f.stage == stage->stage) {
      ASSERT_TRUE(f.normalized_hash) << "the store kept a hash for " << f.path;
      f.normalized_hash = *hh;
    }
  auto trusted = diff::diff_builds(recorded_, *head);
  ASSERT_TRUE(trusted);
  diff::DiffOptions other;
  other.normalize.drop_comments = false;
  auto renormalized = diff::diff_builds(recorded_, *head, other);
  ASSERT_TRUE(renormalized);
  auto status_of = [&](const diff::DiffResult& r) {
    for (const auto& v : r.variants)
      if (v.key.id() == changed->key.id() && v.head_id == changed->head_id)
        if (const diff::StageDiff* s = v.stage(stage->stage)) return s->status;
    return diff::ChangeStatus::kAdded;
  };
  EXPECT_EQ(status_of(*trusted), diff::ChangeStatus::kUnchanged);
  EXPECT_EQ(status_of(*renormalized), diff::ChangeStatus::kChanged);
}

TEST(KeptRawHash, HeadBytesEqualToTheRecordedFileAreUnchangedUnderAnyRules) {
  for (const char* b : {"base", "noise"})
    if (corpus_build(b).empty()) GTEST_SKIP() << "no corpus";
  testing::ScratchDir dir;
  auto s = Store::open(dir.file("h.db"), true);
  ASSERT_TRUE(s);
  auto noise = build::load_build(corpus_build("noise"));
  auto base = build::load_build(corpus_build("base"));
  ASSERT_TRUE(noise && base);
  // noise first: base's commit then loads with noise's texts (same normalized
  // forms, other SSA names) and base's own raw hashes.
  ASSERT_TRUE(s->record(*noise, commit(testing::kSha1)));
  ASSERT_TRUE(s->record(*base, commit(testing::kSha2, {testing::kSha1})));
  auto recorded = s->load(testing::kSha2);
  ASSERT_TRUE(recorded);
  diff::DiffOptions raw_names;  // SSA names count: kept normalized hashes do not apply
  raw_names.normalize.rename_values = false;
  auto r = diff::diff_builds(*recorded, *base, raw_names);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->changed_stage_count(), 0u) << "HEAD has the very bytes main's capture had";
  // Without the raw hashes the same diff sees noise's names against base's.
  for (auto& v : recorded->variants)
    for (auto& f : v.stages) f.raw_hash.clear();
  auto without = diff::diff_builds(*recorded, *base, raw_names);
  ASSERT_TRUE(without);
  EXPECT_GT(without->changed_stage_count(), 0u);
}

}  // namespace
}  // namespace ksnap::store

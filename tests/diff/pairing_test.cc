// pair_variants on real variants of examples/corpus: what pairs, how, and
// what never pairs (issue 8 item 3).
#include "diff/pairing.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ksnap/diff/engine.h"

namespace ksnap::diff {
namespace {

std::string example(const std::string& b) { return std::string(KSNAP_EXAMPLE_DIR) + "/" + b; }

/// A build holding the variants `pick` of `from`, in that order.
build::Build subset(const build::Build& from, const std::vector<int>& pick) {
  build::Build b = from;
  b.variants.clear();
  for (int i : pick) b.variants.push_back(from.variants[i]);
  return b;
}

/// "b->h:kind" for every pair, in pair_variants' order (-1 = none).
std::vector<std::string> describe(const std::vector<VariantPair>& pairs) {
  std::vector<std::string> out;
  for (const auto& p : pairs)
    out.push_back(std::to_string(p.base) + "->" + std::to_string(p.head) + ":" +
                  pairing_name(p.kind));
  return out;
}

/// A similarity that calls everything identical: only the rules decide.
double always_similar(const build::Variant&, const build::Variant&, void*) { return 1.0; }

class PairingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = build::load_build(example("base"));
    ASSERT_TRUE(c) << c.status().to_string();
    capture_ = *c;
    auto t = build::load_build(example("base") + "/cache");
    ASSERT_TRUE(t) << t.status().to_string();
    // The bare cache lists variants in folder order: put them in manifest order.
    for (const auto& v : capture_.variants)
      for (const auto& w : t->variants)
        if (w.cache_dir == v.cache_dir) bare_.variants.push_back(w);
    bare_.kind = build::BuildKind::kTritonCache;
    ASSERT_EQ(bare_.variants.size(), capture_.variants.size());
  }
  build::Build capture_, bare_;
};

TEST_F(PairingTest, Table) {
  // examples/corpus/base: 0,1 add_kernel; 2,3 softmax; 4 layer_norm;
  // 5 matmul {M64 N32} and 6 matmul {M32 N64}, both num_stages 5 num_warps 2;
  // 7 attn_fwd.
  struct Case {
    const char* name;
    bool base_bare, head_bare;
    std::vector<int> base, head;
    std::vector<std::string> want;
  } cases[] = {
      {"identical captures pair exactly", false, false, {0, 5, 6}, {0, 5, 6},
       {"0->0:exact", "1->1:exact", "2->2:exact"}},
      {"capture leftovers of other constexprs: removed + added", false, false, {0, 5}, {0, 6},
       {"0->0:exact", "1->-1:removed", "-1->1:added"}},
      {"capture: other kernel never pairs", false, false, {4}, {7},
       {"0->-1:removed", "-1->0:added"}},
      {"bare caches: leftovers pair by inference", true, true, {0, 5}, {0, 6},
       {"0->0:inferred", "1->1:inferred"}},
      {"capture vs bare cache: the bare side's constexprs are unknown", false, true, {5}, {6},
       {"0->0:inferred"}},
      {"bare cache vs capture", true, false, {5}, {6}, {"0->0:inferred"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    build::Build b = subset(c.base_bare ? bare_ : capture_, c.base);
    build::Build h = subset(c.head_bare ? bare_ : capture_, c.head);
    EXPECT_EQ(describe(pair_variants(b, h, always_similar, nullptr)), c.want);
  }
}

TEST_F(PairingTest, SameConstexprsOtherOptionsPairAsOptionsDiffer) {
  build::Build b = subset(capture_, {5, 6});
  build::Build h = b;
  h.variants[0].options["num_warps"] = "4";
  h.variants[0].compile_options["num_warps"] = "4";
  auto pairs = pair_variants(b, h, always_similar, nullptr);
  EXPECT_EQ(describe(pairs), (std::vector<std::string>{"0->0:options_differ", "1->1:exact"}));
  auto oc = option_changes(b.variants[0], h.variants[0]);
  ASSERT_EQ(oc.size(), 1u);
  EXPECT_EQ(oc[0].name, "num_warps");
}

TEST_F(PairingTest, EngineReportsNoStageDiffAcrossConstexprs) {
  // Through the engine with its real IR similarity: matmul M64/N32 and
  // M32/N64 are one removed and one added variant, never a changed one.
  auto r = diff_builds(subset(capture_, {0, 5}), subset(capture_, {0, 6}));
  ASSERT_TRUE(r) << r.status().to_string();
  ASSERT_EQ(r->variants.size(), 3u);
  EXPECT_EQ(r->variants[1].pairing, Pairing::kRemoved);
  EXPECT_EQ(r->variants[2].pairing, Pairing::kAdded);
  for (const auto& s : r->summary) EXPECT_EQ(s.changed, 0u) << s.stage;
  EXPECT_TRUE(r->groups.empty());
}

}  // namespace
}  // namespace ksnap::diff

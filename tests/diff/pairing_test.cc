// pair_variants on real variants of examples/corpus: what pairs, how, and
// what never pairs (issue 8 item 3).
#include "ksnap/diff/pairing.h"

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
      {"a variant listed twice pairs in order", false, false, {0, 0, 5}, {0, 5, 0},
       {"0->0:exact", "1->2:exact", "2->1:exact"}},
      {"bare caches listed twice", true, true, {0, 0}, {0, 0}, {"0->0:inferred", "1->1:inferred"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    build::Build b = subset(c.base_bare ? bare_ : capture_, c.base);
    build::Build h = subset(c.head_bare ? bare_ : capture_, c.head);
    std::vector<VariantPair> pairs = pair_variants(b, h, always_similar, nullptr);
    EXPECT_EQ(describe(pairs), c.want);
    // Every variant of either side is in exactly one pair: diff_builds
    // moves each pair's identity out of its build variant (engine.cc).
    std::vector<int> in_base(b.variants.size()), in_head(h.variants.size());
    for (const VariantPair& p : pairs) {
      if (p.base >= 0) ++in_base.at(static_cast<size_t>(p.base));
      if (p.head >= 0) ++in_head.at(static_cast<size_t>(p.head));
    }
    for (int n : in_base) EXPECT_EQ(n, 1);
    for (int n : in_head) EXPECT_EQ(n, 1);
  }
}

/// Variant 5 of examples/corpus/base (matmul M64 N32), defined at `where`:
/// "q:<qualname>", "f:<file>" (a __main__ script), or "" (not recorded).
build::Variant defined_at(const build::Build& from, const std::string& where) {
  build::Variant v = from.variants[5];
  if (where.rfind("q:", 0) == 0) v.qualname = where.substr(2);
  if (where.rfind("f:", 0) == 0) {
    v.qualname = "__main__.matmul_kernel";
    v.source_file = where.substr(2);
  }
  return v;
}

TEST_F(PairingTest, KernelsOfOneNamePairBySource) {
  struct Case {
    const char* name;
    std::vector<std::string> base, head;  // where each variant is defined
    std::vector<std::string> want;
    std::vector<std::string> sources;  // VariantPair::source, in pair order
  } cases[] = {
      {"two scripts, another checkout, listed in another order",
       {"f:/ci/a/bench/a.py", "f:/ci/a/bench/b.py"},
       {"f:/ci/b/bench/b.py", "f:/ci/b/bench/a.py"},
       {"0->1:exact", "1->0:exact"},
       {"/ci/a/bench/a.py", "/ci/a/bench/b.py"}},
      {"one of two scripts gone: its kernel is removed, never merged",
       {"f:/ci/a/bench/a.py", "f:/ci/a/bench/b.py"},
       {"f:/ci/a/bench/b.py"},
       {"0->-1:removed", "1->0:exact"},
       {"/ci/a/bench/a.py", "/ci/a/bench/b.py"}},
      {"a second script appears: its kernel is added",
       {"f:/ci/a/bench/a.py"},
       {"f:/ci/a/bench/a.py", "f:/ci/a/bench/b.py"},
       {"0->0:exact", "-1->1:added"},
       {"/ci/a/bench/a.py", "/ci/a/bench/b.py"}},
      {"the one script moved and was renamed",
       {"f:/r/bench/a.py"}, {"f:/r/benchmarks/gemm.py"}, {"0->0:exact"}, {"/r/bench/a.py"}},
      {"a module run as a script now",
       {"q:suite_kernels.matmul_kernel"}, {"f:/x/suite_kernels.py"}, {"0->0:exact"},
       {"suite_kernels.matmul_kernel"}},
      {"two modules of one kernel name",
       {"q:pkg.a.matmul_kernel", "q:pkg.b.matmul_kernel"},
       {"q:pkg.b.matmul_kernel", "q:pkg.a.matmul_kernel"},
       {"0->1:exact", "1->0:exact"},
       {"pkg.a.matmul_kernel", "pkg.b.matmul_kernel"}},
      {"two modules moved into a package keep their names",
       {"q:a.matmul_kernel", "q:b.matmul_kernel"},
       {"q:pkg.b.matmul_kernel", "q:pkg.a.matmul_kernel"},
       {"0->1:exact", "1->0:exact"},
       {"a.matmul_kernel", "b.matmul_kernel"}},
      {"undecidable: both files renamed, no tail tells them apart",
       {"f:/a/x/k.py", "f:/a/y/k.py"},
       {"f:/b/z/k.py", "f:/b/w/k.py"},
       {"0->-1:removed", "1->-1:removed", "-1->0:added", "-1->1:added"},
       {"/a/x/k.py", "/a/y/k.py", "/b/z/k.py", "/b/w/k.py"}},
      {"not recorded on either side (the shared corpus)", {""}, {""}, {"0->0:exact"}, {""}},
      {"recorded on one side only: the one kernel of that name",
       {""}, {"f:/x/bench/a.py"}, {"0->0:exact"}, {""}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    build::Build b = capture_, h = capture_;
    b.variants.clear();
    h.variants.clear();
    for (const auto& w : c.base) b.variants.push_back(defined_at(capture_, w));
    for (const auto& w : c.head) h.variants.push_back(defined_at(capture_, w));
    auto pairs = pair_variants(b, h, always_similar, nullptr);
    EXPECT_EQ(describe(pairs), c.want);
    std::vector<std::string> sources;
    for (const auto& p : pairs) sources.push_back(p.source);
    EXPECT_EQ(sources, c.sources);
  }
}

TEST_F(PairingTest, RenamedScriptsAreToldApartByTheKernelsTheyDefine) {
  // Two tutorial scripts both define matmul_kernel; HEAD renamed both files
  // and moved them: no tail tells them apart, the other kernel each defines does.
  auto in = [&](int index, const std::string& file) {
    build::Variant v = capture_.variants[index];
    v.qualname = "__main__." + v.kernel;
    v.source_file = file;
    return v;
  };
  build::Build b = capture_, h = capture_;
  b.variants = {in(5, "/a/03-matmul.py"), in(0, "/a/03-matmul.py"), in(5, "/a/09-persistent.py"),
                in(2, "/a/09-persistent.py")};
  h.variants = {in(2, "/b/t/tut9.py"), in(5, "/b/t/tut9.py"), in(0, "/b/t/tut3.py"),
                in(5, "/b/t/tut3.py")};
  auto pairs = pair_variants(b, h, always_similar, nullptr);
  EXPECT_EQ(describe(pairs), (std::vector<std::string>{"0->3:exact", "1->2:exact", "2->1:exact",
                                                       "3->0:exact"}));
  // Without the other kernels nothing tells the two matmul_kernels apart.
  b.variants = {b.variants[0], b.variants[2]};
  h.variants = {h.variants[1], h.variants[3]};
  EXPECT_EQ(describe(pair_variants(b, h, always_similar, nullptr)),
            (std::vector<std::string>{"0->-1:removed", "1->-1:removed", "-1->0:added",
                                      "-1->1:added"}));
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

namespace ksnap::diff {
namespace {

TEST(SourceIdentityEngineTest, TwoScriptsOfOneKernelNameAreTwoKernels) {
  // bench/a.py and bench/b.py both define __main__.matmul_kernel; HEAD (from
  // another checkout) compiles both with the no_licm compiler: the same
  // change twice, reported for two kernels, each with its file.
  auto base = build::load_build(example("base"));
  auto head = build::load_build(example("no_licm"));
  ASSERT_TRUE(base && head);
  auto script = [](build::Variant v, const std::string& file) {
    v.qualname = "__main__.matmul_kernel";
    v.source_file = file;
    return v;
  };
  build::Build b = *base, h = *head;
  b.variants = {script(base->variants[5], "/ci/a/bench/a.py"),
                script(base->variants[5], "/ci/a/bench/b.py")};
  h.variants = {script(head->variants[5], "/ci/b/bench/b.py"),
                script(head->variants[5], "/ci/b/bench/a.py")};
  auto r = diff_builds(b, h);
  ASSERT_TRUE(r) << r.status().to_string();
  ASSERT_EQ(r->variants.size(), 2u);
  EXPECT_EQ(r->variants[0].source, "/ci/a/bench/a.py");
  EXPECT_EQ(r->variants[0].head_source, "/ci/b/bench/a.py");
  EXPECT_EQ(r->variants[0].label, "matmul_kernel (a.py)");
  EXPECT_EQ(r->variants[1].label, "matmul_kernel (b.py)");
  for (const auto& v : r->variants) {
    EXPECT_EQ(v.pairing, Pairing::kExact);
    EXPECT_TRUE(v.changed());
  }
  // One group per kernel and stage, never one group for both files.
  std::set<std::string> labels;
  for (const auto& g : r->groups) {
    EXPECT_EQ(g.variants.size(), 1u) << g.label << " " << g.stage;
    labels.insert(g.label);
    EXPECT_EQ(r->variants[g.variants[0]].source, g.source);
  }
  EXPECT_EQ(labels, (std::set<std::string>{"matmul_kernel (a.py)", "matmul_kernel (b.py)"}));
}

TEST(SourceIdentityEngineTest, LabelIsTheKernelWhenItsNameIsUnique) {
  auto r = diff_paths(example("base"), example("no_licm"));
  ASSERT_TRUE(r);
  for (const auto& v : r->variants) {
    EXPECT_EQ(v.label, v.key.kernel);
    EXPECT_EQ(v.source, "");
    EXPECT_EQ(v.head_source, "");
  }
}

TEST(SourceIdentityEngineTest, TailsGrowUntilTheyTellSourcesApart) {
  auto base = build::load_build(example("base"));
  ASSERT_TRUE(base);
  build::Build b = *base;
  b.variants.clear();
  for (const char* f : {"/r/x/gemm.py", "/r/y/gemm.py"}) {
    build::Variant v = base->variants[5];
    v.qualname = "__main__.matmul_kernel";
    v.source_file = f;
    b.variants.push_back(v);
  }
  build::Variant m = base->variants[6];
  m.qualname = "gemm.matmul_kernel";  // a module of the same last name
  b.variants.push_back(m);
  auto r = diff_builds(b, b);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->variants.size(), 3u);
  EXPECT_EQ(r->variants[0].label, "matmul_kernel (x/gemm.py)");
  EXPECT_EQ(r->variants[1].label, "matmul_kernel (y/gemm.py)");
  EXPECT_EQ(r->variants[2].label, "matmul_kernel (gemm)");
}

}  // namespace
}  // namespace ksnap::diff

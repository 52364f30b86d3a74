#include "ksnap/diff/engine.h"

#include <gtest/gtest.h>

#include "diff/stage_dump.h"
#include "ksnap/build/build.h"
#include "ksnap/diff/structural.h"
#include "ksnap/normalize/normalize.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <set>
#include <unistd.h>

namespace ksnap::diff {
namespace {

std::string example(const std::string& b) { return std::string(KSNAP_EXAMPLE_DIR) + "/" + b; }

std::set<std::string> changed(const DiffResult& r) {
  std::set<std::string> out;
  for (const auto& v : r.variants)
    for (const auto& s : v.stages)
      if (s.status != ChangeStatus::kUnchanged) out.insert(v.key.id() + "|" + s.stage);
  return out;
}

TEST(EngineTest, BareCachesPairByMetadataAndSimilarityAsInferred) {
  auto cap = diff_paths(example("base"), example("no_licm"));
  auto bare = diff_paths(example("base") + "/cache", example("no_licm") + "/cache");
  ASSERT_TRUE(cap) << cap.status().to_string();
  ASSERT_TRUE(bare) << bare.status().to_string();
  ASSERT_EQ(bare->variants.size(), cap->variants.size());
  for (const auto& v : bare->variants) EXPECT_EQ(v.pairing, Pairing::kInferred) << v.key.id();
  EXPECT_FALSE(bare->warnings.empty());
  // Same per-stage outcome as the capture pairing, kernel by kernel.
  std::multiset<std::string> a, b;
  for (const auto& v : cap->variants)
    for (const auto& s : v.stages) a.insert(v.key.kernel + "|" + s.stage + "|" + status_name(s.status));
  for (const auto& v : bare->variants)
    for (const auto& s : v.stages) b.insert(v.key.kernel + "|" + s.stage + "|" + status_name(s.status));
  EXPECT_EQ(a, b);
}

TEST(EngineTest, RemovedVariantsAreExactlyTheMissingOnes) {
  auto base = build::load_build(example("base"));
  auto head = build::load_build(example("no_licm"));
  ASSERT_TRUE(base && head);
  // A HEAD build in which two variants failed to compile.
  std::string gone1 = head->variants[1].id(), gone2 = head->variants[6].id();
  head->variants.erase(head->variants.begin() + 6);
  head->variants.erase(head->variants.begin() + 1);
  auto r = diff_builds(*base, *head);
  ASSERT_TRUE(r);
  std::set<std::string> removed;
  for (const auto& v : r->variants) {
    if (v.pairing == Pairing::kRemoved) {
      removed.insert(v.key.id());
      for (const auto& s : v.stages) EXPECT_EQ(s.status, ChangeStatus::kRemoved);
    }
    EXPECT_NE(v.pairing, Pairing::kAdded);
  }
  EXPECT_EQ(removed, (std::set<std::string>{gone1, gone2}));
  uint32_t removed_stages = 0;
  for (const auto& s : r->summary) removed_stages += s.removed;
  EXPECT_EQ(removed_stages, 8u);
}

TEST(EngineTest, JobsDoNotChangeTheResult) {
  DiffOptions one, two;
  one.jobs = 1;
  two.jobs = 2;
  auto a = diff_paths(example("base"), example("fusion_off"), one);
  auto b = diff_paths(example("base"), example("fusion_off"), two);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(changed(*a), changed(*b));
  ASSERT_EQ(a->groups.size(), b->groups.size());
  for (size_t i = 0; i < a->groups.size(); ++i) EXPECT_EQ(a->groups[i].signature, b->groups[i].signature);
}

/// Everything a report reads of a result's stages, as text.
std::string fingerprint(const DiffResult& r) {
  std::string out;
  for (const auto& v : r.variants) {
    out += v.key.id() + " " + std::to_string(static_cast<int>(v.pairing)) + "\n";
    // The identity (moved out of a consumed build) and what is read with it.
    out += "  " + v.key.qualname + "|" + v.key.source_file + "|" + v.key.signature + "|" +
           v.key.constexprs_text() + "|" + v.key.options_text() + "|" + v.source + "|" +
           v.head_source + "|" + v.label + "|" + v.head_id + "|" + v.benchmark_script + "|" +
           std::to_string(v.benchmark_points.size()) + "|" + std::to_string(v.base_index) +
           "|" + std::to_string(v.head_index) + "|" + std::to_string(v.option_changes.size()) +
           "\n";
    for (const auto& [k, src] : v.resource_sources) out += "  source " + k + " " + src + "\n";
    for (const auto* list : {&v.stages, &v.binaries})
      for (const auto& s : *list) {
        out += "  " + s.stage + " " + status_name(s.status) + " " + s.base_path + " " +
               s.head_path + " " + std::to_string(s.base_hash) + " " +
               std::to_string(s.head_hash) + " +" + std::to_string(s.lines_added) + " -" +
               std::to_string(s.lines_removed) + " hunks " + std::to_string(s.hunks.size()) +
               " ops " + std::to_string(s.op_deltas.size()) + " stats " +
               std::to_string(s.stats.size()) + " [" + s.fallback + "]\n";
      }
    for (const auto& [k, p] : v.resources)
      out += "  " + k + " " + std::to_string(p.first) + " " + std::to_string(p.second) + "\n";
  }
  for (const auto& g : r.groups) out += "group " + std::to_string(g.signature) + "\n";
  return out;
}

// The CLI gives its builds away: the result is the same, paths and
// identities included, and the builds are left without variants.
TEST(EngineTest, ConsumingTheBuildsGivesTheSameResult) {
  for (const char* head_name : {"no_licm", "fusion_off", "noise"}) {
    auto base = build::load_build(example("base"));
    auto head = build::load_build(example(head_name));
    ASSERT_TRUE(base && head);
    // Removed and added variants (one-sided stages) too, and a variant
    // listed twice on both sides (its identity moves out twice).
    head->variants.erase(head->variants.begin() + 2);
    base->variants.erase(base->variants.begin() + 5);
    base->variants.push_back(base->variants[0]);
    head->variants.push_back(head->variants[0]);
    for (unsigned jobs : {1u, 2u}) {
      DiffOptions o;
      o.jobs = jobs;
      build::Build b = *base, h = *head;
      auto kept = diff_builds(b, h, o);
      auto consumed = diff_builds(std::move(b), std::move(h), o);
      ASSERT_TRUE(kept && consumed) << head_name;
      EXPECT_EQ(fingerprint(*consumed), fingerprint(*kept)) << head_name << " jobs " << jobs;
      EXPECT_TRUE(b.variants.empty());
      EXPECT_TRUE(h.variants.empty());
      EXPECT_EQ(b.root, base->root);  // the rest of a build is kept
      bool saw_path = false;
      for (const auto& v : consumed->variants)
        for (const auto& s : v.stages) saw_path = saw_path || !s.base_path.empty();
      EXPECT_TRUE(saw_path);
    }
  }
}

TEST(EngineTest, StageAndKernelFilters) {
  DiffOptions o;
  o.stages = {"ptx"};
  o.kernels = {"matmul_kernel"};
  auto r = diff_paths(example("base"), example("no_licm"), o);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->variants.size(), 2u);
  for (const auto& v : r->variants) {
    EXPECT_EQ(v.key.kernel, "matmul_kernel");
    ASSERT_EQ(v.stages.size(), 1u);
    EXPECT_EQ(v.stages[0].stage, "ptx");
  }
}

TEST(EngineTest, OpAndResourceDeltas) {
  auto r = diff_paths(example("base"), example("no_licm"));
  ASSERT_TRUE(r);
  bool saw_reg_figure = false, saw_op_delta = false;
  for (const auto& v : r->variants)
    for (const auto& s : v.stages) {
      if (s.stage == "ptx" && s.status == ChangeStatus::kChanged)
        for (const auto& [k, p] : s.resources)
          if (k.rfind("ptx.reg", 0) == 0 && p.first > 0 && p.second > 0) saw_reg_figure = true;
      if (!s.op_deltas.empty()) saw_op_delta = true;
    }
  EXPECT_TRUE(saw_reg_figure);
  EXPECT_TRUE(saw_op_delta);
}


// A stage that cannot be normalized degrades to a stated fallback for that
// stage; every other stage is still compared and the run does not fail.
TEST(EngineTest, MalformedStageFallsBackAndTheRunGoesOn) {
  namespace fs = std::filesystem;
  std::string dir = fs::temp_directory_path() / ("ksnap_engine_fb_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir + "/head");
  fs::copy(example("base"), dir + "/head", fs::copy_options::recursive);
  for (auto& p : fs::recursive_directory_iterator(dir))
    fs::permissions(p.path(), fs::perms::owner_write, fs::perm_options::add);
  std::string ttgir, llir;
  for (auto& p : fs::recursive_directory_iterator(dir + "/head/cache")) {
    if (p.path().filename() == "matmul_kernel.ttgir" && ttgir.empty()) ttgir = p.path();
  }
  ASSERT_FALSE(ttgir.empty());
  fs::resize_file(ttgir, fs::file_size(ttgir) / 2);  // a truncated file: brackets never close
  auto r = diff_paths(example("base"), dir + "/head");
  fs::remove_all(dir);
  ASSERT_TRUE(r) << r.status().to_string();
  size_t fallbacks = 0, compared = 0;
  for (const auto& v : r->variants)
    for (const auto& s : v.stages) {
      if (s.head_path == ttgir) {
        ++fallbacks;
        EXPECT_EQ(s.status, ChangeStatus::kChanged);
        EXPECT_TRUE(s.input_error);
        EXPECT_NE(s.fallback.find("HEAD " + ttgir + ":"), std::string::npos) << s.fallback;
        EXPECT_NE(s.fallback.find("never closed"), std::string::npos) << s.fallback;
        EXPECT_NE(s.fallback.find("compared by bytes"), std::string::npos) << s.fallback;
        EXPECT_TRUE(s.hunks.empty());
      } else {
        ++compared;
        EXPECT_TRUE(s.fallback.empty()) << s.fallback;
        EXPECT_EQ(s.status, ChangeStatus::kUnchanged) << s.head_path;
      }
    }
  EXPECT_EQ(fallbacks, 1u);
  EXPECT_GT(compared, 10u);
}

/// One in-memory build of one variant with one LLVM IR stage.
build::Build llir_build(const char* name, std::string text) {
  build::Build b;
  b.name = name;
  b.kind = build::BuildKind::kMemory;
  build::Variant v;
  v.kernel = "add_kernel";
  build::StageFile file;
  file.stage = "llir";
  file.path = std::string(name) + "/add_kernel.llir";
  file.text = std::make_shared<const std::string>(std::move(text));
  v.stages.push_back(std::move(file));
  b.variants.push_back(std::move(v));
  return b;
}

// Big files (1 MiB or more) are scanned once: BASE's module is built at once,
// HEAD's scan kept for its hash and module (norm::Normalization); small ones
// are hashed, then normalized when they differ. Both give what normalizing
// both sides and diffing them gives.
// Real IR: the example's add_kernel, its function copied under new names.
TEST(EngineTest, BigFilesScannedOnceGiveTheSameDiff) {
  namespace fs = std::filesystem;
  std::string path;
  for (auto& p : fs::recursive_directory_iterator(example("base/cache")))
    if (p.path().filename() == "add_kernel.llir" && (path.empty() || p.path().string() < path))
      path = p.path().string();
  ASSERT_FALSE(path.empty());
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t def = text.find("define ptx_kernel void @add_kernel(");
  const size_t end = text.find("\n}\n", def);
  ASSERT_NE(def, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  const std::string fn = text.substr(def, end + 3 - def);
  // `copies` functions; copy `bump` (if any) with its shift amount raised.
  auto module = [&](int copies, int bump) {
    std::string out = text.substr(0, def);
    for (int k = 0; k < copies; ++k) {
      std::string f = fn;
      f.replace(f.find("@add_kernel("), 12, "@add_kernel_" + std::to_string(k) + "(");
      if (k == bump) f.replace(f.find("shl i32 %7, 8"), 13, "shl i32 %7, 9");
      out += f + "\n";
    }
    return out + text.substr(end + 3);
  };
  struct Case {
    const char* name;
    int copies, bump;
    bool cosmetic;  // HEAD differs by bytes only
    bool changed;
  } cases[] = {{"small, changed", 3, 1, false, true},
               {"small, cosmetic", 3, -1, true, false},
               {"big, changed", 800, 517, false, true},
               {"big, cosmetic", 800, -1, true, false}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::string base = module(c.copies, -1);
    std::string head = module(c.copies, c.bump);
    if (c.cosmetic) head = "; a comment line\n" + head;
    ASSERT_EQ(head.size() > (size_t{1} << 20), c.copies > 100);
    auto mb = norm::normalize(TextBuffer("base", base), ir::Dialect::kLlvm);
    auto mh = norm::normalize(TextBuffer("head", head), ir::Dialect::kLlvm);
    ASSERT_TRUE(mb && mh);
    StageDiff want;
    structural_diff(*mb, *mh, StructuralOptions{DiffOptions{}.kept_context}, &want);
    DiffOptions o;
    o.jobs = 1;
    auto r = diff_builds(llir_build("base", base), llir_build("head", head), o);
    ASSERT_TRUE(r) << r.status().to_string();
    ASSERT_EQ(r->variants.size(), 1u);
    ASSERT_EQ(r->variants[0].stages.size(), 1u);
    const StageDiff& got = r->variants[0].stages[0];
    EXPECT_EQ(got.status, c.changed ? ChangeStatus::kChanged : ChangeStatus::kUnchanged);
    EXPECT_EQ(got.head_hash, mh->hash);
    EXPECT_EQ(got.base_hash, mb->hash);
    EXPECT_TRUE(got.fallback.empty()) << got.fallback;
    if (!c.changed) continue;
    EXPECT_EQ(got.lines_added, 1u);
    EXPECT_EQ(got.lines_removed, 1u);
    EXPECT_EQ(testing::dump_structural(got), testing::dump_structural(want));
  }
  // A big side that does not normalize (BASE's module is built at once,
  // HEAD's scan kept): its error, with file and line, the other side's none.
  std::string bad = module(800, -1);
  bad.resize(bad.size() / 2);  // cut mid-function: a bracket never closes
  for (bool bad_head : {true, false}) {
    SCOPED_TRACE(bad_head ? "bad HEAD" : "bad BASE");
    auto r = diff_builds(llir_build("base", bad_head ? module(800, -1) : bad),
                         llir_build("head", bad_head ? bad : module(800, -1)), DiffOptions{});
    ASSERT_TRUE(r) << r.status().to_string();
    const StageDiff& got = r->variants[0].stages[0];
    EXPECT_EQ(got.status, ChangeStatus::kChanged);
    EXPECT_TRUE(got.input_error);
    const std::string side = bad_head ? "HEAD head/" : "BASE base/";
    const std::string other = bad_head ? "BASE base/" : "HEAD head/";
    EXPECT_NE(got.fallback.find(side + "add_kernel.llir:"), std::string::npos) << got.fallback;
    EXPECT_EQ(got.fallback.find(other), std::string::npos) << got.fallback;
    EXPECT_NE(got.fallback.find("compared by bytes"), std::string::npos) << got.fallback;
  }
}

}  // namespace
}  // namespace ksnap::diff

// check_determinism and unstable marking in the diff, on real corpus IR with
// emulated nondeterminism (diff/unstable_fixture.h).
#include "ksnap/diff/determinism.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "diff/unstable_fixture.h"
#include "ksnap/build/unstable.h"
#include "ksnap/support/file.h"

namespace fs = std::filesystem;

namespace ksnap::diff {
namespace {

std::string example(const std::string& b) { return std::string(KSNAP_EXAMPLE_DIR) + "/" + b; }

class DeterminismTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ksnap_determinism_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    ASSERT_TRUE(testing::copy_with_unstable_attn(example("base"), dir_ + "/again"));
    auto a = build::load_build(example("base"));
    auto b = build::load_build(dir_ + "/again");
    ASSERT_TRUE(a && b);
    first_ = *a;
    again_ = *b;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_;
  build::Build first_, again_;
};

TEST_F(DeterminismTest, ListsExactlyTheStagesThatDiffered) {
  auto u = check_determinism(first_, again_);
  ASSERT_TRUE(u) << u.status().to_string();
  EXPECT_EQ(u->variants_compared, 8u);
  EXPECT_EQ(u->stages_compared, 8u * 5);  // source, ttir, ttgir, llir, ptx
  EXPECT_TRUE(u->unpaired.empty());
  ASSERT_EQ(u->variants.size(), 1u);
  const build::UnstableVariant& v = u->variants[0];
  EXPECT_EQ(v.variant.kernel, "attn_fwd");
  EXPECT_EQ(v.variant.cache_dir, first_.variants[7].cache_dir);
  ASSERT_EQ(v.stages.size(), 2u);
  EXPECT_EQ(v.stages[0].stage, "ttgir");
  EXPECT_EQ(v.stages[1].stage, "llir");
  for (const auto& s : v.stages) EXPECT_GT(s.lines_added + s.lines_removed, 0u) << s.stage;
  EXPECT_EQ(u->stage_count(), 2u);
  // The same build twice: nothing unstable.
  auto same = check_determinism(first_, first_);
  ASSERT_TRUE(same);
  EXPECT_TRUE(same->variants.empty());
  EXPECT_EQ(same->stages_compared, 40u);
}

TEST_F(DeterminismTest, VariantsOfOneRunOnlyAreUnpaired) {
  build::Build shorter = again_;
  shorter.variants.erase(shorter.variants.begin() + 2);
  auto u = check_determinism(first_, shorter);
  ASSERT_TRUE(u);
  EXPECT_EQ(u->variants_compared, 7u);
  ASSERT_EQ(u->unpaired.size(), 1u);
  EXPECT_EQ(u->unpaired[0].run, 0u);
  EXPECT_EQ(u->unpaired[0].variant.id(), first_.variants[2].id());
}

TEST_F(DeterminismTest, JsonRoundTripsAndMarksTheCapture) {
  auto u = check_determinism(first_, again_);
  ASSERT_TRUE(u);
  const std::string text = build::unstable_json(*u);
  ASSERT_TRUE(write_file_atomic(dir_ + "/again/unstable.json", text).is_ok());
  auto back = build::read_unstable(dir_ + "/again/unstable.json");
  ASSERT_TRUE(back) << back.status().to_string();
  EXPECT_EQ(build::unstable_json(*back), text);
  // load_capture reads it: attn_fwd's two stages are marked, nothing else.
  auto b = build::load_build(dir_ + "/again");
  ASSERT_TRUE(b) << b.status().to_string();
  for (const auto& v : b->variants)
    EXPECT_EQ(v.unstable_stages, v.kernel == "attn_fwd"
                                     ? std::vector<std::string>({"llir", "ttgir"})
                                     : std::vector<std::string>())
        << v.id();
}

TEST_F(DeterminismTest, DiffReportsUnstableChangesApart) {
  auto u = check_determinism(first_, again_);
  ASSERT_TRUE(u);
  // HEAD = again with a real change too: no_licm's softmax TTGIR.
  build::Build head = again_;
  auto nl = build::load_build(example("no_licm"));
  ASSERT_TRUE(nl);
  head.variants[2] = nl->variants[2];
  struct Case {
    const char* name;
    bool mark_base, mark_head;
  } cases[] = {{"known from BASE", true, false},
               {"known from HEAD", false, true},
               {"known from neither", false, false}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    build::Build b = first_, h = head;
    if (c.mark_base) build::mark_unstable(*u, build::UnstableMatch::kIdentity, &b);
    if (c.mark_head) build::mark_unstable(*u, build::UnstableMatch::kSameCapture, &h);
    auto r = diff_builds(b, h);
    ASSERT_TRUE(r) << r.status().to_string();
    const bool known = c.mark_base || c.mark_head;
    const VariantDiff& attn = r->variants[7];
    ASSERT_EQ(attn.key.kernel, "attn_fwd");
    for (const auto& s : attn.stages) {
      const bool differs = s.stage == "ttgir" || s.stage == "llir";
      EXPECT_EQ(s.status, differs ? ChangeStatus::kChanged : ChangeStatus::kUnchanged) << s.stage;
      EXPECT_EQ(s.unstable, differs && known) << s.stage;
    }
    EXPECT_EQ(attn.real_change(), !known);
    EXPECT_TRUE(r->variants[2].real_change());  // softmax: a real change
    for (const auto& s : r->variants[2].stages) EXPECT_FALSE(s.unstable);
    EXPECT_TRUE(r->any_real_change());
    EXPECT_EQ(r->unstable_stage_count(), known ? 2u : 0u);
    uint32_t unstable = 0;
    for (const auto& s : r->summary) {
      unstable += s.unstable;
      if (s.stage == "llir") {
        EXPECT_EQ(s.changed, known ? 1u : 2u);
      }
    }
    EXPECT_EQ(unstable, known ? 2u : 0u);
    // Unstable changes have groups of their own, after every real one.
    bool seen_unstable = false;
    for (const auto& g : r->groups) {
      if (seen_unstable) {
        EXPECT_TRUE(g.unstable) << g.kernel << " " << g.stage;
      }
      seen_unstable |= g.unstable;
      for (size_t vi : g.variants) EXPECT_EQ(r->variants[vi].stage(g.stage)->unstable, g.unstable);
    }
    EXPECT_EQ(seen_unstable, known);
  }
  // Only unstable changes: no real change.
  build::Build b = first_;
  build::mark_unstable(*u, build::UnstableMatch::kIdentity, &b);
  auto r = diff_builds(b, again_);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->any_change());
  EXPECT_FALSE(r->any_real_change());
}

TEST_F(DeterminismTest, MergeOfRepeatsIsTheUnion) {
  auto one = check_determinism(first_, again_);
  auto two = check_determinism(first_, first_);
  ASSERT_TRUE(one && two);
  build::UnstableReport all = *two;
  merge_unstable(&all, *one);
  merge_unstable(&all, *one);
  EXPECT_EQ(all.runs.size(), 4u);
  EXPECT_EQ(all.stage_count(), 2u);
  ASSERT_EQ(all.variants.size(), 1u);
}

TEST_F(DeterminismTest, EveryTruncationOrByteFlipFailsCleanly) {
  auto u = check_determinism(first_, again_);
  ASSERT_TRUE(u);
  // The runs are named by where they were read (a temp folder holding the
  // pid): fixed names keep the text, and so every cut below, the same on
  // every run of the test.
  ASSERT_EQ(u->runs.size(), 2u);
  u->runs = {"runs/first", "runs/again"};
  const std::string text = build::unstable_json(*u);
  ASSERT_EQ(text.back(), '\n');
  // Every prefix: one that drops only trailing white space is the whole
  // document and reads; any shorter one is refused, located in "cut".
  const size_t end = text.find_last_not_of(" \t\r\n") + 1;
  size_t accepted = 0, refused = 0;
  for (size_t n = 0; n <= text.size(); ++n) {
    auto r = build::parse_unstable(std::string_view(text).substr(0, n), "cut");
    if (n >= end) {
      EXPECT_TRUE(r) << "cut at " << n << ": " << r.status().to_string();
      ++accepted;
    } else {
      ASSERT_FALSE(r) << "a document cut at byte " << n << " of " << text.size() << " was accepted";
      EXPECT_EQ(r.status().location().file, "cut") << n;
      EXPECT_GE(r.status().location().line, 1u) << n;
      ++refused;
    }
  }
  EXPECT_EQ(accepted, text.size() - end + 1);
  EXPECT_EQ(refused, end);
  for (size_t at = 0; at < text.size(); at += 5) {
    std::string flipped = text;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x5a);
    auto r = build::parse_unstable(flipped, "flip");  // accepted or a clean error
    if (!r) {
      EXPECT_EQ(r.status().location().file, "flip");
    }
  }
}

TEST(UnstableFileTest, ErrorsNameTheFileAndLine) {
  const std::string dir =
      fs::temp_directory_path() / ("ksnap_unstable_bad_" + std::to_string(getpid()));
  fs::create_directories(dir);
  struct Case {
    const char* name;
    std::string text;
    std::string message;
    uint32_t line;
  } cases[] = {
      {"not json", "{\n \"format\": \"ksnap-unstable\",\n", "", 3},
      {"other format",
       "{\n \"format\": \"ksnap-capture\", \"format_version\": 1,\n \"variants\": []}",
       "ksnap-unstable", 2},
      {"newer version",
       "{\"format\": \"ksnap-unstable\",\n \"format_version\": 7,\n \"variants\": []}",
       "format_version 7", 2},
      {"entry without kernel",
       "{\"format\": \"ksnap-unstable\", \"format_version\": 1,\n \"variants\": [{\"stages\": "
       "[]}]}",
       "missing \"kernel\" in variants[0] (string)", 2},
      {"entry without stages",
       "{\"format\": \"ksnap-unstable\", \"format_version\": 1,\n \"variants\": [\n"
       "  {\"kernel\": \"k\"}]}",
       "missing \"stages\" in variants[0] (array)", 3},
      {"constexprs not an object",
       "{\"format\": \"ksnap-unstable\", \"format_version\": 1, \"variants\": [\n"
       "  {\"kernel\": \"k\", \"constexprs\": [1], \"stages\": []}]}",
       "expected object for \"constexprs\" in variants[0], got array", 2},
      {"count not a number",
       "{\"format\": \"ksnap-unstable\", \"format_version\": 1, \"variants\": [\n"
       "  {\"kernel\": \"k\", \"stages\": [\n   {\"stage\": \"llir\", \"lines_added\": \"2\"}]}]}",
       "expected integer for \"lines_added\" in variants[0].stages[0], got string", 3},
      {"runs not strings",
       "{\"format\": \"ksnap-unstable\", \"format_version\": 1,\n \"runs\": [\"a\", 7], "
       "\"variants\": []}",
       "expected string for item 1 in runs, got number", 2},
      {"negative run",
       "{\"format\": \"ksnap-unstable\", \"format_version\": 1, \"variants\": [],\n"
       " \"unpaired\": [{\"kernel\": \"k\", \"run\": -1}]}",
       "for \"run\" in unpaired[0]", 2},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = dir + "/unstable.json";
    ASSERT_TRUE(write_file_atomic(path, c.text).is_ok());
    auto r = build::read_unstable(path);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.status().location().file, path);
    EXPECT_EQ(r.status().location().line, c.line) << r.status().to_string();
    EXPECT_NE(r.status().message().find(c.message), std::string::npos) << r.status().to_string();
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ksnap::diff

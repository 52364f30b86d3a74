// ConeKeys, the one-graph, one-run form of the structural diff's alignment
// keys, against what it replaced, on real IR (every unit of every stage of
// the corpus's `base` and `no_licm` variants):
//   - whole_steps() equals the step count found by counting the distinct
//     cone keys with a std::set over fresh runs (the cones as of step s are
//     the whole-cone levels of neighbourhood_keys(m, lines, 1, s));
//   - keys(whole) after whole_steps() (the run goes on from where
//     whole_steps() stopped) equals keys(whole) of a fresh run, for the
//     whole step count and beyond it.
#include "diff/line_keys.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "ksnap/build/build.h"
#include "ksnap/support/file.h"

namespace fs = std::filesystem;

namespace ksnap::diff {
namespace {

std::string corpus_dir() {
  std::string dir = KSNAP_CORPUS_DIR;
  return fs::exists(dir + "/no_licm/manifest.json") ? dir : KSNAP_EXAMPLE_DIR;
}

ir::Dialect dialect_of(const std::string& stage) {
  if (stage == "llir") return ir::Dialect::kLlvm;
  if (stage == "ptx") return ir::Dialect::kPtx;
  return ir::Dialect::kMlir;
}

/// Distinct values of both cones after `s` steps, counted by std::set.
size_t distinct_after(const norm::Module& m, const LineSeq& lines, int s) {
  // With 1 neighbourhood step, levels 1 and 2 are the whole down and up
  // cones, max(1, s) steps deep; level 5 is the base (step 0).
  auto k = neighbourhood_keys(m, lines, 1, s);
  const std::vector<uint64_t>& down = s == 0 ? k[5] : k[1];
  const std::vector<uint64_t>& up = s == 0 ? k[5] : k[2];
  return std::set<uint64_t>(down.begin(), down.end()).size() +
         std::set<uint64_t>(up.begin(), up.end()).size();
}

/// The whole step count as whole_cone_steps() defined it before ConeKeys:
/// step until the number of distinct keys stops growing (at most 256).
int oracle_whole_steps(const norm::Module& m, const LineSeq& lines) {
  size_t seen = distinct_after(m, lines, 0);
  for (int s = 1; s <= 256; ++s) {
    size_t now = distinct_after(m, lines, s);
    if (now == seen) return s;
    seen = now;
  }
  return 256;
}

TEST(ConeKeys, EqualsFreshRunsOnCorpusUnits) {
  size_t units = 0, checked_oracle = 0;
  for (const char* build_name : {"base", "no_licm"}) {
    auto b = build::load_build(corpus_dir() + "/" + build_name);
    ASSERT_TRUE(b) << b.status().to_string();
    for (const build::Variant& v : b->variants) {
      for (const build::StageFile& f : v.stages) {
        if (f.stage == "source") continue;
        auto text = read_text_file(f.path);
        ASSERT_TRUE(text) << f.path;
        auto m = norm::normalize(*text, dialect_of(f.stage));
        ASSERT_TRUE(m) << m.status().to_string();
        for (const norm::Unit& u : m->units) {
          LineSeq lines;
          for (const norm::Line& l : u.lines) lines.push_back(&l);
          if (lines.empty()) continue;
          ++units;
          ConeKeys c(*m, lines, 4);
          int whole = c.whole_steps();
          EXPECT_EQ(whole, whole_cone_steps(*m, lines)) << f.path << " " << u.name;
          // The std::set oracle steps afresh for every s: keep it to the
          // smaller units.
          if (lines.size() <= 400 && whole <= 40) {
            EXPECT_EQ(whole, oracle_whole_steps(*m, lines)) << f.path << " " << u.name;
            ++checked_oracle;
          }
          for (int extra : {0, 3}) {
            ConeKeys went_on(*m, lines, 4);
            went_on.whole_steps();
            EXPECT_EQ(went_on.keys(whole + extra), ConeKeys(*m, lines, 4).keys(whole + extra))
                << f.path << " " << u.name << " +" << extra;
          }
          // Fewer whole steps than neighbourhood steps: the whole cones are
          // the cones 4 steps deep.
          EXPECT_EQ(neighbourhood_keys(*m, lines, 4, 1), neighbourhood_keys(*m, lines, 4, 4));
        }
      }
    }
  }
  EXPECT_GT(units, 50u);
  EXPECT_GT(checked_oracle, 20u);
}

}  // namespace
}  // namespace ksnap::diff

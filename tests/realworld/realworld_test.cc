// The real ksnap binary on every pair of builds of the real-world corpora,
// scored against their truth.json (tests/realworld/scoring.h): no crash, no
// false change, no missed change, exact pairing.
//
//   tests/fixtures/realworld  Triton 3.6 tutorials captured on an H200 under
//                             cosmetic changes and compiler knobs, NVIDIA and
//                             gfx942 (docs/realworld-corpus.md)
//   ../shared/corpus          the shared corpus (skipped when absent)
//
// One test per pair: RealWorld/Pairs.Diff/realworld_base__llvm_opt_off.
#include <gtest/gtest.h>

#include <sstream>

#include "realworld/scoring.h"

namespace ksnap::realworld {
namespace {

struct PairCase {
  const Corpus* corpus = nullptr;
  std::string pair;
  std::string skip;  ///< Non-empty: the corpus is missing.
};

void PrintTo(const PairCase& c, std::ostream* os) { *os << c.corpus->name << ":" << c.pair; }

const std::vector<Corpus>& corpora() {
  static const std::vector<Corpus> all = {
      load_corpus("realworld", KSNAP_SOURCE_DIR "/tests/fixtures/realworld",
                  KSNAP_SOURCE_DIR "/tests/fixtures/realworld/truth.json"),
      load_corpus("shared", KSNAP_CORPUS_DIR, KSNAP_CORPUS_DIR "/truth.json"),
  };
  return all;
}

std::vector<PairCase> cases() {
  std::vector<PairCase> out;
  for (const Corpus& c : corpora()) {
    if (!c.error.empty()) {
      out.push_back({&c, "", c.error});
      continue;
    }
    for (const std::string& p : pair_names(c)) out.push_back({&c, p, ""});
  }
  return out;
}

std::string case_name(const testing::TestParamInfo<PairCase>& info) {
  std::string n = info.param.corpus->name + "_" + (info.param.pair.empty() ? "missing" : info.param.pair);
  for (char& ch : n)
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

class Pairs : public testing::TestWithParam<PairCase> {};

TEST_P(Pairs, Diff) {
  const PairCase& pc = GetParam();
  if (!pc.skip.empty()) {
    if (pc.corpus->name == "realworld") FAIL() << pc.skip;  // the fixture is in the repository
    GTEST_SKIP() << pc.skip;
  }
  PairScore s = score_pair(KSNAP_BINARY, *pc.corpus, pc.pair);
  std::ostringstream detail;
  for (const std::string& p : s.problems) detail << "\n  " << p;
  ASSERT_FALSE(s.crashed) << pc.pair << ": ksnap crashed (" << s.error << ")";
  ASSERT_EQ(s.exit_code, 0) << pc.pair << ": " << s.error;
  EXPECT_EQ(s.pairing_errors, 0u) << pc.pair << " pairing:" << detail.str();
  EXPECT_EQ(s.false_changes, 0u) << pc.pair << " false changes:" << detail.str();
  EXPECT_EQ(s.misses, 0u) << pc.pair << " misses:" << detail.str();
  EXPECT_GT(s.stages_compared, 0u) << pc.pair << ": nothing was compared";
}

INSTANTIATE_TEST_SUITE_P(RealWorld, Pairs, testing::ValuesIn(cases()), case_name);

}  // namespace
}  // namespace ksnap::realworld

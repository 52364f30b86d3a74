// The acceptance test on real Triton 3.6 output: the normalized hash must be
// equal exactly where truth.json says nothing changed. On the shared corpus
// where present, else on the bundled example (support/corpus_dir.h); counts
// come from its truth.json.
#include <gtest/gtest.h>

#include <set>

#include "ksnap/support/hash.h"
#include "normalize/corpus_util.h"

namespace ksnap::norm {
namespace {

using testing::corpus_dir;
using testing::dialect_of;
using testing::load_build;
using testing::load_truth;
using testing::read_or_die;
using testing::split_row_key;

class CorpusTest : public ::testing::Test {
 protected:
  uint64_t hash_of(const std::string& path, const std::string& stage) {
    auto it = cache_.find(path);
    if (it != cache_.end()) return it->second;
    TextBuffer buf = read_or_die(path);
    auto h = normalized_hash(buf, dialect_of(stage));
    EXPECT_TRUE(h) << h.status().to_string();
    return cache_[path] = h ? *h : 0;
  }

  /// Compares build `a` against build `b` for every row of `truth_pair`;
  /// returns the rows where "hash differs" disagrees with "changed".
  std::vector<std::string> mismatches(const std::string& a, const std::string& b,
                                      const std::string& truth_pair, size_t* rows,
                                      size_t* changed) {
    auto va = load_build(a), vb = load_build(b);
    auto truth = load_truth(truth_pair);
    std::vector<std::string> bad;
    *rows = truth.size();
    *changed = 0;
    for (const auto& [row, is_changed] : truth) {
      std::string variant, stage;
      split_row_key(row, &variant, &stage);
      if (!va.count(variant) || !vb.count(variant)) {
        bad.push_back("unpaired: " + row);
        continue;
      }
      *changed += is_changed;
      bool differs = hash_of(va[variant] + "." + stage, stage) !=
                     hash_of(vb[variant] + "." + stage, stage);
      if (differs != is_changed) bad.push_back((is_changed ? "missed change: " : "noise: ") + row);
    }
    return bad;
  }

  std::map<std::string, uint64_t> cache_;
};

struct PairCase {
  const char* name;
  const char* a;
  const char* b;
  const char* truth;  ///< Rows and ground truth; noise..no_licm inherits base..no_licm.
  bool changes;       ///< Whether truth.json marks some kernel-stage changed.
};

class CorpusPairTest : public CorpusTest, public ::testing::WithParamInterface<PairCase> {};

TEST_P(CorpusPairTest, HashDiffersExactlyWhereTruthSaysChanged) {
  const PairCase& c = GetParam();
  size_t rows = 0, changed = 0;
  auto bad = mismatches(c.a, c.b, c.truth, &rows, &changed);
  // The truth covers every stage of every variant of the build, and counts
  // as many changed rows as its "changed" says.
  EXPECT_EQ(rows, load_build(c.a).size() * testing::corpus_stages().size());
  const nlohmann::json& pair = ksnap::testing::corpus_truth()["pairs"][c.truth];
  EXPECT_EQ(changed, pair["changed"].get<size_t>());
  EXPECT_EQ(changed > 0, c.changes) << changed;
  EXPECT_TRUE(bad.empty()) << ::testing::PrintToString(bad);
}

const PairCase kPairs[] = {
    {"noise_equal_everywhere", "base", "noise", "base..noise", false},
    {"no_licm", "base", "no_licm", "base..no_licm", true},
    {"fusion_off", "base", "fusion_off", "base..fusion_off", true},
    {"noise_vs_no_licm", "noise", "no_licm", "base..no_licm", true},
};

INSTANTIATE_TEST_SUITE_P(Truth, CorpusPairTest, ::testing::ValuesIn(kPairs),
                         [](const auto& info) { return std::string(info.param.name); });

TEST_F(CorpusTest, PlainTextHashesDifferForNoiseSoTheTestCanFail) {
  // Without normalization the noise build differs everywhere: the equality
  // above is the normalizer's doing, not the corpus's.
  auto va = load_build("base"), vb = load_build("noise");
  size_t differ = 0, total = 0;
  for (const auto& [variant, prefix] : va) {
    for (const std::string& stage : testing::corpus_stages()) {
      ++total;
      differ += hash64(read_or_die(prefix + "." + stage).view()) !=
                hash64(read_or_die(vb[variant] + "." + stage).view());
    }
  }
  EXPECT_EQ(total, load_truth("base..noise").size());
  EXPECT_EQ(differ, total);
}

TEST_F(CorpusTest, FastHashEqualsModuleHashEqualsCanonicalTextHash) {
  for (const char* build : {"base", "noise", "no_licm", "fusion_off"}) {
    for (const std::string& path : testing::corpus_files(build)) {
      std::string stage = path.substr(path.rfind('.') + 1);
      TextBuffer buf = read_or_die(path);
      auto m = normalize(buf, dialect_of(stage));
      ASSERT_TRUE(m) << m.status().to_string();
      auto h = normalized_hash(buf, dialect_of(stage));
      ASSERT_TRUE(h) << h.status().to_string();
      EXPECT_EQ(m->hash, *h) << path;
      EXPECT_EQ(hash64(canonical_text(*m)), m->hash) << path;
      ASSERT_GE(m->units.size(), 2u) << path;  // module level + the kernel
      uint64_t lines = 0;
      for (const Unit& u : m->units) {
        EXPECT_EQ(hash64(canonical_unit_text(*m, u)), u.hash) << path;
        lines += u.lines.size();
      }
      EXPECT_GT(lines, 10u) << path;
    }
  }
}

TEST_F(CorpusTest, EveryOpLineMapsToAPythonLine) {
  // Each stage keeps the op -> Python line mapping although locations do not
  // count for the hash: most ops carry a location.
  auto va = load_build("base");
  for (const std::string& stage : testing::corpus_stages()) {
    size_t ops = 0, mapped = 0;
    for (const auto& [variant, prefix] : va) {
      TextBuffer buf = read_or_die(prefix + "." + stage);
      auto m = normalize(buf, dialect_of(stage));
      ASSERT_TRUE(m) << m.status().to_string();
      for (const Unit& u : m->units) {
        if (u.name.empty()) continue;
        for (const Line& l : u.lines) {
          if (l.op.empty()) continue;
          ++ops;
          mapped += l.py_line > 0;
        }
      }
    }
    EXPECT_GT(ops, 100u) << stage;
    EXPECT_GT(mapped * 10, ops * 7) << stage << ": " << mapped << " of " << ops;
  }
}

}  // namespace
}  // namespace ksnap::norm

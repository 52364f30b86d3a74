#include "ksnap/tune/race.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace ksnap::tune {
namespace {

/// Drives a race with log-normal noise around `medians` (relative sigma).
Race run(const std::vector<double>& medians, double sigma, uint64_t seed, RaceConfig cfg = {}) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, sigma);
  Race race(medians.size(), cfg);
  size_t guard = 0;
  while (!race.committed() && guard++ < 100000) {
    size_t v = race.next();
    race.record(v, medians[v] * std::exp(noise(rng)));
  }
  return race;
}

TEST(Race, SingleVariantCommitsAtOnce) {
  Race r(1);
  EXPECT_TRUE(r.committed());
  EXPECT_EQ(r.decision(), Decision::kSingle);
  EXPECT_EQ(r.choice(), 0u);
}

TEST(Race, RoundRobinRotatesAndCoversSurvivors) {
  Race r(3);
  std::vector<size_t> order;
  for (int i = 0; i < 6; ++i) order.push_back(r.next());
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 1, 2, 0}));
}

struct SeparationCase {
  std::vector<double> medians;
  size_t best;
};

TEST(Race, PicksTheClearlyFastestVariant) {
  const SeparationCase cases[] = {
      {{100, 150, 200}, 0},
      {{300, 120, 180, 240}, 1},
      {{50, 60, 40, 45, 70}, 2},
  };
  for (const auto& c : cases) {
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      Race r = run(c.medians, 0.03, seed);
      ASSERT_TRUE(r.committed());
      EXPECT_EQ(r.choice(), c.best) << "seed " << seed;
      EXPECT_EQ(r.decision(), Decision::kSeparated);
      EXPECT_LT(r.launches(), 80u) << "clear gaps should resolve in a few rounds";
      for (size_t i = 0; i < c.medians.size(); ++i)
        if (i != c.best) {
          EXPECT_FALSE(r.variant(i).alive);
        }
    }
  }
}

TEST(Race, EqualVariantsTieInDeclarationOrder) {
  RaceConfig cfg;
  cfg.max_launches = 100000;  // let certification, not the budget, decide
  int first = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    Race r = run({200, 100, 100, 100}, 0.01, seed, cfg);
    EXPECT_EQ(r.decision(), Decision::kTied) << "seed " << seed;
    EXPECT_FALSE(r.variant(0).alive);
    // The first survivor in declaration order, whatever the noise made the leader.
    size_t first_alive = 1;
    while (!r.variant(first_alive).alive) ++first_alive;
    EXPECT_EQ(r.choice(), first_alive) << "seed " << seed;
    first += r.choice() == 1;
  }
  EXPECT_GE(first, 17) << "an equal variant is rarely eliminated by chance";
}

TEST(Race, BudgetEndsAnUndecidableRace) {
  RaceConfig cfg;
  cfg.max_launches = 40;
  Race r = run({100, 100.3}, 0.2, 7, cfg);
  EXPECT_EQ(r.decision(), Decision::kBudget);
  EXPECT_LE(r.launches(), 40u);
  RaceConfig timed;
  timed.max_time_us = 1000;
  Race t = run({100, 100.3}, 0.2, 7, timed);
  EXPECT_EQ(t.decision(), Decision::kBudget);
  EXPECT_GE(t.explored_time_us(), 1000);
  EXPECT_LT(t.explored_time_us(), 1400);
}

TEST(Race, WarmupSamplesAreDiscarded) {
  RaceConfig cfg;
  cfg.warmup = 1;
  Race r(2, cfg);
  r.record(r.next(), 1e6);  // a cold launch of variant 0
  r.record(r.next(), 10);
  EXPECT_EQ(r.variant(0).recorded, 1u);
  EXPECT_TRUE(r.variant(0).samples.empty());
  EXPECT_TRUE(r.variant(1).samples.empty());
  for (int i = 0; i < 20 && !r.committed(); ++i) {
    size_t v = r.next();
    r.record(v, v == 0 ? 5.0 + 0.01 * i : 10.0 + 0.01 * i);
  }
  EXPECT_TRUE(r.committed());
  EXPECT_EQ(r.choice(), 0u);  // the 1e6 µs warm-up did not count against it
}

TEST(Race, TimingsAfterCommitAreIgnored) {
  Race r = run({100, 200}, 0.02, 3);
  ASSERT_TRUE(r.committed());
  size_t before = r.variant(1).recorded;
  r.record(1, 1.0);
  EXPECT_EQ(r.variant(1).recorded, before);
  EXPECT_EQ(r.choice(), 0u);
}

TEST(Race, PairedComparisonCancelsCommonDrift) {
  // Both variants drift together by +-20% per round; B is 3% slower. Paired
  // comparison sees the 3% at once; independent estimates drown in the drift.
  RaceConfig paired;
  paired.paired = true;
  Race r(2, paired);
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> drift(0.8, 1.2);
  std::vector<double> round_factor;
  std::vector<size_t> count(2, 0);
  while (!r.committed()) {
    size_t v = r.next();
    size_t k = count[v]++;
    while (round_factor.size() <= k) round_factor.push_back(drift(rng));
    r.record(v, (v == 0 ? 100 : 103) * round_factor[k]);
  }
  EXPECT_EQ(r.choice(), 0u);
  EXPECT_EQ(r.decision(), Decision::kSeparated);
  EXPECT_LT(r.launches(), 30u);
}

TEST(Race, DecisionNames) {
  EXPECT_STREQ(decision_name(Decision::kTied), "tied");
  EXPECT_STREQ(decision_name(Decision::kBudget), "budget");
  EXPECT_STREQ(decision_name(Decision::kCached), "cached");
}

}  // namespace
}  // namespace ksnap::tune

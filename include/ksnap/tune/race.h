// ksnap tune: the online selection policy, a confidence-bound race.
//
// A race explores the variants of one (group, workload) pair round-robin —
// each round visits every surviving variant once, starting one place later
// than the round before, so slow drift (clocks, temperature, a neighbour's
// load) hits all variants alike. It compares the survivors by a robust
// estimator (median or trimmed mean, see stats.h) at checkpoints, whenever
// the smallest survivor sample count has grown by 25%:
//
//   r(a,b)        = log of a's time over b's, log(est a / est b) from two
//                   independent estimates (or, with `paired`, the robust estimate
//                   of the per-round log ratios); se(a,b) its standard error;
//   eliminate i   when  r(i,L) - z_eliminate * se(i,L) > 0, L the leader (lowest
//                   estimate): i is slower than L, confidently;
//   tied          when  r(s,L) + z_tie * se(s,L) < log(1+tol) for every survivor s
//                   (pairs with >= tie_min_samples): all survivors are within the tie
//                   tolerance of the leader, confidently; the first survivor in
//                   declaration order is committed, so equal variants always
//                   resolve the same way;
//   leader        when  r(L,s) + z_tie * se(L,s) < log(1+tol) and
//                   r(s,L) - se(s,L) > log(1+tol/2)
//                   for every other survivor s: the leader is confidently within the
//                   tolerance of all of them and none is a near-equal rival;
//   separated     when one survivor is left;
//   budget        when the survivors have spent max_launches (doubled for a duel of
//                   two survivors out of more): the lowest estimate wins ("budget").
//
// Worked example (3 variants A, B, C; tol 1% so log(1.01) = 0.00995; z 3 and 3):
//   after 5 rounds   r(B,A) = 0.262 ± 0.010   r(C,A) = 0.006 ± 0.008, A leads
//   B: 0.262 - 3*0.010 = 0.232 > 0              -> B eliminated (slower than A)
//   tied? r(C,A) + 3*se = 0.006 + 0.024 = 0.030 > 0.00995 -> not yet
//   ... after 40 rounds r(C,A) = 0.005 ± 0.0012:
//   tied: 0.005 + 3*0.0012 = 0.0086 < 0.00995   -> commit A (declared first), "tied".
//
// The race only decides; it never launches or times anything itself. Group
// (group.h) drives it from dispatch() and tune(); replay.h drives it from
// recorded samples with a fake clock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ksnap/tune/stats.h"

namespace ksnap::tune {

/// Tuning knobs of a race. Defaults are the ones validated by `ksnap tune
/// replay` on the H200 matmul samples (docs/autotune.md).
struct RaceConfig {
  /// Variants within this relative distance of the best count as equally good.
  double tie_tolerance = 0.01;
  Estimator estimator = Estimator::kMedian;
  /// One-sided z for "slower than the leader" (elimination).
  double z_eliminate = 3.0;
  /// One-sided z for "within tie_tolerance of every survivor" (commit).
  double z_tie = 3.0;
  /// Recorded samples every survivor needs before any test runs.
  size_t min_samples = 5;
  /// Samples a pair needs before a tie is certified (the standard error of
  /// a median from few samples is itself too noisy to trust for a commit).
  size_t tie_min_samples = 16;
  /// A duel (two survivors left, a near-tolerance gap between them) may spend
  /// this many times the launch budget before the lower estimate wins.
  double duel_budget_factor = 2.0;
  /// Launches per variant timed but discarded (cold caches, lazy module load).
  size_t warmup = 0;
  /// Compare two variants by the robust estimate of their per-round log
  /// ratio (the k-th timing of each comes from the same round, so drift
  /// cancels) instead of by two independent estimates.
  bool paired = false;
  /// Launch budget of the variants still racing (warm-up included); 0 = 32 per
  /// variant. Launches already spent on eliminated variants do not count.
  size_t max_launches = 0;
  /// Exploration budget in explored kernel time, µs; 0 = unlimited.
  double max_time_us = 0;
};

/// Why a (group, workload) pair runs the variant it runs.
enum class Decision : unsigned char {
  kExploring,  ///< No decision yet.
  kSeparated,  ///< The leader was confidently faster than every other variant.
  kTied,       ///< The survivors were within the tie tolerance; declaration order chose.
  kLeader,     ///< The leader was within the tolerance of every survivor, all trailing.
  kBudget,     ///< The exploration budget ran out; the lowest estimate won.
  kSingle,     ///< The group has one variant.
  kForced,     ///< Forced by API or KSNAP_TUNE_FORCE.
  kCached,     ///< Loaded from a valid tuning-cache entry.
  kDisabled,   ///< Tuning disabled: the default variant runs.
  kAdopted,    ///< Decided elsewhere: another process (the shared cache file) or the agreement hook.
};

/// "exploring", "separated", "tied", ...
const char* decision_name(Decision d);

/// Per-variant state of a race, for reports.
struct RaceVariantStats {
  size_t launches = 0;        ///< Launches issued for this variant (warm-up included).
  size_t recorded = 0;        ///< Timings received (warm-up included).
  SortedSamples samples;      ///< Kept timings (warm-up excluded), sorted.
  std::vector<double> in_order;  ///< Kept timings in arrival order (k-th = round k).
  bool alive = true;
  int eliminated_by = -1;     ///< Leader at elimination time, or -1.
  size_t eliminated_at = 0;   ///< Total launches when eliminated.
  bool excluded = false;      ///< Taken out before timing (Race::exclude): never chosen.
};

class Race {
 public:
  /// A race over `n_variants` (>= 1) variants.
  Race(size_t n_variants, RaceConfig config = {});

  size_t size() const { return stats_.size(); }
  const RaceConfig& config() const { return config_; }

  /// The next variant to launch for exploration. Call only while !committed().
  size_t next();

  /// Records a timing (µs) of a launch of `variant` issued by next(); may
  /// eliminate variants or commit. Timings arriving after commit are ignored.
  void record(size_t variant, double time_us);

  /// Takes `variant` out of the race before (or while) it is timed: it is
  /// never launched by next() again and never chosen. When one survivor is
  /// left it is committed ("separated"). Excluding the last survivor is
  /// refused (returns false); so is excluding after the commit.
  bool exclude(size_t variant);

  bool committed() const { return decision_ != Decision::kExploring; }
  Decision decision() const { return decision_; }
  /// The committed variant; before commit the current leader (0 if unknown).
  size_t choice() const;
  /// Index of the survivor with the lowest estimate (ties: declaration order).
  size_t leader() const;

  const RaceVariantStats& variant(size_t i) const { return stats_[i]; }
  Estimate estimate(size_t i) const { return stats_[i].samples.estimate(config_.estimator); }
  size_t launches() const { return launches_; }
  /// Sum of recorded exploration timings (µs).
  double explored_time_us() const { return explored_time_us_; }
  size_t alive_count() const;

 private:
  void evaluate();
  void add_pairs(size_t variant);
  /// log(est(a)/est(b)) and its standard error: paired or independent.
  Estimate compare(size_t a, size_t b) const;
  void commit(size_t choice, Decision why);
  size_t budget_launches() const;

  RaceConfig config_;
  std::vector<RaceVariantStats> stats_;
  std::vector<SortedSamples> pairs_;  // [a*n+b], a<b: sorted log(x_a,k / x_b,k)
  std::vector<size_t> round_;  // the order of the round in progress
  size_t round_pos_ = 0;
  size_t round_no_ = 0;
  size_t launches_ = 0;
  double explored_time_us_ = 0;
  Decision decision_ = Decision::kExploring;
  size_t choice_ = 0;
  size_t next_check_ = 0;  // survivor sample count of the next test
};

}  // namespace ksnap::tune

// ksnap tune: replay recorded launch timings through the online race with a
// fake clock, and compare it with exhaustive timing.
//
// One trial of workload W: a seeded generator plays the part of the GPU. Each
// exploration launch the race asks for returns a recorded sample of that
// variant (drawn with replacement: "iid"; or, in "paired" mode, the sample of
// the same recorded round for every variant in a race round, so that the
// drift recorded across interleaved launches hits all variants alike). The
// fake clock advances by the sample; results reach the race `lag` launches
// after they were issued, as CUDA events read later would. The trial scores
// a hit when the committed variant's true median (over all recorded samples)
// is within `tolerance` of the best variant's true median.
//
// Exhaustive timing with n samples per variant picks the lowest median of n
// draws per variant (same generator). Its "n for the confidence" is the
// smallest n on the grid whose hit rate reaches `confidence`; the exhaustive
// design that gives that confidence on every workload is the largest of
// those n, and costs variants*n launches per workload.
//
// Worked example (the H200 matmul file, default settings): on 8192x8192x1024
// the best variant (v2, 302.1 µs) and v0 (305.9 µs, +1.25%) are hard to tell
// apart; the race drops v3..v7 within a few rounds and spends its launches
// on v0/v2, so it needs a fraction of the 8*n launches exhaustive timing
// spends for the same hit rate.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ksnap/tune/race.h"
#include "ksnap/tune/samples.h"

namespace ksnap::tune {

enum class ReplayMode : unsigned char { kIid, kPaired };
const char* replay_mode_name(ReplayMode m);
Expected<ReplayMode> parse_replay_mode(std::string_view text);

struct ReplayConfig {
  RaceConfig race;
  size_t trials = 1000;
  uint64_t seed = 1;
  ReplayMode mode = ReplayMode::kIid;
  /// Launches between issuing a timed launch and its result reaching the race.
  size_t lag = 2;
  /// A pick is a hit when within this relative distance of the best true median.
  double tolerance = 0.01;
  /// Hit rate exhaustive timing must reach to count as "the same confidence".
  double confidence = 0.99;
};

/// Exhaustive timing with `n` samples per variant on one workload.
struct ExhaustivePoint {
  size_t n = 0;
  double hit_rate = 0;
};

struct ReplayWorkloadResult {
  std::string label;
  size_t best_variant = 0;        ///< lowest true median
  std::vector<double> true_median;
  // Online race.
  double hit_rate = 0;            ///< fraction of trials within tolerance
  double mean_launches = 0;       ///< exploration launches per trial
  size_t p99_launches = 0;
  size_t max_launches = 0;
  double mean_explore_us = 0;     ///< fake-clock time spent exploring
  double mean_regret_us = 0;      ///< exploration time beyond best median * launches
  size_t decisions[8] = {};       ///< trials per Decision value
  std::vector<size_t> picks;      ///< trials per chosen variant
  // Exhaustive timing.
  std::vector<ExhaustivePoint> exhaustive;  ///< hit rate per n on the grid
  size_t exhaustive_n = 0;        ///< smallest n reaching `confidence` (0: none on the grid)
  // Reference figures from the file.
  std::optional<double> reference_tuning_s;
  std::optional<size_t> reference_choice;
  bool reference_hit = false;
};

struct ReplayResult {
  ReplayConfig config;
  std::string source;
  std::string device;
  std::vector<std::string> variant_names;
  std::vector<ReplayWorkloadResult> workloads;
  /// Largest per-workload exhaustive_n: exhaustive timing that reaches the
  /// confidence on every workload uses variants * this many launches each.
  size_t exhaustive_n = 0;
  bool exhaustive_reached = true;  ///< false when some workload never reached it on the grid
  /// Per workload: online mean launches / (variants * exhaustive_n).
  std::vector<double> launch_ratio;
  /// The bar of the issue: every workload hit_rate >= confidence and ratio <= 0.25.
  bool meets(double max_ratio = 0.25) const;
};

/// Runs the replay. Errors: kInvalidArgument for unusable settings.
Expected<ReplayResult> replay(const RecordedSamples& samples, const ReplayConfig& config);

/// Text table / JSON object of a result (JSON schema in docs/autotune.md).
std::string replay_to_text(const ReplayResult& r);
std::string replay_to_json(const ReplayResult& r);

}  // namespace ksnap::tune

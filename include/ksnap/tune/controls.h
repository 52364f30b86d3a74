// ksnap tune: controls from the environment.
//
//   KSNAP_TUNE_DISABLE=1            never explore; valid cached decisions still apply,
//                                   otherwise the default variant runs
//   KSNAP_TUNE_FORCE=v              run variant v (name or index) in every group;
//                   =matmul:v,add:1 per group name
//   KSNAP_TUNE_CACHE=path           the tuning cache file ("off" or "" = none)
//   KSNAP_TUNE_REPORT=path|stderr   write the group's report when it is destroyed
//   KSNAP_TUNE_LOG=path             append every commit as one JSON line (group.h CommitEvent)
//   KSNAP_TUNE_POLICY=online|ahead|load
//   KSNAP_TUNE_TIE_TOLERANCE=0.01   KSNAP_TUNE_BUDGET=32 (launches per variant)
//   KSNAP_TUNE_ESTIMATOR=median|trimmed_mean
//
// Each has an API equivalent on Group / GroupOptions; the environment wins
// over the options a program compiled in, so an operator can override them.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "ksnap/support/status.h"
#include "ksnap/tune/stats.h"

namespace ksnap::tune {

enum class Policy : uint8_t {
  kOnline,       ///< explore while serving real calls
  kAheadOfTime,  ///< tune(workload) at initialization on synthetic data
  kAtLoad,       ///< tune a declared list of workloads when the group is created
};
const char* policy_name(Policy p);
Expected<Policy> parse_policy(std::string_view text);

struct EnvControls {
  bool disable = false;
  std::string force;  ///< raw KSNAP_TUNE_FORCE
  std::optional<std::string> cache_path;
  std::optional<std::string> report_path;
  std::optional<std::string> commit_log_path;  ///< KSNAP_TUNE_LOG
  std::optional<Policy> policy;
  std::optional<double> tie_tolerance;
  std::optional<size_t> budget_per_variant;
  std::optional<Estimator> estimator;

  /// The forced variant spelled for group `group` ("" = none).
  std::string force_for(const std::string& group) const;
};

using GetEnv = std::function<const char*(const char*)>;

/// Reads KSNAP_TUNE_*; a malformed value is kInvalidArgument naming the variable.
Expected<EnvControls> read_env_controls(const GetEnv& getenv_fn = nullptr);

}  // namespace ksnap::tune

// ksnap tune: recorded per-launch timings of a group's variants on several
// workloads, the input of `ksnap tune replay`.
//
// File format (JSON; the H200 matmul recording in shared/data uses it):
//   { "device": "NVIDIA H200",
//     "configs": [[128,256,64,8,3,8], ...],          // optional: one label per variant
//     "shapes": [ { "shape": [512,512,512],
//                   "samples_us": [[31.1, 30.9, ...],  // one array per variant
//                                  ...],
//                   "autotune_first_call_s": 0.85,     // optional reference figures
//                   "autotune_choice": [7] }, ...] }
// Every shape must have the same number of variants and at least one sample
// per variant; times are positive microseconds.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ksnap/support/status.h"

namespace ksnap::tune {

struct RecordedWorkload {
  std::string label;                         ///< "512x512x512"
  std::vector<std::vector<double>> samples;  ///< [variant][launch], µs
  std::vector<double> true_median;           ///< median of all samples, per variant
  std::optional<double> reference_tuning_s;  ///< e.g. triton.autotune's first call
  std::optional<size_t> reference_choice;    ///< e.g. triton.autotune's pick
};

struct RecordedSamples {
  std::string source;                       ///< file it came from
  std::string device;
  std::vector<std::string> variant_names;   ///< "v0" ... or the configs as text
  std::vector<RecordedWorkload> workloads;
};

/// Parses a samples file. Errors: kNotFound/kIoError, kParseError with the
/// file, line and column of bad JSON or of the offending field.
Expected<RecordedSamples> load_samples(const std::string& path);
/// Same, from text already in memory (`name` is used in messages).
Expected<RecordedSamples> parse_samples(std::string_view text, const std::string& name);

}  // namespace ksnap::tune

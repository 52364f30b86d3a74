// Scores `ksnap diff --format json BASE HEAD` against a corpus's truth.json:
// crashes, false changes, misses and pairing errors of one pair of builds.
//
// Two truth layouts are read:
//   - the real-world corpus (tests/fixtures/realworld/truth.json, written by
//     gpu/realworld/make_truth.py): pairs hold "variants" {BASE cache folder ->
//     {head_dir, id}}, "removed"/"added" lists and rows keyed
//     "<BASE cache folder>|<stage>" with "changed" and optional "unstable";
//     a reported variant is matched by the cache folders of its stage paths;
//   - the shared corpus (../shared/corpus/truth.json): rows keyed
//     "<kernel|constexprs|options>|<stage>"; every variant pairs with the
//     variant of the same id; a reported variant is matched by its ids.
//
//   Corpus c = load_corpus("realworld", dir, dir + "/truth.json");
//   PairScore s = score_pair(ksnap_binary, c, "base..llvm_opt_off");
//   s.crashed, s.false_changes, s.misses, s.pairing_errors, s.problems
#pragma once

#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ksnap::realworld {

struct Corpus {
  std::string name;  ///< "realworld", "shared", ...
  std::string dir;   ///< Folder holding one folder per build.
  nlohmann::json truth;
  bool by_cache_dir = false;  ///< Real-world layout (else shared-corpus ids).
  std::string error;          ///< Why the corpus could not be read ("" = ok).
};

/// Reads truth.json; a missing or malformed file leaves `error` set.
Corpus load_corpus(const std::string& name, const std::string& dir, const std::string& truth);

/// "base..head" names of the corpus's pairs, in truth order.
std::vector<std::string> pair_names(const Corpus& c);

struct PairScore {
  std::string corpus, pair;
  int exit_code = -1;        ///< ksnap's exit status (128+N when killed by signal N).
  bool crashed = false;      ///< Killed by a signal (SIGSEGV, SIGABRT, ...).
  std::string error;         ///< Non-zero exit or unreadable JSON: ksnap's message.
  double seconds = 0;
  size_t variants = 0;       ///< Variants ksnap reported.
  size_t truth_variants = 0; ///< Paired + removed + added in the truth.
  size_t pairing_errors = 0; ///< Wrong, missing or extra pairings.
  size_t stages_compared = 0;  ///< (variant, stage) rows of paired variants scored.
  size_t changed_truth = 0;    ///< Rows that really changed (not unstable).
  size_t reported_changed = 0; ///< Rows ksnap reported changed (not unstable).
  size_t false_changes = 0;    ///< Reported changed, truth unchanged.
  size_t misses = 0;           ///< Reported unchanged (or absent), truth changed.
  size_t unstable = 0;         ///< Rows the truth marks nondeterministic (not scored).
  std::vector<std::string> problems;  ///< One line per error, first 200.
};

/// Runs `ksnap diff --format json` on the pair and scores it. `ksnap` is the
/// binary's path.
PairScore score_pair(const std::string& ksnap, const Corpus& c, const std::string& pair);

}  // namespace ksnap::realworld

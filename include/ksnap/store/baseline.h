// The baseline of a PR: the recorded capture its head should be compared with.
//
// Worked example. main is A - B - C - D; B and D were recorded (C's CI run
// failed); the PR branched off C and its head is P.
//   find_baseline(store, {.for_rev = "P", .base_ref = "origin/main"})
//     start     = merge-base(P, origin/main) = C   (not recorded)
//     baseline  = B   (breadth-first over parents from C: the nearest recorded)
//     commits_behind = 1 (C is in C's history but not in B's), days_behind = date(C) - date(B)
// Without git (or for commits git does not know) the parents recorded in the
// store are walked instead, so a store alone answers for recorded commits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ksnap/store/store.h"
#include "ksnap/support/status.h"

namespace ksnap::store {

struct BaselineQuery {
  std::string for_rev;       ///< The PR head: a sha, unique prefix, or any git revision.
  std::string base_ref;      ///< When set, start from merge-base(for_rev, base_ref).
  std::string repo = ".";    ///< Git work tree to ask; "" = never run git.
  size_t max_walk = 100000;  ///< Commits of history considered at most.
  /// Skip the start commit itself: the nearest recorded *proper* ancestor
  /// (what a push to main is compared with).
  bool exclude_self = false;
};

struct Baseline {
  std::string for_sha;           ///< for_rev resolved.
  std::string start_sha;         ///< Where the search began: the merge-base, else for_sha.
  bool from_merge_base = false;  ///< start_sha is a merge-base with base_ref.
  std::string base_ref;
  CommitInfo baseline;  ///< The recorded commit chosen.
  int64_t hops = 0;     ///< Parent links from start_sha to it (0 = start is recorded).
  /// Commits in start's history that are not in the baseline's (0 = exact).
  int64_t commits_behind = 0;
  std::optional<double> days_behind;  ///< date(start) - date(baseline), when both known.
  bool used_git = false;

  bool exact() const { return hops == 0; }
  /// One line for reports: "baseline for 1a2b3c4d5e6f: 9f8e7d6c5b4a, the
  /// merge-base with origin/main (recorded)" or "..., the nearest recorded
  /// ancestor of merge-base 7c6b..., 3 commits and 1.5 days behind".
  std::string describe() const;
};

/// Finds the nearest recorded ancestor-or-self of the start commit, breadth
/// first (first parents before others at equal distance). Errors: kNotFound
/// when for_rev is unknown to git and the store, or nothing reachable from it
/// is recorded (the message says how many commits were searched).
Expected<Baseline> find_baseline(Store& store, const BaselineQuery& q);

}  // namespace ksnap::store

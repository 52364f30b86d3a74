// The state of one workload of an autotune group (Group::State): its race,
// the launches in flight, the published choice. Private to the tune
// library: group.cc creates and finds states, group_tuning.cc races them,
// group_commit.cc commits and announces their decisions.
//
// Threads: `committed` is read without a lock on the dispatch path (a
// choice, once published, never changes); everything else is guarded by `mu`.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "ksnap/tune/group.h"

namespace ksnap::tune {

struct Group::State {
  State(uint64_t k, std::string l, size_t n, const RaceConfig& cfg)
      : key(k), label(std::move(l)), race(n, cfg), excluded(n) {}
  const uint64_t key;
  const std::string label;
  std::atomic<int> committed{-1};  // published choice, -1 while none
  std::mutex mu;                   // guards everything below
  Race race;
  std::deque<InFlight> pending;
  Decision decision = Decision::kExploring;
  std::string reason;
  double tuning_wall_s = 0;
  std::vector<double> cached_medians;
  uint64_t calls = 0, explored = 0;  // online: calls while undecided, timed launches
  bool verified = false;               // verification ran (GroupOptions::verify)
  std::vector<std::string> excluded;   // per variant: why verification excluded it, or ""
};

}  // namespace ksnap::tune

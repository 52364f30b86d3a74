// An autotune group on the CPU backend, built against an installed ksnap.
//
// Three variants of one "kernel" (a sum over a buffer) cost 300, 100 and
// 200 µs of simulated time; the group explores, commits to the fastest, and
// keeps the decision in a tuning cache file, which a second group (a second
// "process") loads instead of exploring again.
//
//   pick_variant CACHE.json
//   => "group 1: v1 (separated) after N calls; group 2, from the cache file: v1; sum ok"
//
// Built with -DKSNAP_CONSUMER_PLUGIN it has no main() but the C entry point
// ksnap_consumer_pick(cache) instead, for a shared object that links the
// static ksnap::tune (tests/consumer/run.sh loads it with Python's ctypes).
#include <cstdio>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "ksnap/tune/cpu_backend.h"
#include "ksnap/tune/group.h"

using namespace ksnap::tune;

namespace {

struct Kernel {
  std::shared_ptr<FakeClock> clock = std::make_shared<FakeClock>();
  std::vector<double> data = std::vector<double>(4096, 0.5);
  double last_sum = 0;

  std::shared_ptr<CpuBackend> backend() {
    std::vector<CpuVariant> variants;
    for (double cost_us : {300.0, 100.0, 200.0}) {
      std::string name = "v" + std::to_string(variants.size());
      variants.push_back({name, [this, cost_us](const Workload& w, const ArgPack&) {
                            last_sum = std::accumulate(data.begin(), data.begin() + w[0], 0.0);
                            clock->advance(cost_us);
                          }});
    }
    return std::make_shared<CpuBackend>(std::move(variants), clock);
  }
};

std::unique_ptr<Group> make_group(Kernel& k, const std::string& cache) {
  GroupOptions opt;
  opt.name = "sum";
  opt.cache_path = cache;
  opt.read_env = false;
  auto g = Group::create(k.backend(), opt);
  if (!g) {
    std::fprintf(stderr, "Group::create: %s\n", g.status().to_string().c_str());
    return nullptr;
  }
  return std::move(*g);
}

int pick(const char* cache_path) {
  const Workload w{1024};
  Kernel k;
  auto g = make_group(k, cache_path);
  if (!g) return 1;
  int calls = 0;
  while (!g->decision(w) && calls < 10000) {
    if (auto s = g->dispatch(w, ArgPack()); !s.is_ok()) {
      std::fprintf(stderr, "dispatch: %s\n", s.to_string().c_str());
      return 1;
    }
    ++calls;
  }
  auto choice = g->decision(w);
  if (!choice) {
    std::fprintf(stderr, "no decision after %d calls\n", calls);
    return 1;
  }
  const WorkloadReport r = g->report().workloads.at(0);
  std::printf("group 1: %s (%s) after %d calls; ", r.choice_name.c_str(),
              r.reason.substr(0, r.reason.find(':')).c_str(), calls);

  Kernel k2;  // a second process: the decision comes from the cache file
  auto g2 = make_group(k2, cache_path);
  if (!g2) return 1;
  const bool dispatched = g2->dispatch(w, ArgPack()).is_ok();
  auto cached = g2->decision(w);
  if (!dispatched || !cached || k2.clock->now_us() != 100.0) {
    std::fprintf(stderr, "\nthe second group did not load the decision from %s\n", cache_path);
    return 1;
  }
  // One dispatch, one launch of v1 (100 µs), no exploration.
  std::printf("group 2, from the cache file: v%zu; ", *cached);
  const bool sum_ok = k2.last_sum == 512.0;
  std::printf("sum %s\n", sum_ok ? "ok" : "wrong");
  return *choice == 1 && *cached == 1 && sum_ok ? 0 : 1;
}

}  // namespace

/// 0 when both groups chose v1 and the sum is right, 1 otherwise.
extern "C" int ksnap_consumer_pick(const char* cache_path) {
  const int rc = pick(cache_path);
  std::fflush(stdout);
  return rc;
}

#ifndef KSNAP_CONSUMER_PLUGIN
int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: pick_variant CACHE.json\n");
    return 2;
  }
  return ksnap_consumer_pick(argv[1]);
}
#endif

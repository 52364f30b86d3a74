// Dispatch overhead of an autotune group after commit, CPU side: what
// Group::dispatch costs on top of the backend launch it ends in. The variants
// are empty CPU callables, so the figures are the group's own work (workload
// key, lock-free table lookup, atomic load, virtual launch). The GPU figure
// (dispatch vs raw cuLaunchKernel on an H200) comes from gpu/tune/tune_gpu.
//
//   ninja -C build-tune dispatch_bench && build-tune/bench/dispatch_bench
#include <benchmark/benchmark.h>

#include "ksnap/tune/cpu_backend.h"
#include "ksnap/tune/group.h"

using namespace ksnap::tune;

namespace {

std::atomic<uint64_t> sink{0};

std::shared_ptr<CpuBackend> noop_backend(size_t n) {
  std::vector<CpuVariant> vs;
  for (size_t v = 0; v < n; ++v)
    vs.push_back({"v" + std::to_string(v), [v](const Workload&, const ArgPack& a) {
                    sink.fetch_add(v + a.size(), std::memory_order_relaxed);
                  }});
  return std::make_shared<CpuBackend>(std::move(vs));
}

ArgPack matmul_like_args() {
  static char a, b, c;
  ArgPack p;
  p.ptr(&a).ptr(&b).ptr(&c).i32(4096).i32(4096).i32(4096).i32(4096).i32(4096).i32(4096);
  return p;
}

std::unique_ptr<Group> committed_group(Bucketing bucketing, size_t workloads) {
  GroupOptions o;
  o.read_env = false;
  o.bucketing = std::move(bucketing);
  auto g = Group::create(noop_backend(8), o);
  for (size_t k = 0; k < workloads; ++k) {
    Workload w{int64_t(512 + 64 * k), 4096, 4096};
    for (int i = 0; i < 100000 && !(*g)->decision(w); ++i) (void)(*g)->dispatch(w, matmul_like_args());
  }
  return std::move(*g);
}

void BM_RawCallable(benchmark::State& s) {
  CpuKernel k = [](const Workload&, const ArgPack& a) { sink.fetch_add(a.size(), std::memory_order_relaxed); };
  Workload w{4096, 4096, 4096};
  ArgPack args = matmul_like_args();
  for (auto _ : s) k(w, args);
}
BENCHMARK(BM_RawCallable);

void BM_BackendLaunch(benchmark::State& s) {
  auto be = noop_backend(8);
  Workload w{4096, 4096, 4096};
  ArgPack args = matmul_like_args();
  for (auto _ : s) benchmark::DoNotOptimize(be->launch(3, w, args, nullptr));
}
BENCHMARK(BM_BackendLaunch);

void BM_DispatchCommitted(benchmark::State& s) {
  auto g = committed_group(s.range(0) ? Bucketing::pow2() : Bucketing::exact(), 64);
  Workload w{512 + 64 * 7, 4096, 4096};
  ArgPack args = matmul_like_args();
  if (!g->decision(w)) s.SkipWithError("not committed");
  for (auto _ : s) benchmark::DoNotOptimize(g->dispatch(w, args, nullptr));
  s.SetLabel(s.range(0) ? "pow2 buckets" : "exact keys");
}
BENCHMARK(BM_DispatchCommitted)->Arg(0)->Arg(1);

void BM_DispatchCommittedThreads(benchmark::State& s) {
  static std::unique_ptr<Group> g;
  if (s.thread_index() == 0) g = committed_group(Bucketing::exact(), 64);
  Workload w{512 + 64 * (s.thread_index() % 8), 4096, 4096};
  ArgPack args = matmul_like_args();
  for (auto _ : s) benchmark::DoNotOptimize(g->dispatch(w, args, nullptr));
}
BENCHMARK(BM_DispatchCommittedThreads)->Threads(1)->Threads(2)->Threads(4);

void BM_WorkloadKey(benchmark::State& s) {
  Bucketing b = Bucketing::exact();
  Workload w{4096, 4096, 4096};
  for (auto _ : s) benchmark::DoNotOptimize(b.key(w));
}
BENCHMARK(BM_WorkloadKey);

}  // namespace

BENCHMARK_MAIN();

// gpu/tune/proofs.cc: the autotune group on the real GPU, the claims of
// docs/autotune.md that the CPU backend cannot prove (issue 18):
//
//   tune_proofs graph   CAPTURE OUT.json   dispatch inside CUDA graph capture
//                                           (before and after the decision),
//                                           graph replay, outputs checked
//   tune_proofs threads CAPTURE OUT.json   8 threads dispatching one group
//                                           at once, each with its own stream
//                                           and output; outputs checked
//   tune_proofs verify  CAPTURE OUT.json   a capture with an injected wrong
//                                           variant (half of K: the fastest,
//                                           wrong); per shape, online and
//                                           ahead of time, with and without
//                                           verification: which variant wins,
//                                           what was excluded, the output error
//   tune_proofs share   CAPTURE OUT.json CACHE [adopt|own]
//                                           online tuning of 6 shapes with a
//                                           shared cache file; run two at once
//                                           and compare the choices
//
// Outputs are checked against a host dot product on 48 sampled elements
// (relative error below 2e-2 for fp16 inputs and fp32 accumulation).
// Builds like tune_gpu (gpu/tune/build.sh).
#include <cuda.h>
#include <dlfcn.h>

#include <atomic>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ksnap/tune/cuda_backend.h"
#include "ksnap/tune/group.h"
#include "matmul_common.h"

using nlohmann::json;

namespace {

/// A driver entry point by name (the backend loads libcuda itself; these
/// are the few calls the proofs make beside it).
template <typename Fn>
Fn driver(const char* name) {
  static void* lib = dlopen("libcuda.so.1", RTLD_NOW);
  using GetProc = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
  static auto gp = reinterpret_cast<GetProc>(dlsym(lib, "cuGetProcAddress_v2"));
  void* p = nullptr;
  CUdriverProcAddressQueryResult q{};
  if (!gp || gp(name, &p, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &q) != CUDA_SUCCESS || !p) {
    std::fprintf(stderr, "no driver entry point %s\n", name);
    std::exit(1);
  }
  return reinterpret_cast<Fn>(p);
}

#define CU(call)                                                      \
  do {                                                                \
    CUresult r_ = (call);                                             \
    if (r_ != CUDA_SUCCESS) {                                         \
      std::fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__, #call, (int)r_); \
      std::exit(1);                                                   \
    }                                                                 \
  } while (0)

/// One matmul problem on the device: A, B inputs, C output, the host
/// reference at 48 sampled elements.
struct Problem {
  CudaBackend* be;
  Workload w;
  DeviceBuffer a, b;
  std::vector<std::pair<size_t, size_t>> probe;
  std::vector<double> ref;

  Problem(CudaBackend* backend, Workload shape) : be(backend), w(shape) {
    const size_t M = w[0], N = w[1], K = w[2];
    auto A = be->alloc(2 * M * K), B = be->alloc(2 * K * N);
    CHECK_OK(A.status());
    CHECK_OK(B.status());
    a = *A;
    b = *B;
    CHECK_OK(be->fill(a, Fill::kF16, 1));
    CHECK_OK(be->fill(b, Fill::kF16, 2));
    std::vector<uint16_t> ha(M * K), hb(K * N);
    CHECK_OK(be->download(ha.data(), a.address, 2 * M * K));
    CHECK_OK(be->download(hb.data(), b.address, 2 * K * N));
    std::mt19937_64 rng(7);
    for (int i = 0; i < 48; ++i) probe.push_back({rng() % M, rng() % N});
    for (auto [i, j] : probe) {
      double s = 0;
      for (size_t k = 0; k < K; ++k) s += double(half_to_float(ha[i * K + k])) * half_to_float(hb[k * N + j]);
      ref.push_back(s);
    }
  }
  DeviceBuffer output() {
    auto c = be->alloc(2 * w[0] * w[1]);
    CHECK_OK(c.status());
    CHECK_OK(be->fill(*c, Fill::kZero, 0));
    return *c;
  }
  ArgPack args(const DeviceBuffer& c) const { return matmul_args(a.address, b.address, c.address, w); }
  /// Worst relative error of C at the probes (after the caller synchronized).
  double error(const DeviceBuffer& c) const {
    std::vector<uint16_t> hc(w[0] * w[1]);
    CHECK_OK(be->download(hc.data(), c.address, 2 * w[0] * w[1]));
    double worst = 0;
    for (size_t p = 0; p < probe.size(); ++p) {
      double got = half_to_float(hc[probe[p].first * w[1] + probe[p].second]);
      worst = std::max(worst, std::fabs(got - ref[p]) / (std::fabs(ref[p]) + 1.0));
    }
    return worst;
  }
};

constexpr double kTolerance = 2e-2;

GroupOptions online(const std::string& name) {
  GroupOptions o;
  o.name = name;
  o.policy = Policy::kOnline;
  o.read_env = false;
  return o;
}

CUstream new_stream(CudaBackend& be) {
  CHECK_OK(be.synchronize(nullptr));  // makes the backend's context current here
  CUstream s = nullptr;
  CU(driver<CUresult (*)(CUstream*, unsigned)>("cuStreamCreate")(&s, CU_STREAM_NON_BLOCKING));
  return s;
}

/// Captures `calls` dispatches on `s` into a graph, replays it `replays`
/// times; the output's error after the replays.
double capture_and_replay(Group& g, Problem& p, CUstream s, int calls, int replays, json* out) {
  auto begin = driver<CUresult (*)(CUstream, CUstreamCaptureMode)>("cuStreamBeginCapture");
  auto end = driver<CUresult (*)(CUstream, CUgraph*)>("cuStreamEndCapture");
  auto inst = driver<CUresult (*)(CUgraphExec*, CUgraph, unsigned long long)>("cuGraphInstantiateWithFlags");
  auto launch = driver<CUresult (*)(CUgraphExec, CUstream)>("cuGraphLaunch");
  auto sync = driver<CUresult (*)(CUstream)>("cuStreamSynchronize");
  DeviceBuffer c = p.output();
  ArgPack args = p.args(c);
  CU(begin(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
  size_t failed = 0;
  for (int i = 0; i < calls; ++i) failed += !g.dispatch(p.w, args, s).is_ok();
  CUgraph graph = nullptr;
  CU(end(s, &graph));
  CUgraphExec exec = nullptr;
  CU(inst(&exec, graph, 0));
  for (int r = 0; r < replays; ++r) CU(launch(exec, s));
  CU(sync(s));
  double err = p.error(c);
  (*out)["dispatch_errors"] = failed;
  (*out)["max_rel_error"] = err;
  return err;
}

int prove_graph(CudaBackend& be, json& out) {
  Problem p(&be, {2048, 2048, 2048});
  CUstream s = new_stream(be);
  auto g = Group::create(std::shared_ptr<CudaBackend>(&be, [](CudaBackend*) {}), online("graph"));
  CHECK_OK(g.status());
  int bad = 0;
  // 1. Undecided: dispatches inside the capture must not time (no event
  //    query is legal there); they launch the default variant.
  json before;
  double e1 = capture_and_replay(**g, p, s, 16, 5, &before);
  before["decided_during_capture"] = (*g)->decision(p.w).has_value();
  bad += e1 > kTolerance || before["dispatch_errors"] != 0 || before["decided_during_capture"] == true;
  out["undecided_capture"] = before;
  // 2. Tune outside the capture until it commits.
  DeviceBuffer c = p.output();
  ArgPack args = p.args(c);
  size_t calls = 0;
  while (!(*g)->decision(p.w) && calls < 100000) {
    CHECK_OK((*g)->dispatch(p.w, args, s));
    if (++calls % 8 == 0) CHECK_OK(be.synchronize(s));
  }
  CHECK_OK(be.synchronize(s));
  out["tuned"] = {{"calls", calls}, {"choice", (*g)->decision(p.w).value_or(SIZE_MAX)},
                  {"choice_name", be.variant_name((*g)->decision(p.w).value_or(0))}};
  bad += !(*g)->decision(p.w);
  // 3. Decided: the capture holds the committed variant; replays are right.
  json after;
  double e2 = capture_and_replay(**g, p, s, 16, 5, &after);
  bad += e2 > kTolerance || after["dispatch_errors"] != 0;
  out["decided_capture"] = after;
  out["ok"] = bad == 0;
  std::printf("graph: undecided capture err %.2e, tuned to %s after %zu calls, decided capture err %.2e: %s\n",
              e1, be.variant_name((*g)->decision(p.w).value_or(0)).c_str(), calls, e2,
              bad ? "FAIL" : "ok");
  return bad;
}

int prove_threads(CudaBackend& be, json& out) {
  Problem p(&be, {2048, 2048, 2048});
  auto g = Group::create(std::shared_ptr<CudaBackend>(&be, [](CudaBackend*) {}), online("threads"));
  CHECK_OK(g.status());
  const int threads = 8, per_thread = 600;
  std::vector<DeviceBuffer> outs;
  for (int t = 0; t < threads; ++t) outs.push_back(p.output());
  std::atomic<size_t> errors{0};
  std::vector<std::thread> pool;
  double t0 = now_s();
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      CUstream s = new_stream(be);
      ArgPack args = p.args(outs[t]);
      for (int i = 0; i < per_thread; ++i) {
        if (!(*g)->dispatch(p.w, args, s).is_ok()) ++errors;
        if (i % 8 == 7 && !be.synchronize(s).is_ok()) ++errors;
      }
      if (!be.synchronize(s).is_ok()) ++errors;
    });
  }
  for (auto& th : pool) th.join();
  double wall = now_s() - t0;
  double worst = 0;
  for (auto& c : outs) worst = std::max(worst, p.error(c));
  GroupReport r = (*g)->report();
  bool decided = (*g)->decision(p.w).has_value();
  out = {{"threads", threads}, {"dispatches", threads * per_thread}, {"errors", errors.load()},
         {"max_rel_error", worst}, {"decided", decided}, {"wall_s", wall},
         {"choice", decided ? be.variant_name(*(*g)->decision(p.w)) : ""},
         {"decision", r.workloads.empty() ? "" : decision_name(r.workloads[0].decision)},
         {"explore_launches", r.workloads.empty() ? 0 : r.workloads[0].explore_launches}};
  int bad = errors.load() != 0 || worst > kTolerance || !decided;
  out["ok"] = bad == 0;
  std::printf("threads: %d x %d dispatches in %.2f s, %zu errors, worst err %.2e, decided %s: %s\n",
              threads, per_thread, wall, errors.load(), worst,
              decided ? be.variant_name(*(*g)->decision(p.w)).c_str() : "-", bad ? "FAIL" : "ok");
  return bad;
}

int prove_share(CudaBackend& be, json& out, const std::string& cache, bool adopt) {
  GroupOptions o = online("share");
  o.cache_path = cache;
  o.adopt_shared_decisions = adopt;
  auto g = Group::create(std::shared_ptr<CudaBackend>(&be, [](CudaBackend*) {}), o);
  CHECK_OK(g.status());
  CUstream s = new_stream(be);
  const std::vector<Workload> shapes = {{512, 512, 512},   {1024, 1024, 1024}, {2048, 2048, 2048},
                                        {4096, 4096, 4096}, {8192, 8192, 1024}, {128, 8192, 8192}};
  int bad = 0;
  for (const Workload& w : shapes) {
    Problem p(&be, w);
    DeviceBuffer c = p.output();
    ArgPack args = p.args(c);
    size_t calls = 0;
    while (!(*g)->decision(w) && calls < 100000) {
      CHECK_OK((*g)->dispatch(w, args, s));
      if (++calls % 8 == 0) CHECK_OK(be.synchronize(s));
    }
    CHECK_OK(be.synchronize(s));
    double err = p.error(c);
    bad += err > kTolerance;
    out["shapes"].push_back({{"shape", {w[0], w[1], w[2]}},
                             {"choice", be.variant_name((*g)->decision(w).value_or(0))},
                             {"calls", calls}, {"max_rel_error", err}});
  }
  for (const auto& wr : (*g)->report().workloads)
    out["decisions"].push_back({{"workload", wr.workload}, {"decision", decision_name(wr.decision)},
                                {"choice", wr.choice_name}, {"reason", wr.reason}});
  out["adopt"] = adopt;
  out["ok"] = bad == 0;
  return bad;
}

/// The matmul layout: A, B fp16 inputs, C fp16 output (compared by
/// verification), M, N, K and the three strides that are not 1.
ArgLayout matmul_layout() {
  ArgLayout l;
  l.buffer("a", Role::kInput, Fill::kF16, [](const Workload& w) { return 2 * w[0] * w[2]; })
      .buffer("b", Role::kInput, Fill::kF16, [](const Workload& w) { return 2 * w[2] * w[1]; })
      .buffer("c", Role::kOutput, Fill::kZero, [](const Workload& w) { return 2 * w[0] * w[1]; },
              ElementType::kF16)
      .scalar_i32("M", [](const Workload& w) { return w[0]; })
      .scalar_i32("N", [](const Workload& w) { return w[1]; })
      .scalar_i32("K", [](const Workload& w) { return w[2]; })
      .scalar_i32("stride_am", [](const Workload& w) { return w[2]; })
      .scalar_i32("stride_bk", [](const Workload& w) { return w[1]; })
      .scalar_i32("stride_cm", [](const Workload& w) { return w[1]; });
  return l;
}

int prove_verify(CudaBackend& be, json& out) {
  const size_t wrong = be.variant_count() - 1;  // the injected variant is the last entry
  out["wrong_variant"] = be.variant_name(wrong);
  const std::vector<Workload> shapes = {{512, 512, 512},   {1024, 1024, 1024}, {2048, 2048, 2048},
                                        {4096, 4096, 4096}, {8192, 8192, 1024}, {128, 8192, 8192}};
  int bad = 0;
  size_t wrong_wins_unverified = 0, runs = 0;
  CUstream s = new_stream(be);
  for (const Workload& w : shapes) {
    Problem p(&be, w);
    for (const char* mode : {"online", "ahead-of-time"})
      for (bool verify : {false, true}) {
        GroupOptions o = online(std::string("verify-") + mode);
        o.layout = matmul_layout();
        o.verify.enabled = verify;
        if (std::string(mode) != "online") o.policy = Policy::kAheadOfTime;
        auto g = Group::create(std::shared_ptr<CudaBackend>(&be, [](CudaBackend*) {}), o);
        CHECK_OK(g.status());
        DeviceBuffer c = p.output();
        ArgPack args = p.args(c);
        size_t calls = 0;
        if (o.policy == Policy::kAheadOfTime) CHECK_OK((*g)->tune(w, s));
        while (!(*g)->decision(w) && calls < 100000) {
          CHECK_OK((*g)->dispatch(w, args, s));
          if (++calls % 8 == 0) CHECK_OK(be.synchronize(s));
        }
        // After the decision: one call, its output checked.
        CHECK_OK((*g)->dispatch(w, args, s));
        CHECK_OK(be.synchronize(s));
        double err = p.error(c);
        size_t choice = (*g)->decision(w).value_or(SIZE_MAX);
        GroupReport r = (*g)->report();
        json excluded = json::array();
        for (const auto& v : r.workloads[0].variants)
          if (!v.excluded.empty()) excluded.push_back({{"variant", v.name}, {"why", v.excluded}});
        ++runs;
        if (!verify) wrong_wins_unverified += choice == wrong;
        // With verification the wrong variant never wins and is excluded,
        // and the output is right.
        int fail = verify && (choice == wrong || excluded.size() != 1 || err > kTolerance);
        bad += fail;
        out["runs"].push_back({{"shape", {w[0], w[1], w[2]}}, {"policy", mode}, {"verify", verify},
                               {"choice", choice < be.variant_count() ? be.variant_name(choice) : "-"},
                               {"wrong_won", choice == wrong}, {"calls", calls},
                               {"max_rel_error", err}, {"excluded", excluded},
                               {"decision", decision_name(r.workloads[0].decision)},
                               {"reason", r.workloads[0].reason}, {"ok", !fail}});
        std::printf("verify %-5s %-13s %5zux%5zux%5zu -> %-40s err %.2e%s%s\n",
                    verify ? "on" : "off", mode, w[0], w[1], w[2],
                    choice < be.variant_count() ? be.variant_name(choice).c_str() : "-", err,
                    choice == wrong ? "  (the wrong variant won)" : "", fail ? "  FAIL" : "");
        be.free(c);
      }
  }
  out["wrong_wins_without_verification"] = wrong_wins_unverified;
  out["runs_without_verification"] = runs / 2;
  out["ok"] = bad == 0;
  std::printf("verify: the wrong variant won %zu of %zu unverified runs and 0 of %zu verified: %s\n",
              wrong_wins_unverified, runs / 2, runs / 2, bad ? "FAIL" : "ok");
  return bad;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: tune_proofs graph|threads|verify|share CAPTURE OUT.json [CACHE [adopt|own]]\n");
    return 2;
  }
  std::string why, what = argv[1];
  if (!cuda_available(&why)) {
    std::fprintf(stderr, "tune_proofs: %s\n", why.c_str());
    return 3;
  }
  auto be = CudaBackend::from_capture(argv[2], "matmul_kernel", matmul_grid);
  if (!be) {
    std::fprintf(stderr, "tune_proofs: %s\n", be.status().to_string().c_str());
    return 1;
  }
  json out;
  out["device"] = (*be)->device().name;
  int bad = 0;
  if (what == "graph") bad = prove_graph(**be, out);
  else if (what == "threads") bad = prove_threads(**be, out);
  else if (what == "verify") bad = prove_verify(**be, out);
  else if (what == "share" && argc >= 5)
    bad = prove_share(**be, out, argv[4], argc < 6 || std::string(argv[5]) != "own");
  else return 2;
  std::ofstream(argv[3]) << out.dump(1) << "\n";
  return bad ? 1 : 0;
}

// gpu/tune/tune_gpu.cc: ksnap's tuner against the real GPU, on a capture of
// Triton's matmul tutorial kernel (8 configs, the ones of the H200 samples).
//
//   tune_gpu CAPTURE_DIR OUT.json [MxNxK ...]
//
// Per shape: (1) checks every variant's output against a host dot product
// (proves the Triton 3.6 ABI: 9 user arguments + 2 hidden scratch pointers);
// (2) measures the ground truth: 400 rounds, each variant launched once per
// round (round-robin, rotated) and timed individually with CUDA events —
// the method of the recorded samples; (3) ahead-of-time tuning:
// Group::tune() on the shape's buffers, wall time measured around it;
// (4) online tuning: Group::dispatch() called until it commits (the loop
// synchronizes every 8 calls, as a serving loop that reads its results would);
// (5) the ground truth again (100 rounds), to show how far conditions drift.
// Then the dispatch overhead: host time per launch of raw cuLaunchKernel vs
// CudaBackend::launch vs Group::dispatch after commit, same variant,
// batches of 64 launches interleaved, median of batch means.
// Builds against libksnap_tune; see gpu/tune/build.sh.
#include <cuda.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "ksnap/tune/cuda_backend.h"
#include "ksnap/tune/group.h"
#include "matmul_common.h"

using namespace ksnap;
using namespace ksnap::tune;
using nlohmann::json;

namespace {

ArgLayout matmul_layout() {
  ArgLayout l;
  l.buffer("a", Role::kInput, Fill::kF16, [](const Workload& w) { return 2 * w[0] * w[2]; });
  l.buffer("b", Role::kInput, Fill::kF16, [](const Workload& w) { return 2 * w[2] * w[1]; });
  l.buffer("c", Role::kOutput, Fill::kZero, [](const Workload& w) { return 2 * w[0] * w[1]; });
  for (int i = 0; i < 6; ++i)
    l.scalar_i32("dim", [i](const Workload& w) {
      int64_t v[6] = {w[0], w[1], w[2], w[2], w[1], w[1]};
      return v[i];
    });
  return l;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : (v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]));
}

using LaunchFn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, unsigned, CUstream, void**, void**);

LaunchFn raw_launch_fn() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW);
  using GetProc = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
  auto gp = reinterpret_cast<GetProc>(dlsym(lib, "cuGetProcAddress_v2"));
  void* p = nullptr;
  CUdriverProcAddressQueryResult q{};
  gp("cuLaunchKernel", &p, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &q);
  return reinterpret_cast<LaunchFn>(p);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: tune_gpu CAPTURE_DIR OUT.json [MxNxK ...]\n");
    return 2;
  }
  std::string why;
  if (!cuda_available(&why)) {
    std::fprintf(stderr, "tune_gpu: %s\n", why.c_str());
    return 3;
  }
  std::vector<Workload> shapes;
  for (int i = 3; i < argc; ++i) {
    long m, n, k;
    if (std::sscanf(argv[i], "%ldx%ldx%ld", &m, &n, &k) == 3) shapes.push_back({m, n, k});
  }
  if (shapes.empty())
    shapes = {{512, 512, 512},   {2048, 2048, 2048}, {4096, 4096, 4096},
              {8192, 8192, 1024}, {128, 8192, 8192}, {16384, 64, 4096}};
  auto be_or = CudaBackend::from_capture(argv[1], "matmul_kernel", matmul_grid);
  if (!be_or) {
    std::fprintf(stderr, "tune_gpu: %s\n", be_or.status().to_string().c_str());
    return 1;
  }
  std::shared_ptr<CudaBackend> be = *be_or;
  const size_t nv = be->variant_count();
  DeviceFingerprint dev = be->device();
  std::printf("device %s %s cc %d.%d SMs %d driver %d, %zu variants\n", dev.name.c_str(),
              dev.uuid.c_str(), dev.cc_major, dev.cc_minor, dev.sm_count, dev.driver_version, nv);
  json out;
  out["device"] = {{"name", dev.name}, {"uuid", dev.uuid}, {"cc", {dev.cc_major, dev.cc_minor}},
                   {"sm_count", dev.sm_count}, {"driver", dev.driver_version}};
  for (size_t v = 0; v < nv; ++v) {
    out["variants"].push_back({{"name", be->variant_name(v)}, {"params", be->param_count(v)},
                               {"shared", be->captured(v).meta.shared},
                               {"num_warps", be->captured(v).meta.num_warps}});
  }

  GroupOptions aot;
  aot.name = "matmul";
  aot.policy = Policy::kAheadOfTime;
  aot.layout = matmul_layout();
  aot.read_env = false;
  auto aot_group = Group::create(be, aot);
  CHECK_OK(aot_group.status());
  GroupOptions onl = aot;
  onl.policy = Policy::kOnline;
  auto online_group = Group::create(be, onl);
  CHECK_OK(online_group.status());

  CUstream stream = nullptr;  // the legacy default stream
  for (const Workload& w : shapes) {
    const size_t M = w[0], N = w[1], K = w[2];
    auto A = be->alloc(2 * M * K), B = be->alloc(2 * K * N), C = be->alloc(2 * M * N);
    CHECK_OK(A.status());
    CHECK_OK(B.status());
    CHECK_OK(C.status());
    CHECK_OK(be->fill(*A, Fill::kF16, 1));
    CHECK_OK(be->fill(*B, Fill::kF16, 2));
    ArgPack args = matmul_args(A->address, B->address, C->address, w);
    json js;
    js["shape"] = {M, N, K};
    // (1) correctness of every variant.
    std::vector<uint16_t> ha(M * K), hb(K * N), hc(M * N);
    CHECK_OK(be->download(ha.data(), A->address, 2 * M * K));
    CHECK_OK(be->download(hb.data(), B->address, 2 * K * N));
    std::mt19937_64 rng(7);
    std::vector<std::pair<size_t, size_t>> probe;
    for (int i = 0; i < 48; ++i) probe.push_back({rng() % M, rng() % N});
    std::vector<double> ref;
    for (auto [i, j] : probe) {
      double s = 0;
      for (size_t k = 0; k < K; ++k) s += double(half_to_float(ha[i * K + k])) * half_to_float(hb[k * N + j]);
      ref.push_back(s);
    }
    for (size_t v = 0; v < nv; ++v) {
      CHECK_OK(be->fill(*C, Fill::kZero, 0));
      CHECK_OK(be->launch(v, w, args, stream));
      CHECK_OK(be->synchronize(stream));
      CHECK_OK(be->download(hc.data(), C->address, 2 * M * N));
      double worst = 0;
      for (size_t p = 0; p < probe.size(); ++p) {
        double got = half_to_float(hc[probe[p].first * N + probe[p].second]);
        worst = std::max(worst, std::fabs(got - ref[p]) / (std::fabs(ref[p]) + 1.0));
      }
      js["max_rel_error"].push_back(worst);
    }
    // (2) ground truth: 400 interleaved rounds, individually timed.
    auto measure = [&](int rounds, std::vector<std::vector<double>>& samples) {
     for (int r = 0; r < rounds; ++r) {
      std::vector<std::pair<size_t, Ticket>> tk;
      for (size_t k = 0; k < nv; ++k) {
        size_t v = (k + r) % nv;
        auto t = be->launch_timed(v, w, args, stream);
        CHECK_OK(t.status());
        tk.push_back({v, *t});
      }
      for (auto& [v, t] : tk) {
        auto us = be->wait(t);
        CHECK_OK(us.status());
        samples[v].push_back(*us);
      }
     }
    };
    std::vector<std::vector<double>> samples(nv);
    double t_truth = now_s();
    measure(400, samples);
    t_truth = now_s() - t_truth;
    std::vector<double> truth;
    for (auto& s : samples) truth.push_back(median_of(s));
    size_t best = std::min_element(truth.begin(), truth.end()) - truth.begin();
    js["truth_median_us"] = truth;
    js["truth_best"] = best;
    js["truth_wall_s"] = t_truth;
    js["samples_us"] = samples;
    auto hit = [&](size_t c) { return truth[c] <= 1.01 * truth[best]; };
    // (3) ahead-of-time tuning on the shape's buffers (C restored afterwards).
    double t0 = now_s();
    CHECK_OK((*aot_group)->tune(w, args, stream));
    double aot_wall = now_s() - t0;
    size_t aot_choice = *(*aot_group)->decision(w);
    // (4) online: dispatch until committed.
    size_t calls = 0;
    t0 = now_s();
    // A serving loop that waits for its results every 8 calls (a tight loop
    // that never waits would only queue thousands of untimed launches).
    while (!(*online_group)->decision(w) && calls < 100000) {
      CHECK_OK((*online_group)->dispatch(w, args, stream));
      if (++calls % 8 == 0) CHECK_OK(be->synchronize(stream));
    }
    CHECK_OK(be->synchronize(stream));
    double online_wall = now_s() - t0;
    size_t online_choice = (*online_group)->decision(w).value_or(0);
    // (5) the truth again, after tuning: how much the conditions drifted.
    std::vector<std::vector<double>> after(nv);
    measure(100, after);
    std::vector<double> truth_after;
    for (auto& s : after) truth_after.push_back(median_of(s));
    size_t best_after = std::min_element(truth_after.begin(), truth_after.end()) - truth_after.begin();
    js["truth_after_median_us"] = truth_after;
    js["truth_after_best"] = best_after;
    auto hit_after = [&](size_t c) { return truth_after[c] <= 1.01 * truth_after[best_after]; };
    GroupReport ra = (*aot_group)->report(), ro = (*online_group)->report();
    auto find_w = [&](const GroupReport& r) {
      for (const auto& x : r.workloads)
        if (x.workload == w.to_string()) return x;
      return WorkloadReport{};
    };
    WorkloadReport wa = find_w(ra), wo = find_w(ro);
    js["ksnap_aot"] = {{"choice", aot_choice}, {"hit", hit(aot_choice)},
                       {"hit_after", hit_after(aot_choice)}, {"wall_s", aot_wall},
                       {"decision", decision_name(wa.decision)}, {"reason", wa.reason},
                       {"launches", wa.explore_launches}, {"explore_us", wa.explore_us}};
    js["ksnap_online"] = {{"choice", online_choice}, {"hit", hit(online_choice)},
                          {"hit_after", hit_after(online_choice)},
                          {"dispatches_to_commit", calls}, {"wall_s", online_wall},
                          {"decision", decision_name(wo.decision)}, {"reason", wo.reason},
                          {"explore_us", wo.explore_us}, {"regret_us", wo.regret_us}};
    std::printf("%s: truth best v%zu (%.2f us); ksnap AOT v%zu %s in %.4f s (%zu launches, %s); "
                "online v%zu %s after %zu calls; truth took %.2f s\n",
                w.to_string().c_str(), best, truth[best], aot_choice, hit(aot_choice) ? "HIT" : "MISS",
                aot_wall, wa.explore_launches, decision_name(wa.decision), online_choice,
                hit(online_choice) ? "HIT" : "MISS", calls, t_truth);
    out["shapes"].push_back(js);
    be->free(*A);
    be->free(*B);
    be->free(*C);
  }

  // Dispatch overhead on the first shape, committed variant.
  {
    const Workload w = shapes[0];
    const size_t M = w[0], N = w[1], K = w[2];
    auto A = be->alloc(2 * M * K), B = be->alloc(2 * K * N), C = be->alloc(2 * M * N);
    ArgPack args = matmul_args(A->address, B->address, C->address, w);
    size_t v = (*online_group)->decision(w).value_or(0);
    LaunchFn raw = raw_launch_fn();
    CUfunction fn = static_cast<CUfunction>(be->function(v));
    Dim3 g = be->grid(v, w);
    unsigned threads = be->captured(v).meta.num_warps * 32;
    unsigned shared = static_cast<unsigned>(be->captured(v).meta.shared);
    CUdeviceptr zero0 = 0, zero1 = 0;
    void* params[ArgPack::kMaxArgs + 2];
    for (size_t i = 0; i < args.size(); ++i) params[i] = args.slot(i);
    params[args.size()] = &zero0;
    params[args.size() + 1] = &zero1;
    const int batch = 64, batches = 300;
    std::vector<double> t_raw, t_be, t_grp;
    auto time_batch = [&](auto&& body) {
      double t = now_s();
      for (int i = 0; i < batch; ++i) body();
      double per = (now_s() - t) / batch * 1e6;
      CHECK_OK(be->synchronize(stream));
      return per;
    };
    for (int b = 0; b < 20; ++b) time_batch([&] { raw(fn, g.x, g.y, g.z, threads, 1, 1, shared, stream, params, nullptr); });
    for (int b = 0; b < batches; ++b) {
      t_raw.push_back(time_batch([&] { raw(fn, g.x, g.y, g.z, threads, 1, 1, shared, stream, params, nullptr); }));
      t_be.push_back(time_batch([&] { (void)be->launch(v, w, args, stream); }));
      t_grp.push_back(time_batch([&] { (void)(*online_group)->dispatch(w, args, stream); }));
    }
    double mr = median_of(t_raw), mb = median_of(t_be), mg = median_of(t_grp);
    out["overhead"] = {{"shape", w.to_string()}, {"variant", v}, {"batch", batch},
                       {"batches", batches}, {"raw_cuLaunchKernel_us", mr},
                       {"backend_launch_us", mb}, {"group_dispatch_us", mg},
                       {"dispatch_minus_raw_us", mg - mr}};
    std::printf("dispatch overhead (%s, v%zu): raw cuLaunchKernel %.3f us, backend %.3f us, "
                "group dispatch %.3f us per launch => +%.3f us\n",
                w.to_string().c_str(), v, mr, mb, mg, mg - mr);
    be->free(*A);
    be->free(*B);
    be->free(*C);
  }
  out["aot_report"] = json::parse((*aot_group)->report().to_json());
  std::ofstream(argv[2]) << out.dump(1) << "\n";
  std::fputs((*aot_group)->report().to_text().c_str(), stdout);
  return 0;
}

// An autotune group on the CPU backend: one kernel, the row sums of an n x n
// matrix, in three variants that differ only in how they walk memory. The
// group times them on the program's own calls (std::chrono::steady_clock),
// commits per workload to the fastest, and keeps its decisions in a tuning
// cache file, so a second run explores nothing.
//
//   ./tune_cpu [CACHE.json]          (default: tune-cache.json)
//   workload 64: columns (separated) 32 of 200 calls explored, sums ok
//   workload 256: rows_x4 (separated) 21 of 200 calls explored, sums ok
//   workload 1024: rows_x4 (separated) 15 of 200 calls explored, sums ok
//   ./tune_cpu                       (again: the decisions come from the cache)
//   workload 64: columns (cached) 0 of 200 calls explored, sums ok   ...
//
// (one run on a 2-core x86-64 VM; which variant wins depends on the machine.)
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ksnap/tune/cpu_backend.h"
#include "ksnap/tune/group.h"

using namespace ksnap::tune;

// The variants. Arguments: (const double* matrix, double* sums); w[0] = n.
void rows(const Workload& w, const ArgPack& args) {
  const int64_t n = w[0];
  const double* m = args.pointer<const double>(0);
  double* sums = args.pointer<double>(1);
  for (int64_t i = 0; i < n; ++i) {
    double s = 0;
    for (int64_t j = 0; j < n; ++j) s += m[i * n + j];
    sums[i] = s;
  }
}

void columns(const Workload& w, const ArgPack& args) {  // strided: slow on big matrices
  const int64_t n = w[0];
  const double* m = args.pointer<const double>(0);
  double* sums = args.pointer<double>(1);
  for (int64_t i = 0; i < n; ++i) sums[i] = 0;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < n; ++i) sums[i] += m[i * n + j];
}

void rows_x4(const Workload& w, const ArgPack& args) {  // four partial sums per row
  const int64_t n = w[0];
  const double* m = args.pointer<const double>(0);
  double* sums = args.pointer<double>(1);
  for (int64_t i = 0; i < n; ++i) {
    const double* row = m + i * n;
    double s[4] = {0, 0, 0, 0};
    int64_t j = 0;
    for (; j + 4 <= n; j += 4)
      for (int k = 0; k < 4; ++k) s[k] += row[j + k];
    for (; j < n; ++j) s[0] += row[j];
    sums[i] = (s[0] + s[1]) + (s[2] + s[3]);
  }
}

int main(int argc, char** argv) {
  const std::string cache = argc > 1 ? argv[1] : "tune-cache.json";
  std::vector<CpuVariant> variants = {{"rows", rows}, {"columns", columns}, {"rows_x4", rows_x4}};
  GroupOptions options;
  options.name = "row_sums";
  options.cache_path = cache;  // decisions outlive the process
  // ksnap::Expected<std::unique_ptr<Group>>: a value or a ksnap::Status.
  auto group = Group::create(std::make_shared<CpuBackend>(std::move(variants)), options);
  if (!group) {
    std::fprintf(stderr, "Group::create: %s\n", group.status().to_string().c_str());
    return 1;
  }

  bool all_ok = true;
  const int64_t sizes[] = {64, 256, 1024};
  for (int64_t n : sizes) {
    // Small integers: every summation order gives the exact sum.
    std::vector<double> matrix(static_cast<size_t>(n * n));
    for (size_t k = 0; k < matrix.size(); ++k) matrix[k] = static_cast<double>(k % 7);
    std::vector<double> want(static_cast<size_t>(n), 0.0), sums(want.size());
    for (size_t k = 0; k < matrix.size(); ++k) want[k / static_cast<size_t>(n)] += matrix[k];
    const Workload w{n};
    const int calls = 200;
    bool ok = true;
    for (int call = 0; call < calls; ++call) {  // the program's work; the group decides who runs
      ksnap::Status s = (*group)->dispatch(w, ArgPack().ptr(matrix.data()).ptr(sums.data()));
      if (!s) {
        std::fprintf(stderr, "dispatch: %s\n", s.to_string().c_str());
        return 1;
      }
      ok = ok && sums == want;
    }
    all_ok = all_ok && ok;
    std::optional<size_t> chosen = (*group)->decision(w);
    for (const WorkloadReport& r : (*group)->report().workloads) {
      if (r.workload != w.to_string()) continue;
      std::printf("workload %s: %s (%s) %zu of %d calls explored, sums %s\n", r.workload.c_str(),
                  chosen ? r.choice_name.c_str() : "none", decision_name(r.decision),
                  r.explore_launches, calls, ok ? "ok" : "WRONG");
    }
  }
  return all_ok ? 0 : 1;
}

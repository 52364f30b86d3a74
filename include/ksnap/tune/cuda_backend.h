// ksnap tune: the CUDA backend — Triton cubins launched through the CUDA
// driver API, which is loaded with dlopen: on a machine without libcuda every
// entry point returns kUnavailable and nothing crashes.
//
// Triton 3.6 ABI. A compiled Triton kernel takes the user arguments with the
// constexpr ones removed (the ArgPack, in signature order) followed by two
// hidden `ptr addrspace(1)` parameters: the global scratch and the profile
// scratch buffers. Each is NULL when the metadata's *_scratch_size is 0 and
// otherwise points to grid_x*grid_y*grid_z*num_ctas*size bytes (aligned to
// *_scratch_align), which this backend allocates once per variant and grows
// on demand. Launch geometry comes from the metadata: num_warps*32 threads
// per block, `shared` bytes of dynamic shared memory (the function is opted in
// to more than 48 KiB as Triton does: max dynamic = optin - static), and
// num_ctas > 1 (or cluster_dims) launched with cuLaunchKernelEx and a cluster
// dimension attribute (grid x multiplied by num_ctas); cooperative and PDL
// launches get their attributes too. The grid itself is a function of the
// workload and the variant's constexprs, supplied by the caller:
//
//   GridFn grid = [](const Workload& w, const CapturedVariant& v) {
//     int64_t bm = v.constexprs.at("BLOCK_SIZE_M"), bn = v.constexprs.at("BLOCK_SIZE_N");
//     return Dim3{uint32_t(((w[0] + bm - 1) / bm) * ((w[1] + bn - 1) / bn)), 1, 1};
//   };
//   auto be = CudaBackend::from_capture("capture", "matmul_kernel", grid);
//
// Timing: a timed launch records a CUevent before and after it on the same
// stream; poll() uses cuEventQuery (never blocks), wait() cuEventSynchronize.
// capturing() asks cuStreamIsCapturing.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ksnap/tune/backend.h"
#include "ksnap/tune/capture.h"

namespace ksnap::tune {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
};

using GridFn = std::function<Dim3(const Workload&, const CapturedVariant&)>;

/// True when libcuda.so.1 loads and cuInit succeeds; otherwise `why` says why.
bool cuda_available(std::string* why = nullptr);

class CudaBackend : public Backend {
 public:
  /// Loads the variants' cubins on device `ordinal` (its primary context).
  /// Errors: kUnavailable (no driver/device), kInternal (CUDA errors, named).
  static Expected<std::shared_ptr<CudaBackend>> create(std::vector<CapturedVariant> variants,
                                                       GridFn grid, int ordinal = 0);
  /// load_capture_kernel + create.
  static Expected<std::shared_ptr<CudaBackend>> from_capture(const std::string& capture_dir,
                                                             const std::string& kernel,
                                                             GridFn grid, int ordinal = 0);
  ~CudaBackend() override;

  size_t variant_count() const override { return variants_.size(); }
  std::string variant_name(size_t v) const override { return variants_[v].label; }
  uint64_t variant_hash(size_t v) const override { return hashes_[v]; }
  DeviceFingerprint device() const override { return device_; }

  Status launch(size_t v, const Workload& w, const ArgPack& args, Stream s) override;
  Expected<Ticket> launch_timed(size_t v, const Workload& w, const ArgPack& args,
                                Stream s) override;
  Poll poll(Ticket& t) override;
  Expected<double> wait(Ticket& t) override;
  void release(Ticket& t) override;
  bool capturing(Stream s) override;

  Expected<DeviceBuffer> alloc(size_t bytes) override;
  void free(DeviceBuffer& b) override;
  Status fill(DeviceBuffer& b, Fill fill, uint64_t seed) override;
  Status copy(DeviceBuffer& dst, const DeviceBuffer& src) override;
  Status synchronize(Stream s) override;

  /// Copies device memory to the host (checks in tests and gpu/tune).
  Status read(const DeviceBuffer& src, void* host, Stream s) override;
  Status download(void* host, uint64_t device_address, size_t bytes);
  Status upload(uint64_t device_address, const void* host, size_t bytes);
  /// The variant's CUfunction (as void*), for a raw cuLaunchKernel baseline.
  void* function(size_t v) const;
  /// The grid `v` would use for `w`.
  Dim3 grid(size_t v, const Workload& w) const { return grid_(w, variants_[v]); }
  /// Parameters the cubin's entry point takes (user + 2 hidden); 0 if unknown.
  size_t param_count(size_t v) const;
  const CapturedVariant& captured(size_t v) const { return variants_[v]; }

 private:
  struct Impl;
  CudaBackend() = default;
  Status launch_impl(size_t v, const Workload& w, const ArgPack& args, Stream s);

  std::vector<CapturedVariant> variants_;
  std::vector<uint64_t> hashes_;
  GridFn grid_;
  DeviceFingerprint device_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ksnap::tune

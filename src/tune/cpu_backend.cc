#include "ksnap/tune/cpu_backend.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <random>

#include "ksnap/support/hash.h"

namespace ksnap::tune {

double SteadyClock::now_us() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void FakeClock::advance(double us) {
  double cur = now_.load(std::memory_order_relaxed);
  while (!now_.compare_exchange_weak(cur, cur + us, std::memory_order_relaxed)) {
  }
}

CpuBackend::CpuBackend(std::vector<CpuVariant> variants, std::shared_ptr<Clock> clock)
    : variants_(std::move(variants)), clock_(std::move(clock)) {
  for (size_t i = 0; i < variants_.size(); ++i)
    counts_.push_back(std::make_unique<std::atomic<size_t>>(0));
}

uint64_t CpuBackend::variant_hash(size_t v) const {
  Hasher h;
  h.update(variants_[v].name);
  h.update_u64(variants_[v].version);
  return h.digest();
}

void CpuBackend::set_device(DeviceFingerprint d) {
  std::lock_guard<std::mutex> lock(mu_);
  device_override_ = std::make_unique<DeviceFingerprint>(std::move(d));
}

DeviceFingerprint CpuBackend::device() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (device_override_) return *device_override_;
  DeviceFingerprint d;
  d.backend = "cpu";
  d.name = "host";
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) d.uuid = host;
  d.sm_count = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  d.library_version = library_version();
  return d;
}

Status CpuBackend::launch(size_t v, const Workload& w, const ArgPack& args, Stream) {
  if (v >= variants_.size())
    return make_error(ErrorCode::kInvalidArgument, "no variant " + std::to_string(v));
  counts_[v]->fetch_add(1, std::memory_order_relaxed);
  variants_[v].fn(w, args);
  return Status::ok();
}

Expected<Ticket> CpuBackend::launch_timed(size_t v, const Workload& w, const ArgPack& args,
                                          Stream s) {
  double t0 = clock_->now_us();
  KSNAP_RETURN_IF_ERROR(launch(v, w, args, s));
  Ticket t;
  t.value_us = clock_->now_us() - t0;
  t.id = result_delay_;  // polls left before the result shows
  t.ready = true;
  return t;
}

Poll CpuBackend::poll(Ticket& t) {
  if (t.id > 0) {
    --t.id;
    return {PollState::kPending, 0};
  }
  return {PollState::kDone, t.value_us};
}

Expected<double> CpuBackend::wait(Ticket& t) { return t.value_us; }

Expected<DeviceBuffer> CpuBackend::alloc(size_t bytes) {
  void* p = std::calloc(bytes ? bytes : 1, 1);
  if (!p) return make_error(ErrorCode::kUnavailable, "out of host memory");
  return DeviceBuffer{reinterpret_cast<uint64_t>(p), bytes};
}

void CpuBackend::free(DeviceBuffer& b) {
  std::free(reinterpret_cast<void*>(b.address));
  b = {};
}

Status CpuBackend::fill(DeviceBuffer& b, Fill fill, uint64_t seed) {
  auto* p = reinterpret_cast<unsigned char*>(b.address);
  if (fill == Fill::kZero) {
    std::memset(p, 0, b.bytes);
    return Status::ok();
  }
  std::mt19937_64 rng(seed);
  if (fill == Fill::kF32) {
    std::uniform_real_distribution<float> u(-1, 1);
    for (size_t i = 0; i + 4 <= b.bytes; i += 4) {
      float f = u(rng);
      std::memcpy(p + i, &f, 4);
    }
    return Status::ok();
  }
  for (size_t i = 0; i < b.bytes; ++i) p[i] = static_cast<unsigned char>(rng());
  if (fill == Fill::kF16)  // clear exponent MSB: finite values in (-2, 2)
    for (size_t i = 1; i < b.bytes; i += 2) p[i] &= 0xBF;
  return Status::ok();
}

Status CpuBackend::copy(DeviceBuffer& dst, const DeviceBuffer& src) {
  if (dst.bytes < src.bytes) return make_error(ErrorCode::kInvalidArgument, "copy: dst too small");
  std::memcpy(reinterpret_cast<void*>(dst.address), reinterpret_cast<const void*>(src.address),
              src.bytes);
  return Status::ok();
}

Status CpuBackend::read(const DeviceBuffer& src, void* host, Stream) {
  if (src.bytes) std::memcpy(host, reinterpret_cast<const void*>(src.address), src.bytes);
  return Status::ok();
}

}  // namespace ksnap::tune

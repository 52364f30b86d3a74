// ksnap tune: the CPU backend. Variants are C++ callables; launches run
// synchronously on the calling thread and are timed by a Clock. With a
// FakeClock (advanced by the callables themselves) tests and replays are
// exact and fast. `result_delay` makes a timed result visible only after that
// many polls, to exercise the "events read later" path the CUDA backend has.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ksnap/tune/backend.h"

namespace ksnap::tune {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual double now_us() = 0;
};

/// std::chrono::steady_clock.
class SteadyClock : public Clock {
 public:
  double now_us() override;
};

/// Time moves only when told to. Thread-safe.
class FakeClock : public Clock {
 public:
  double now_us() override { return now_.load(std::memory_order_relaxed); }
  void advance(double us);

 private:
  std::atomic<double> now_{0};
};

using CpuKernel = std::function<void(const Workload&, const ArgPack&)>;

struct CpuVariant {
  std::string name;
  CpuKernel fn;
  /// Identity of the "binary": bump it when the code changes (0: hash of name).
  uint64_t version = 0;
};

class CpuBackend : public Backend {
 public:
  explicit CpuBackend(std::vector<CpuVariant> variants,
                      std::shared_ptr<Clock> clock = std::make_shared<SteadyClock>());

  void set_result_delay(size_t polls) { result_delay_ = polls; }
  /// Pretend stream `s` is (not) being captured.
  void set_capturing(bool on) { capturing_ = on; }
  /// Override the reported device (tests of cache invalidation).
  void set_device(DeviceFingerprint d);
  /// Total launches per variant so far (timed and untimed).
  size_t launches(size_t v) const { return counts_[v]->load(); }

  size_t variant_count() const override { return variants_.size(); }
  std::string variant_name(size_t v) const override { return variants_[v].name; }
  uint64_t variant_hash(size_t v) const override;
  DeviceFingerprint device() const override;

  Status launch(size_t v, const Workload& w, const ArgPack& args, Stream s) override;
  Expected<Ticket> launch_timed(size_t v, const Workload& w, const ArgPack& args,
                                Stream s) override;
  Poll poll(Ticket& t) override;
  Expected<double> wait(Ticket& t) override;
  void release(Ticket&) override {}
  bool capturing(Stream) override { return capturing_; }

  Expected<DeviceBuffer> alloc(size_t bytes) override;
  void free(DeviceBuffer& b) override;
  Status fill(DeviceBuffer& b, Fill fill, uint64_t seed) override;
  Status copy(DeviceBuffer& dst, const DeviceBuffer& src) override;
  Status synchronize(Stream) override { return Status::ok(); }
  Status read(const DeviceBuffer& src, void* host, Stream s) override;

 private:
  std::vector<CpuVariant> variants_;
  std::vector<std::unique_ptr<std::atomic<size_t>>> counts_;
  std::shared_ptr<Clock> clock_;
  size_t result_delay_ = 0;
  std::atomic<bool> capturing_{false};
  mutable std::mutex mu_;
  std::unique_ptr<DeviceFingerprint> device_override_;
};

}  // namespace ksnap::tune

// ksnap tune: what a Group needs from a device — launch a variant, time a
// launch without stalling, tell whether a stream is being captured into a
// graph, and make buffers for synthetic arguments.
//
// Timed launches return a Ticket; poll() reads it later without waiting (CUDA
// events queried, never synchronized on the dispatch path); wait() blocks and
// is used only by ahead-of-time tuning. Two backends ship: CpuBackend
// (cpu_backend.h, C++ callables, CI) and CudaBackend (cuda_backend.h, Triton
// cubins through the CUDA driver API loaded with dlopen).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "ksnap/support/status.h"
#include "ksnap/tune/args.h"
#include "ksnap/tune/workload.h"

namespace ksnap::tune {

/// A stream handle (CUstream for CUDA; ignored by the CPU backend).
using Stream = void*;

/// The identity of the device a decision was measured on. Two fingerprints
/// must be equal in every field for a cached decision to be reused.
struct DeviceFingerprint {
  std::string backend;  ///< "cuda", "cpu"
  std::string name;     ///< "NVIDIA H200"
  std::string uuid;     ///< GPU UUID (hex), or host id for the CPU backend
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int driver_version = 0;  ///< cuDriverGetVersion
  int cuda_version = 0;    ///< CUDA headers the backend was built against
  std::string library_version;

  /// Every field equal (written out: a defaulted == is C++20, and this
  /// header is part of the runtime's C++17 interface).
  bool operator==(const DeviceFingerprint& o) const;
  bool operator!=(const DeviceFingerprint& o) const { return !(*this == o); }
  /// Name of the first field that differs from `o` ("" when equal).
  std::string first_difference(const DeviceFingerprint& o) const;
};

/// A timed launch in flight. Opaque to the group.
struct Ticket {
  uint64_t id = 0;
  void* start = nullptr;
  void* stop = nullptr;
  double value_us = 0;
  bool ready = false;
};

enum class PollState : uint8_t { kPending, kDone, kFailed };

struct Poll {
  PollState state = PollState::kPending;
  double time_us = 0;
};

/// A device buffer for synthetic arguments.
struct DeviceBuffer {
  uint64_t address = 0;
  size_t bytes = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;

  virtual size_t variant_count() const = 0;
  virtual std::string variant_name(size_t v) const = 0;
  /// Hash of the variant's binary and launch geometry: a rebuilt kernel or a
  /// changed geometry changes the group hash and invalidates cached decisions.
  virtual uint64_t variant_hash(size_t v) const = 0;
  virtual DeviceFingerprint device() const = 0;

  /// Launches variant `v` (the hot path: no allocation, no synchronization).
  virtual Status launch(size_t v, const Workload& w, const ArgPack& args, Stream s) = 0;
  /// Launches variant `v` between two timing marks.
  virtual Expected<Ticket> launch_timed(size_t v, const Workload& w, const ArgPack& args,
                                        Stream s) = 0;
  /// Non-blocking read of a ticket; kDone releases it.
  virtual Poll poll(Ticket& t) = 0;
  /// Blocking read (ahead-of-time tuning only); releases the ticket.
  virtual Expected<double> wait(Ticket& t) = 0;
  /// Drops a ticket whose result is no longer wanted.
  virtual void release(Ticket& t) = 0;
  /// True while `s` is being captured into a graph: never time then.
  virtual bool capturing(Stream s) = 0;

  virtual Expected<DeviceBuffer> alloc(size_t bytes) = 0;
  virtual void free(DeviceBuffer& b) = 0;
  /// Fills `b` per `fill` (random values from `seed`, or zeros).
  virtual Status fill(DeviceBuffer& b, Fill fill, uint64_t seed) = 0;
  virtual Status copy(DeviceBuffer& dst, const DeviceBuffer& src) = 0;
  /// Blocks until all work issued on `s` is done.
  virtual Status synchronize(Stream s) = 0;
  /// Copies `src` (all of it) to host memory at `host` after the work issued
  /// on `s` is done; verification (verify.h) needs it. The default says the
  /// backend cannot.
  virtual Status read(const DeviceBuffer& src, void* host, Stream s);
};

/// ksnap's version, part of every fingerprint.
const char* library_version();

}  // namespace ksnap::tune

// ksnap tune: kernel arguments and the argument layout of a group.
//
// Every variant of a group takes the same arguments. A call passes them as
// an ArgPack: up to 32 typed 8-byte slots, no allocation, so that dispatch
// stays a few nanoseconds over the raw launch. For the CUDA backend the slot
// addresses are the `kernelParams` of cuLaunchKernel (Triton's hidden scratch
// pointers are appended by the backend, see cuda_backend.h).
//
// An ArgLayout describes the arguments well enough to make synthetic ones
// for ahead-of-time tuning: buffer sizes as functions of the workload, which
// buffers are read (filled once with random data), written, or both (saved
// before tuning on a caller's buffers and restored after), and scalar values.
//
//   ArgLayout mm;  // C = A @ B, fp16, row-major
//   mm.buffer("a", Role::kInput, Fill::kF16, [](const Workload& w) { return 2 * w[0] * w[2]; });
//   mm.buffer("b", Role::kInput, Fill::kF16, [](const Workload& w) { return 2 * w[2] * w[1]; });
//   mm.buffer("c", Role::kOutput, Fill::kZero, [](const Workload& w) { return 2 * w[0] * w[1]; });
//   mm.scalar_i32("M", [](const Workload& w) { return w[0]; });  ... N, K, strides
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "ksnap/support/status.h"
#include "ksnap/tune/workload.h"

namespace ksnap::tune {

enum class ArgType : uint8_t { kPointer, kI32, kI64, kF32, kF64 };

/// One argument: its type and an 8-byte slot holding the value.
struct Arg {
  ArgType type = ArgType::kI64;
  alignas(8) unsigned char slot[8] = {};
};

/// The arguments of one call.
class ArgPack {
 public:
  static constexpr size_t kMaxArgs = 32;

  ArgPack& ptr(const void* p) { return put(ArgType::kPointer, reinterpret_cast<uint64_t>(p)); }
  ArgPack& i32(int32_t v) { return put_raw(ArgType::kI32, &v, sizeof v); }
  ArgPack& i64(int64_t v) { return put_raw(ArgType::kI64, &v, sizeof v); }
  ArgPack& f32(float v) { return put_raw(ArgType::kF32, &v, sizeof v); }
  ArgPack& f64(double v) { return put_raw(ArgType::kF64, &v, sizeof v); }

  size_t size() const { return n_; }
  bool overflowed() const { return overflow_; }
  const Arg& operator[](size_t i) const { return args_[i]; }
  /// Address of argument i's value (what cuLaunchKernel's kernelParams take).
  void* slot(size_t i) const { return const_cast<unsigned char*>(args_[i].slot); }

  template <typename T>
  T* pointer(size_t i) const {
    uint64_t v;
    std::memcpy(&v, args_[i].slot, 8);
    return reinterpret_cast<T*>(v);
  }
  int32_t as_i32(size_t i) const { return get<int32_t>(i); }
  int64_t as_i64(size_t i) const { return get<int64_t>(i); }
  float as_f32(size_t i) const { return get<float>(i); }
  double as_f64(size_t i) const { return get<double>(i); }

 private:
  template <typename T>
  T get(size_t i) const {
    T v;
    std::memcpy(&v, args_[i].slot, sizeof v);
    return v;
  }
  ArgPack& put(ArgType t, uint64_t v) { return put_raw(t, &v, sizeof v); }
  ArgPack& put_raw(ArgType t, const void* p, size_t n) {
    if (n_ == kMaxArgs) {
      overflow_ = true;
      return *this;
    }
    args_[n_].type = t;
    std::memset(args_[n_].slot, 0, 8);
    std::memcpy(args_[n_].slot, p, n);
    ++n_;
    return *this;
  }
  Arg args_[kMaxArgs];
  size_t n_ = 0;
  bool overflow_ = false;
};

/// What a buffer argument is for.
enum class Role : uint8_t { kInput, kOutput, kInOut };
/// How a synthetic buffer is initialized.
enum class Fill : uint8_t { kZero, kF16, kF32, kBytes };
/// What a buffer's elements are, for comparing two variants' outputs
/// (verify.h). kUnspecified: unknown, a buffer that verification cannot compare.
enum class ElementType : uint8_t { kUnspecified, kF16, kBF16, kF32, kF64, kI8, kI16, kI32, kI64, kBytes };

struct ArgSpec {
  std::string name;
  ArgType type = ArgType::kPointer;
  Role role = Role::kInput;
  Fill fill = Fill::kZero;
  std::function<int64_t(const Workload&)> size_or_value;  ///< bytes for buffers, value for scalars
  double fvalue = 0;  ///< for kF32/kF64 scalars without a function
  /// Element type of a buffer (for verification); kUnspecified: taken from
  /// the fill (kF16 -> f16, kF32 -> f32), else unknown.
  ElementType element = ElementType::kUnspecified;
};

class ArgLayout {
 public:
  /// A buffer of `bytes(workload)` bytes. `element` says what its elements
  /// are; verification (GroupOptions::verify) needs it for every output and
  /// in-out buffer whose fill does not say it.
  ArgLayout& buffer(std::string name, Role role, Fill fill,
                    std::function<int64_t(const Workload&)> bytes,
                    ElementType element = ElementType::kUnspecified);
  ArgLayout& scalar_i32(std::string name, std::function<int64_t(const Workload&)> value);
  ArgLayout& scalar_i64(std::string name, std::function<int64_t(const Workload&)> value);
  ArgLayout& scalar_f32(std::string name, double value);

  const std::vector<ArgSpec>& args() const { return args_; }
  bool empty() const { return args_.empty(); }

 private:
  std::vector<ArgSpec> args_;
};

}  // namespace ksnap::tune

// ksnap tune: workloads and how they are bucketed into tuning keys.
//
// A workload is the problem size a kernel call solves (e.g. M, N, K of a
// matmul). The group tunes once per *key*, and the user decides how
// workloads share keys:
//
//   exact       512x512x512 and 512x512x520 are two keys;
//   pow2        every dimension rounded up to a power of two:
//               512x512x520 -> key of 512x512x1024, label "p2:512x512x1024";
//   custom      any function Workload -> (key, label).
//
// Keys are 64-bit hashes of the bucketed dimensions; labels are what the
// tuning cache and reports show.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>

namespace ksnap::tune {

/// Up to 8 integer dimensions.
class Workload {
 public:
  static constexpr size_t kMaxDims = 8;
  Workload() = default;
  Workload(std::initializer_list<int64_t> dims);

  size_t rank() const { return rank_; }
  int64_t operator[](size_t i) const { return dims_[i]; }
  const int64_t* data() const { return dims_; }
  /// "512x512x512".
  std::string to_string() const;
  bool operator==(const Workload& o) const;
  bool operator!=(const Workload& o) const { return !(*this == o); }  // C++17 has no rewrite

 private:
  int64_t dims_[kMaxDims] = {};
  size_t rank_ = 0;
};

/// Maps workloads to tuning keys.
class Bucketing {
 public:
  using KeyFn = std::function<uint64_t(const Workload&)>;
  using LabelFn = std::function<std::string(const Workload&)>;

  static Bucketing exact();
  static Bucketing pow2();
  static Bucketing custom(KeyFn key, LabelFn label);

  uint64_t key(const Workload& w) const;
  std::string label(const Workload& w) const;
  const char* kind() const { return kind_; }

 private:
  const char* kind_ = "exact";
  KeyFn key_;
  LabelFn label_;
};

}  // namespace ksnap::tune

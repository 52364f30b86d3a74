#include "ksnap/tune/workload.h"

#include <algorithm>

#include "ksnap/support/hash.h"

namespace ksnap::tune {

Workload::Workload(std::initializer_list<int64_t> dims) {
  for (int64_t d : dims) {
    if (rank_ == kMaxDims) break;
    dims_[rank_++] = d;
  }
}

std::string Workload::to_string() const {
  std::string out;
  for (size_t i = 0; i < rank_; ++i) {
    if (i) out += "x";
    out += std::to_string(dims_[i]);
  }
  return out;
}

bool Workload::operator==(const Workload& o) const {
  return rank_ == o.rank_ && std::equal(dims_, dims_ + rank_, o.dims_);
}

namespace {

uint64_t hash_dims(const int64_t* d, size_t n, uint64_t seed) {
  return hash64(std::string_view(reinterpret_cast<const char*>(d), n * sizeof(int64_t)), seed);
}

int64_t round_up_pow2(int64_t x) {
  int64_t p = 1;
  while (p < x && p < (int64_t{1} << 62)) p <<= 1;
  return x <= 0 ? x : p;
}

Workload pow2_of(const Workload& w) {
  Workload out = w;
  int64_t* d = const_cast<int64_t*>(out.data());
  for (size_t i = 0; i < w.rank(); ++i) d[i] = round_up_pow2(w[i]);
  return out;
}

}  // namespace

Bucketing Bucketing::exact() {
  Bucketing b;
  b.kind_ = "exact";
  b.key_ = [](const Workload& w) { return hash_dims(w.data(), w.rank(), 1); };
  b.label_ = [](const Workload& w) { return w.to_string(); };
  return b;
}

Bucketing Bucketing::pow2() {
  Bucketing b;
  b.kind_ = "pow2";
  b.key_ = [](const Workload& w) {
    Workload p = pow2_of(w);
    return hash_dims(p.data(), p.rank(), 2);
  };
  b.label_ = [](const Workload& w) { return "p2:" + pow2_of(w).to_string(); };
  return b;
}

Bucketing Bucketing::custom(KeyFn key, LabelFn label) {
  Bucketing b;
  b.kind_ = "custom";
  b.key_ = std::move(key);
  b.label_ = std::move(label);
  return b;
}

uint64_t Bucketing::key(const Workload& w) const { return key_ ? key_(w) : exact().key(w); }

std::string Bucketing::label(const Workload& w) const {
  return label_ ? label_(w) : w.to_string();
}

}  // namespace ksnap::tune

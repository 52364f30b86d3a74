// ksnap support layer: content hashing (xxHash XXH3, 64 and 128 bit).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ksnap {

/// 64-bit XXH3 of `data`.
uint64_t hash64(std::string_view data, uint64_t seed = 0);

/// Incremental 64-bit XXH3; `update` many pieces, then `digest`. Equal to
/// hash64() of the pieces concatenated. Holds XXH3's state inline (576
/// bytes): making one allocates nothing, so a Hasher per line is cheap.
class Hasher {
 public:
  Hasher();
  ~Hasher();
  Hasher(const Hasher&) = delete;
  Hasher& operator=(const Hasher&) = delete;
  void update(std::string_view data);
  void update_u64(uint64_t v);
  uint64_t digest() const;

  /// Bytes of XXH3_state_t (xxhash.h; hash.cc checks it fits).
  static constexpr size_t kStateBytes = 576;

 private:
  alignas(64) unsigned char state_[kStateBytes];
};

/// 128-bit XXH3 as 32 lowercase hex digits: the content address of a blob.
std::string hash128_hex(std::string_view data);

/// 16 lowercase hex digits of a 64-bit hash.
std::string hex64(uint64_t h);

}  // namespace ksnap

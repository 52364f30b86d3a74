// XXH3 built for AVX2, for hash.cc to pick at run time (internal).
//
// XXH3's result does not depend on the vector width it runs with (the
// algorithm fixes every byte of it), so the AVX2 build gives the same hashes
// as libxxhash's SSE2 build, about twice as fast on long inputs (39 against
// 14-19 GB/s on this project's VM, 64 KiB pieces): the canonical text the
// normalizer hashes and the raw bytes of every file read.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ksnap::detail {

/// The AVX2 build's entry points; `state` is an XXH3_state_t (Hasher's).
struct Xxh3Avx2 {
  uint64_t (*hash)(const void* data, size_t size, uint64_t seed);
  void (*update)(void* state, const void* data, size_t size);
  uint64_t (*digest)(const void* state);
};

/// The AVX2 build, or nullptr where it was not compiled (not x86-64, or a
/// build without -mavx2 for hash_avx2.cc: the fuzz and sanitizer trees).
/// Whether the CPU runs it is for the caller to ask.
const Xxh3Avx2* xxh3_avx2();

}  // namespace ksnap::detail

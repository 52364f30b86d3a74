// gpu/tune/matmul_common.h: what the GPU programs of gpu/tune share about
// Triton's matmul tutorial kernel (its grid and arguments) and small helpers.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "ksnap/tune/backend.h"
#include "ksnap/tune/capture.h"

namespace {

using namespace ksnap;
using namespace ksnap::tune;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

float half_to_float(uint16_t h) {
  uint32_t s = (h >> 15) & 1, e = (h >> 10) & 31, m = h & 1023;
  float v;
  if (e == 0) v = std::ldexp(static_cast<float>(m), -24);
  else if (e == 31) v = m ? NAN : INFINITY;
  else v = std::ldexp(static_cast<float>(m | 1024), static_cast<int>(e) - 25);
  return s ? -v : v;
}

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

Dim3 matmul_grid(const Workload& w, const CapturedVariant& v) {
  int64_t bm = v.constexprs.at("BLOCK_SIZE_M"), bn = v.constexprs.at("BLOCK_SIZE_N");
  return Dim3{static_cast<uint32_t>(cdiv(w[0], bm) * cdiv(w[1], bn)), 1, 1};
}

ArgPack matmul_args(uint64_t a, uint64_t b, uint64_t c, const Workload& w) {
  int32_t M = static_cast<int32_t>(w[0]), N = static_cast<int32_t>(w[1]),
          K = static_cast<int32_t>(w[2]);
  ArgPack p;
  // matmul_kernel(a, b, c, M, N, K, stride_am, stride_ak=1, stride_bk, stride_bn=1,
  //               stride_cm, stride_cn=1): the strides equal to 1 are constexprs.
  p.ptr(reinterpret_cast<void*>(a)).ptr(reinterpret_cast<void*>(b)).ptr(reinterpret_cast<void*>(c));
  p.i32(M).i32(N).i32(K).i32(K).i32(N).i32(N);
  return p;
}

#define CHECK_OK(expr)                                                           \
  do {                                                                           \
    ::ksnap::Status s_ = (expr);                                                 \
    if (!s_.is_ok()) {                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, s_.to_string().c_str()); \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)


}  // namespace

#include "ksnap/tune/cuda_backend.h"

#include <gtest/gtest.h>

#include "ksnap/support/file.h"
#include "ksnap/tune/group.h"

namespace ksnap::tune {
namespace {

Dim3 matmul_grid(const Workload& w, const CapturedVariant& v) {
  int64_t bm = v.constexprs.at("BLOCK_SIZE_M"), bn = v.constexprs.at("BLOCK_SIZE_N");
  return Dim3{uint32_t(((w[0] + bm - 1) / bm) * ((w[1] + bn - 1) / bn)), 1, 1};
}

std::string corpus_base() { return std::string(KSNAP_CORPUS_DIR) + "/base"; }

// CI has no GPU: without libcuda the backend must say kUnavailable, not crash.
TEST(CudaBackend, UnavailableWithoutDriverIsAnError) {
  std::string why;
  if (cuda_available(&why)) GTEST_SKIP() << "a CUDA driver is present";
  EXPECT_FALSE(why.empty());
  CapturedVariant fake;
  fake.label = "fake";
  fake.cubin = "\x7f" "ELF";
  auto be = CudaBackend::create({fake}, matmul_grid);
  ASSERT_FALSE(be);
  EXPECT_EQ(be.status().code(), ErrorCode::kUnavailable);
  if (is_directory(corpus_base())) {
    auto cap = CudaBackend::from_capture(corpus_base(), "matmul_kernel", matmul_grid);
    ASSERT_FALSE(cap);
    EXPECT_EQ(cap.status().code(), ErrorCode::kUnavailable);
  }
}

TEST(CudaBackend, CreateRejectsMissingGrid) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA driver";
  CapturedVariant v;
  EXPECT_EQ(CudaBackend::create({v}, nullptr).status().code(), ErrorCode::kInvalidArgument);
}

// On a machine with a GPU: the corpus's sm_90 matmul cubins load, take 9
// arguments plus Triton's 2 hidden scratch pointers, and compute A@B.
TEST(CudaBackend, CorpusMatmulRunsOnTheGpu) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA driver";
  if (!is_directory(corpus_base())) GTEST_SKIP() << "no corpus";
  auto be = CudaBackend::from_capture(corpus_base(), "matmul_kernel", matmul_grid);
  if (!be && be.status().code() == ErrorCode::kInternal) GTEST_SKIP() << be.status().to_string();
  ASSERT_TRUE(be) << be.status().to_string();
  EXPECT_EQ((*be)->variant_count(), 8u);
  if ((*be)->param_count(0)) {
    EXPECT_EQ((*be)->param_count(0), 11u);
  }
  Workload w{256, 256, 256};
  auto a = (*be)->alloc(2 * 256 * 256), b = (*be)->alloc(2 * 256 * 256), c = (*be)->alloc(2 * 256 * 256);
  ASSERT_TRUE(a && b && c);
  ASSERT_TRUE((*be)->fill(*a, Fill::kF16, 1).is_ok());
  ASSERT_TRUE((*be)->fill(*b, Fill::kF16, 2).is_ok());
  ArgPack args;
  args.ptr(reinterpret_cast<void*>(a->address)).ptr(reinterpret_cast<void*>(b->address));
  args.ptr(reinterpret_cast<void*>(c->address));
  args.i32(256).i32(256).i32(256).i32(256).i32(256).i32(256);
  for (size_t v = 0; v < 8; ++v) ASSERT_TRUE((*be)->launch(v, w, args, nullptr).is_ok()) << v;
  ASSERT_TRUE((*be)->synchronize(nullptr).is_ok());
  ArgPack short_args;
  short_args.ptr(nullptr);
  if ((*be)->param_count(0)) {
    EXPECT_EQ((*be)->launch(0, w, short_args, nullptr).code(), ErrorCode::kInvalidArgument);
  }
  auto t = (*be)->launch_timed(0, w, args, nullptr);
  ASSERT_TRUE(t);
  auto us = (*be)->wait(*t);
  ASSERT_TRUE(us);
  EXPECT_GT(*us, 0);
  (*be)->free(*a);
  (*be)->free(*b);
  (*be)->free(*c);
}

}  // namespace
}  // namespace ksnap::tune

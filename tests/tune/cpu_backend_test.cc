#include "ksnap/tune/cpu_backend.h"

#include <gtest/gtest.h>

#include <cstring>

namespace ksnap::tune {
namespace {

TEST(CpuBackend, LaunchesAndTimesWithTheClock) {
  auto clock = std::make_shared<FakeClock>();
  CpuBackend be({{"slow", [&](const Workload&, const ArgPack&) { clock->advance(30); }},
                 {"fast", [&](const Workload&, const ArgPack& a) { clock->advance(a.as_i32(0)); }}},
                clock);
  EXPECT_EQ(be.variant_count(), 2u);
  EXPECT_NE(be.variant_hash(0), be.variant_hash(1));
  ArgPack args;
  args.i32(7);
  auto t = be.launch_timed(1, {}, args, nullptr);
  ASSERT_TRUE(t);
  Poll p = be.poll(*t);
  EXPECT_EQ(p.state, PollState::kDone);
  EXPECT_DOUBLE_EQ(p.time_us, 7);
  be.set_result_delay(2);
  auto t2 = be.launch_timed(0, {}, args, nullptr);
  EXPECT_EQ(be.poll(*t2).state, PollState::kPending);
  EXPECT_EQ(be.poll(*t2).state, PollState::kPending);
  EXPECT_DOUBLE_EQ(be.poll(*t2).time_us, 30);
  EXPECT_EQ(be.launches(0), 1u);
  EXPECT_EQ(be.launch(5, {}, args, nullptr).code(), ErrorCode::kInvalidArgument);
}

TEST(CpuBackend, BuffersFillAndCopy) {
  CpuBackend be({{"v", [](const Workload&, const ArgPack&) {}}});
  auto a = be.alloc(64), b = be.alloc(64);
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(be.fill(*a, Fill::kF32, 3).is_ok());
  float f[16];
  std::memcpy(f, reinterpret_cast<void*>(a->address), 64);
  bool nonzero = false;
  for (float x : f) {
    EXPECT_LE(std::abs(x), 1.0f);
    nonzero |= x != 0;
  }
  EXPECT_TRUE(nonzero);
  ASSERT_TRUE(be.copy(*b, *a).is_ok());
  EXPECT_EQ(std::memcmp(reinterpret_cast<void*>(a->address), reinterpret_cast<void*>(b->address), 64), 0);
  auto small = be.alloc(8);
  EXPECT_FALSE(be.copy(*small, *a).is_ok());
  DeviceFingerprint d = be.device();
  EXPECT_EQ(d.backend, "cpu");
  EXPECT_EQ(d.library_version, library_version());
  be.free(*a);
  be.free(*b);
  be.free(*small);
}

TEST(ArgPack, SlotsHoldTypedValues) {
  int x = 0;
  ArgPack p;
  p.ptr(&x).i32(-5).i64(1ll << 40).f32(1.5f).f64(2.25);
  EXPECT_EQ(p.size(), 5u);
  EXPECT_EQ(p.pointer<int>(0), &x);
  EXPECT_EQ(p.as_i32(1), -5);
  EXPECT_EQ(p.as_i64(2), 1ll << 40);
  EXPECT_FLOAT_EQ(p.as_f32(3), 1.5f);
  EXPECT_DOUBLE_EQ(p.as_f64(4), 2.25);
  int32_t raw;
  std::memcpy(&raw, p.slot(1), 4);  // what cuLaunchKernel reads for an i32 parameter
  EXPECT_EQ(raw, -5);
  ArgPack full;
  for (int i = 0; i < 40; ++i) full.i32(i);
  EXPECT_EQ(full.size(), ArgPack::kMaxArgs);
  EXPECT_TRUE(full.overflowed());
}

}  // namespace
}  // namespace ksnap::tune

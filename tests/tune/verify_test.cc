// Verified variants: the element comparison (table-driven) and a group in
// which a wrong variant is the fastest — with verification it is excluded and
// never wins, without it it wins (so the check is what keeps it out).
#include "ksnap/tune/verify.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "ksnap/tune/cpu_backend.h"
#include "ksnap/tune/group.h"

namespace ksnap::tune {
namespace {

uint16_t f16(float f) {  // float -> IEEE half (normal range, round to nearest)
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  if (std::isnan(f)) return static_cast<uint16_t>(sign | 0x7E00);
  if (std::isinf(f)) return static_cast<uint16_t>(sign | 0x7C00);
  if (f == 0) return static_cast<uint16_t>(sign);
  int e = static_cast<int>((x >> 23) & 0xFF) - 127 + 15;
  uint32_t m = x & 0x7FFFFF;
  uint32_t half = static_cast<uint32_t>(e << 10) | (m >> 13);
  if (m & 0x1000) ++half;
  return static_cast<uint16_t>(sign | half);
}

uint16_t bf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  return static_cast<uint16_t>(x >> 16);
}

template <typename T>
std::optional<Mismatch> cmp(ElementType t, std::vector<T> a, std::vector<T> b,
                            Tolerance tol = {-1, -1}) {
  if (tol.atol < 0) tol = default_tolerance(t);
  return compare_outputs(t, a.data(), b.data(), a.size() * sizeof(T), tol);
}

TEST(Verify, ComparesFloatsWithinTolerance) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  struct Row {
    const char* what;
    std::vector<float> ref, got;
    bool match;
    size_t first = 0, count = 0;
  };
  const Row rows[] = {
      {"identical", {1, 2, 3}, {1, 2, 3}, true},
      {"within rtol", {1, 100}, {1.00001f, 100.005f}, true},
      {"beyond", {1, 2, 3}, {1, 2.01f, 3}, false, 1, 1},
      {"near zero within atol", {0}, {5e-5f}, true},
      {"near zero beyond atol", {0}, {5e-4f}, false, 0, 1},
      {"nan matches nan", {nan, 1}, {nan, 1}, true},
      {"nan vs number", {1, nan}, {1, 1}, false, 1, 1},
      {"number vs nan", {1, 1}, {1, nan}, false, 1, 1},
      {"same infinity", {inf, -inf}, {inf, -inf}, true},
      {"opposite infinity", {inf}, {-inf}, false, 0, 1},
      {"signed zero", {0.0f}, {-0.0f}, true},
      {"counts every mismatch", {1, 2, 3, 4}, {9, 2, 9, 9}, false, 0, 3},
  };
  for (const Row& r : rows) {
    auto m = cmp(ElementType::kF32, r.ref, r.got);
    EXPECT_EQ(!m, r.match) << r.what;
    if (m) {
      EXPECT_EQ(m->index, r.first) << r.what;
      EXPECT_EQ(m->count, r.count) << r.what;
      EXPECT_EQ(m->elements, r.ref.size()) << r.what;
    }
  }
}

TEST(Verify, HalfAndBfloatUseTheirOwnTolerances) {
  // The worked example of verify.h: f16 atol 1e-2, rtol 1e-2.
  EXPECT_FALSE(cmp<uint16_t>(ElementType::kF16, {f16(1.0f)}, {f16(1.015f)}));
  EXPECT_TRUE(cmp<uint16_t>(ElementType::kF16, {f16(1.0f)}, {f16(1.03f)}));
  EXPECT_FALSE(cmp<uint16_t>(ElementType::kF16, {f16(0.0f)}, {f16(0.009f)}));
  // Subnormal halves decode (6e-8 is 2^-24, the smallest).
  EXPECT_FALSE(cmp<uint16_t>(ElementType::kF16, {0x0001}, {0x0002}));
  // bf16 keeps 8 bits: 1.0 vs 1.0078125 is one step, within 3e-2.
  EXPECT_FALSE(cmp<uint16_t>(ElementType::kBF16, {bf16(1.0f)}, {bf16(1.0078125f)}));
  EXPECT_TRUE(cmp<uint16_t>(ElementType::kBF16, {bf16(1.0f)}, {bf16(1.25f)}));
  // The message names the element, both values and the tolerance.
  auto m = cmp<uint16_t>(ElementType::kF16, {f16(1), f16(2)}, {f16(1), f16(3.5f)});
  ASSERT_TRUE(m);
  std::string text = m->to_string(ElementType::kF16, default_tolerance(ElementType::kF16));
  EXPECT_NE(text.find("element 1 of 2: 3.5 where the default gives 2"), std::string::npos) << text;
  EXPECT_NE(text.find("f16 atol 0.01 rtol 0.01"), std::string::npos) << text;
}

TEST(Verify, IntegersAndBytesMustBeEqual) {
  EXPECT_FALSE(cmp<int32_t>(ElementType::kI32, {1, -2}, {1, -2}));
  EXPECT_TRUE(cmp<int32_t>(ElementType::kI32, {1, -2}, {1, -3}));
  // Two i64 values a double cannot tell apart still differ.
  EXPECT_TRUE(cmp<int64_t>(ElementType::kI64, {(int64_t{1} << 60)}, {(int64_t{1} << 60) + 1}));
  EXPECT_TRUE(cmp<uint8_t>(ElementType::kBytes, {1, 2, 3}, {1, 2, 4}));
  // A trailing partial element is compared bytewise.
  std::vector<uint8_t> a = {0, 0, 128, 63, 7}, b = {0, 0, 128, 63, 8};
  auto m = compare_outputs(ElementType::kF32, a.data(), b.data(), a.size(), {1, 1});
  ASSERT_TRUE(m);
  EXPECT_EQ(m->index, 1u);
  EXPECT_EQ(m->elements, 2u);
}

// y[i] = x[i] * 2 (+ error for the wrong variant); each variant costs
// `cost` µs of fake time, so the wrong one is the fastest.
struct Scale {
  explicit Scale(std::vector<std::pair<double, float>> variants)
      : clock(std::make_shared<FakeClock>()) {
    std::vector<CpuVariant> vs;
    for (size_t v = 0; v < variants.size(); ++v) {
      auto [cost, err] = variants[v];
      vs.push_back({"v" + std::to_string(v), [this, cost, err, v](const Workload& w, const ArgPack& a) {
                      const float* x = a.pointer<float>(0);
                      float* y = a.pointer<float>(1);
                      for (int64_t i = 0; i < w[0]; ++i) y[i] = x[i] * 2 + (i == 3 ? err : 0);
                      std::lock_guard<std::mutex> lock(mu);
                      std::normal_distribution<double> n(0, 0.02);
                      clock->advance(cost * std::exp(n(rng)));
                      ++runs[v];
                    }});
    }
    runs.assign(variants.size(), 0);
    backend = std::make_shared<CpuBackend>(std::move(vs), clock);
  }
  GroupOptions options(bool verify, Policy p = Policy::kOnline) const {
    GroupOptions o;
    o.read_env = false;
    o.policy = p;
    o.layout.buffer("x", Role::kInput, Fill::kF32, [](const Workload& w) { return 4 * w[0]; })
        .buffer("y", Role::kOutput, Fill::kZero, [](const Workload& w) { return 4 * w[0]; },
                ElementType::kF32);
    o.verify.enabled = verify;
    return o;
  }
  std::shared_ptr<FakeClock> clock;
  std::mutex mu;
  std::mt19937_64 rng{7};
  std::vector<size_t> runs;
  std::shared_ptr<CpuBackend> backend;
};

TEST(Verify, AnInjectedWrongVariantNeverWinsOnline) {
  // v0 default (300 µs), v1 right (200 µs), v2 wrong and fastest (50 µs).
  for (bool verify : {true, false}) {
    Scale s({{300, 0}, {200, 0}, {50, 1.0f}});
    std::vector<CommitEvent> events;
    GroupOptions o = s.options(verify);
    o.on_commit = [&](const CommitEvent& e) { events.push_back(e); };
    auto g = Group::create(s.backend, o);
    ASSERT_TRUE(g) << g.status().to_string();
    std::vector<float> x(64), y(64);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
    Workload w{64};
    ArgPack args = ArgPack().ptr(x.data()).ptr(y.data());
    for (int i = 0; i < 2000 && !(*g)->decision(w); ++i) ASSERT_TRUE((*g)->dispatch(w, args).is_ok());
    ASSERT_TRUE((*g)->decision(w));
    GroupReport r = (*g)->report();
    ASSERT_EQ(events.size(), 1u);
    if (verify) {
      EXPECT_EQ(*(*g)->decision(w), 1u) << r.to_text();
      EXPECT_EQ(s.runs[2], 1u) << "the wrong variant ran once, in verification, and was never timed";
      EXPECT_NE(r.workloads[0].variants[2].excluded.find("output 'y' element 3 of 64"),
                std::string::npos)
          << r.to_text();
      EXPECT_NE(r.to_text().find("v2 excluded: output 'y'"), std::string::npos) << r.to_text();
      EXPECT_NE(r.to_json().find("\"excluded\": \"output 'y'"), std::string::npos);
      EXPECT_EQ(events[0].excluded, std::vector<std::string>{"v2"});
      EXPECT_NE(events[0].to_json().find("\"excluded\":[\"v2\"]"), std::string::npos)
          << events[0].to_json();
      EXPECT_NE(events[0].reason.find("excluded, output differs from the default's: {v2}"),
                std::string::npos)
          << events[0].reason;
    } else {
      EXPECT_EQ(*(*g)->decision(w), 2u) << "without verification the wrong variant wins";
      EXPECT_TRUE(events[0].excluded.empty());
    }
  }
}

TEST(Verify, AheadOfTimeOnSyntheticAndCallerData) {
  for (bool caller : {false, true}) {
    Scale s({{300, 0}, {50, 0.5f}, {100, 0}, {20, -3.0f}});
    auto g = Group::create(s.backend, s.options(true, Policy::kAheadOfTime));
    ASSERT_TRUE(g) << g.status().to_string();
    Workload w{32};
    std::vector<float> x(32, 1.5f), y(32, 42.0f);
    Status st = caller ? (*g)->tune(w, ArgPack().ptr(x.data()).ptr(y.data())) : (*g)->tune(w);
    ASSERT_TRUE(st.is_ok()) << st.to_string();
    ASSERT_TRUE((*g)->decision(w));
    EXPECT_EQ(*(*g)->decision(w), 2u);
    GroupReport r = (*g)->report();
    EXPECT_FALSE(r.workloads[0].variants[1].excluded.empty());
    EXPECT_FALSE(r.workloads[0].variants[3].excluded.empty());
    EXPECT_TRUE(r.workloads[0].variants[2].excluded.empty());
    EXPECT_EQ(s.runs[1], 1u);
    EXPECT_EQ(s.runs[3], 1u);
    if (caller) EXPECT_EQ(y, std::vector<float>(32, 42.0f)) << "the caller's output is restored";
  }
}

TEST(Verify, OnlyTheDefaultMatches) {
  Scale s({{300, 0}, {50, 1.0f}, {20, 2.0f}});
  auto g = Group::create(s.backend, s.options(true, Policy::kAheadOfTime));
  ASSERT_TRUE(g);
  ASSERT_TRUE((*g)->tune(Workload{16}).is_ok());
  ASSERT_TRUE((*g)->decision(Workload{16}));
  EXPECT_EQ(*(*g)->decision(Workload{16}), 0u);
  GroupReport r = (*g)->report();
  EXPECT_EQ(r.workloads[0].decision, Decision::kSeparated);
  EXPECT_NE(r.workloads[0].reason.find("v0 is the only variant whose output matches"),
            std::string::npos)
      << r.workloads[0].reason;
}

TEST(Verify, ExclusionIsPerWorkload) {
  // v1 is wrong only for workloads of 100 elements or more (a tail bug).
  auto clock = std::make_shared<FakeClock>();
  auto kernel = [clock](double cost, bool tail_bug) {
    return [clock, cost, tail_bug](const Workload& w, const ArgPack& a) {
      const float* x = a.pointer<float>(0);
      float* y = a.pointer<float>(1);
      int64_t n = tail_bug && w[0] >= 100 ? w[0] - 1 : w[0];
      for (int64_t i = 0; i < n; ++i) y[i] = x[i] + 1;
      clock->advance(cost);
    };
  };
  auto backend = std::make_shared<CpuBackend>(
      std::vector<CpuVariant>{{"plain", kernel(100, false)}, {"fast", kernel(10, true)}}, clock);
  Scale shape({});  // only for its options
  auto g = Group::create(backend, shape.options(true, Policy::kAheadOfTime));
  ASSERT_TRUE(g);
  ASSERT_TRUE((*g)->tune(Workload{64}).is_ok());
  ASSERT_TRUE((*g)->tune(Workload{128}).is_ok());
  EXPECT_EQ(*(*g)->decision(Workload{64}), 1u);
  EXPECT_EQ(*(*g)->decision(Workload{128}), 0u);
}

TEST(Verify, CaptureDefersVerificationAndRunsTheDefault) {
  Scale s({{300, 0}, {50, 1.0f}});
  auto g = Group::create(s.backend, s.options(true));
  ASSERT_TRUE(g);
  std::vector<float> x(8, 1), y(8);
  ArgPack args = ArgPack().ptr(x.data()).ptr(y.data());
  s.backend->set_capturing(true);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE((*g)->dispatch(Workload{8}, args).is_ok());
  EXPECT_EQ(s.runs[0], 5u);
  EXPECT_EQ(s.runs[1], 0u);
  s.backend->set_capturing(false);
  ASSERT_TRUE((*g)->dispatch(Workload{8}, args).is_ok());
  EXPECT_EQ(*(*g)->decision(Workload{8}), 0u);  // v1 excluded: one survivor
}

TEST(Verify, RejectsLayoutsItCannotCompare) {
  Scale s({{1, 0}, {1, 0}});
  GroupOptions none;
  none.read_env = false;
  none.verify.enabled = true;
  auto g = Group::create(s.backend, none);
  ASSERT_FALSE(g);
  EXPECT_NE(g.status().message().find("needs an ArgLayout"), std::string::npos);

  GroupOptions untyped = none;
  untyped.layout.buffer("c", Role::kOutput, Fill::kZero, [](const Workload&) { return 16; });
  g = Group::create(s.backend, untyped);
  ASSERT_FALSE(g);
  EXPECT_NE(g.status().message().find("cannot compare buffer 'c'"), std::string::npos)
      << g.status().to_string();

  GroupOptions inputs_only = none;
  inputs_only.layout.buffer("a", Role::kInput, Fill::kF16, [](const Workload&) { return 16; });
  EXPECT_FALSE(Group::create(s.backend, inputs_only));

  GroupOptions negative = s.options(true);
  negative.verify.tolerance[ElementType::kF32] = {-1, 0};
  EXPECT_FALSE(Group::create(s.backend, negative));
}

TEST(Verify, TheAgreementHookCannotPickAnExcludedVariant) {
  Scale s({{300, 0}, {200, 0}, {50, 1.0f}});
  GroupOptions o = s.options(true, Policy::kAheadOfTime);
  o.agree = [](const CommitEvent&) { return std::optional<size_t>(2); };
  auto g = Group::create(s.backend, o);
  ASSERT_TRUE(g);
  ASSERT_TRUE((*g)->tune(Workload{16}).is_ok());
  EXPECT_EQ(*(*g)->decision(Workload{16}), 1u);
}

TEST(Verify, ABackendThatCannotReadBackSaysSo) {
  class NoRead : public CpuBackend {
   public:
    using CpuBackend::CpuBackend;
    Status read(const DeviceBuffer& b, void* h, Stream s) override { return Backend::read(b, h, s); }
  };
  auto clock = std::make_shared<FakeClock>();
  auto k = [clock](const Workload&, const ArgPack&) { clock->advance(1); };
  auto backend = std::make_shared<NoRead>(std::vector<CpuVariant>{{"a", k}, {"b", k}}, clock);
  Scale shape({});
  auto g = Group::create(backend, shape.options(true, Policy::kAheadOfTime));
  ASSERT_TRUE(g);
  Status st = (*g)->tune(Workload{4});
  EXPECT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("cannot read buffers back"), std::string::npos) << st.to_string();
}

}  // namespace
}  // namespace ksnap::tune

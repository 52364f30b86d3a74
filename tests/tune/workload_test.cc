#include "ksnap/tune/workload.h"

#include <gtest/gtest.h>

namespace ksnap::tune {
namespace {

TEST(Workload, Basics) {
  Workload w{512, 256, 128};
  EXPECT_EQ(w.rank(), 3u);
  EXPECT_EQ(w[1], 256);
  EXPECT_EQ(w.to_string(), "512x256x128");
  EXPECT_EQ(w, (Workload{512, 256, 128}));
  EXPECT_FALSE(w == (Workload{512, 256}));
}

struct BucketCase {
  Workload a, b;
  bool same_exact, same_pow2;
};

TEST(Workload, Bucketing) {
  const BucketCase cases[] = {
      {{512, 512}, {512, 512}, true, true},
      {{512, 512}, {512, 520}, false, false},  // 520 -> 1024
      {{300, 8}, {400, 7}, false, true},        // both p2:512x8
      {{1, 2}, {2, 1}, false, false},
  };
  Bucketing e = Bucketing::exact(), p = Bucketing::pow2();
  for (const auto& c : cases) {
    EXPECT_EQ(e.key(c.a) == e.key(c.b), c.same_exact) << c.a.to_string() << " " << c.b.to_string();
    EXPECT_EQ(p.key(c.a) == p.key(c.b), c.same_pow2) << c.a.to_string() << " " << c.b.to_string();
  }
  EXPECT_EQ(p.label({300, 8}), "p2:512x8");
  EXPECT_EQ(e.label({300, 8}), "300x8");
  Bucketing m = Bucketing::custom([](const Workload& w) { return uint64_t(w[0] / 100); },
                                  [](const Workload& w) { return "h" + std::to_string(w[0] / 100); });
  EXPECT_EQ(m.key({250}), m.key({299}));
  EXPECT_EQ(m.label({250}), "h2");
  EXPECT_STREQ(m.kind(), "custom");
}

}  // namespace
}  // namespace ksnap::tune

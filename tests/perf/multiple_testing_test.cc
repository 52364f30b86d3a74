// Reference values: the worked example in multiple_testing.h, as
// statsmodels' multipletests(method="holm" / "fdr_bh") gives them.
#include "ksnap/perf/multiple_testing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace ksnap::perf {
namespace {

struct AdjustCase {
  const char* name;
  Correction correction;
  std::vector<double> p, want;
};

class Adjust : public ::testing::TestWithParam<AdjustCase> {};

TEST_P(Adjust, Table) {
  const AdjustCase& c = GetParam();
  std::vector<double> got = adjust_p_values(c.p, c.correction);
  ASSERT_EQ(got.size(), c.want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(c.want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << i;
    } else {
      EXPECT_NEAR(got[i], c.want[i], 1e-12) << c.name << " index " << i;
    }
  }
}

const double kNaN = std::numeric_limits<double>::quiet_NaN();

INSTANTIATE_TEST_SUITE_P(
    Table, Adjust,
    ::testing::Values(
        AdjustCase{"holm", Correction::kHolm, {0.01, 0.04, 0.03, 0.005}, {0.03, 0.06, 0.06, 0.02}},
        AdjustCase{"bh",
                   Correction::kBenjaminiHochberg,
                   {0.01, 0.04, 0.03, 0.005},
                   {0.02, 0.04, 0.04, 0.02}},
        AdjustCase{"none", Correction::kNone, {0.01, 0.04}, {0.01, 0.04}},
        AdjustCase{"holm_caps_at_one", Correction::kHolm, {0.6, 0.7}, {1.0, 1.0}},
        AdjustCase{"nan_not_counted", Correction::kHolm, {0.01, kNaN, 0.02}, {0.02, kNaN, 0.02}},
        AdjustCase{"empty", Correction::kBenjaminiHochberg, {}, {}}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace ksnap::perf

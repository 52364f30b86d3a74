#include "ksnap/tune/controls.h"

#include <gtest/gtest.h>

#include <map>

namespace ksnap::tune {
namespace {

GetEnv env(std::map<std::string, std::string> vars) {
  return [vars](const char* k) -> const char* {
    auto it = vars.find(k);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(Controls, ReadsEveryVariable) {
  auto c = read_env_controls(env({{"KSNAP_TUNE_DISABLE", "1"},
                                  {"KSNAP_TUNE_FORCE", "3"},
                                  {"KSNAP_TUNE_CACHE", "/tmp/c.json"},
                                  {"KSNAP_TUNE_REPORT", "stderr"},
                                  {"KSNAP_TUNE_POLICY", "ahead"},
                                  {"KSNAP_TUNE_TIE_TOLERANCE", "0.02"},
                                  {"KSNAP_TUNE_BUDGET", "64"},
                                  {"KSNAP_TUNE_ESTIMATOR", "trimmed_mean"}}));
  ASSERT_TRUE(c) << c.status().to_string();
  EXPECT_TRUE(c->disable);
  EXPECT_EQ(c->force_for("any"), "3");
  EXPECT_EQ(*c->cache_path, "/tmp/c.json");
  EXPECT_EQ(*c->report_path, "stderr");
  EXPECT_EQ(*c->policy, Policy::kAheadOfTime);
  EXPECT_DOUBLE_EQ(*c->tie_tolerance, 0.02);
  EXPECT_EQ(*c->budget_per_variant, 64u);
  EXPECT_EQ(*c->estimator, Estimator::kTrimmedMean);
}

TEST(Controls, DefaultsAndOff) {
  auto c = read_env_controls(env({{"KSNAP_TUNE_DISABLE", "0"}, {"KSNAP_TUNE_CACHE", "off"}}));
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->disable);
  EXPECT_EQ(*c->cache_path, "");
  EXPECT_FALSE(c->policy);
  EXPECT_EQ(c->force_for("g"), "");
}

TEST(Controls, PerGroupForce) {
  EnvControls c;
  c.force = "matmul:v2,softmax:0";
  EXPECT_EQ(c.force_for("matmul"), "v2");
  EXPECT_EQ(c.force_for("softmax"), "0");
  EXPECT_EQ(c.force_for("add"), "");
}

TEST(Controls, MalformedValuesNameTheVariable) {
  const std::pair<const char*, const char*> bad[] = {
      {"KSNAP_TUNE_POLICY", "sometimes"},
      {"KSNAP_TUNE_TIE_TOLERANCE", "1.5"},
      {"KSNAP_TUNE_TIE_TOLERANCE", "x"},
      {"KSNAP_TUNE_BUDGET", "-4"},
      {"KSNAP_TUNE_ESTIMATOR", "mean"},
  };
  for (const auto& [k, v] : bad) {
    auto c = read_env_controls(env({{k, v}}));
    ASSERT_FALSE(c) << k << "=" << v;
    EXPECT_EQ(c.status().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(c.status().message().find(k), std::string::npos);
  }
}

}  // namespace
}  // namespace ksnap::tune

#include "ksnap/tune/samples.h"

#include <gtest/gtest.h>

namespace ksnap::tune {
namespace {

TEST(Samples, ParsesShapesVariantsAndReferences) {
  const char* text = R"({"device": "X", "configs": [[1,2],[3,4]],
    "shapes": [{"shape": [8, 16], "samples_us": [[3, 1, 2], [5, 4]],
                "autotune_first_call_s": 0.5, "autotune_choice": [1]}]})";
  auto s = parse_samples(text, "t.json");
  ASSERT_TRUE(s) << s.status().to_string();
  EXPECT_EQ(s->device, "X");
  ASSERT_EQ(s->workloads.size(), 1u);
  const auto& w = s->workloads[0];
  EXPECT_EQ(w.label, "8x16");
  EXPECT_EQ(w.true_median, (std::vector<double>{2, 4.5}));
  EXPECT_EQ(*w.reference_choice, 1u);
  EXPECT_DOUBLE_EQ(*w.reference_tuning_s, 0.5);
  EXPECT_EQ(s->variant_names[1], "v1 [3,4]");
}

struct BadCase {
  const char* text;
  uint32_t line;
  const char* needle;
};

TEST(Samples, BadInputNamesFileAndLine) {
  const BadCase cases[] = {
      {"{\"shapes\": [\n{\"samples_us\": [[1, 2]\n", 3, "invalid JSON"},  // truncated
      {"{\"device\": 1}", 0, "shapes"},
      {"{\"shapes\": [\n{\"samples_us\": [[1], []]}]}", 2, "no samples"},
      {"{\"shapes\": [\n{\"samples_us\": [[1, -2]]}]}", 2, "positive"},
      {"{\"shapes\": [{\"samples_us\": [[1]]},\n {\"samples_us\": [[1],[2]]}]}", 2, "variants"},
  };
  for (const auto& c : cases) {
    auto s = parse_samples(c.text, "bad.json");
    ASSERT_FALSE(s) << c.text;
    EXPECT_EQ(s.status().code(), ErrorCode::kParseError);
    EXPECT_EQ(s.status().location().file, "bad.json");
    if (c.line) {
      EXPECT_EQ(s.status().location().line, c.line) << c.text;
    }
    EXPECT_NE(s.status().message().find(c.needle), std::string::npos) << s.status().to_string();
  }
}

TEST(Samples, MissingFileIsNotFound) {
  auto s = load_samples("/nonexistent/samples.json");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.status().code(), ErrorCode::kNotFound);
}

}  // namespace
}  // namespace ksnap::tune

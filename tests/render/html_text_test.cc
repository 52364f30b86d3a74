#include "render/html_text.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace ksnap::render::html {
namespace {

TEST(HtmlTextTest, EscapeHtml) {
  struct Case {
    std::string in, out;
  } cases[] = {
      {"", ""},
      {"plain", "plain"},
      {"a<b & \"c\"", "a&lt;b &amp; &quot;c&quot;"},
      {"'x'", "&#39;x&#39;"},
      {"&amp;", "&amp;amp;"},
      {"</script>", "&lt;/script&gt;"},
      {"\xe2\x86\x92", "\xe2\x86\x92"},  // UTF-8 passes through
  };
  for (const auto& c : cases) EXPECT_EQ(escape_html(c.in), c.out) << c.in;
}

TEST(HtmlTextTest, ScriptSafeJsonKeepsTheValue) {
  struct Case {
    std::string value, want_text;
  } cases[] = {
      {"</script>", R"("<\/script>")"},
      {"<!-- x", R"("\u003c!-- x")"},
      {"a < b", R"("a < b")"},
      {"<\\/", R"("<\\/")"},  // JSON spells this "<\\/": no "</" to escape
      {"tensor<4x!tt.ptr<f32>>", R"("tensor<4x!tt.ptr<f32>>")"},
  };
  for (const auto& c : cases) {
    std::string text = script_safe_json(nlohmann::json(c.value).dump());
    EXPECT_EQ(text, c.want_text) << c.value;
    EXPECT_EQ(text.find("</"), std::string::npos);
    EXPECT_EQ(text.find("<!--"), std::string::npos);
    EXPECT_EQ(nlohmann::json::parse(text).get<std::string>(), c.value);
  }
}

}  // namespace
}  // namespace ksnap::render::html

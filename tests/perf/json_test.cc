#include "ksnap/perf/json.h"

#include <gtest/gtest.h>

namespace ksnap::perf {
namespace {

TEST(Json, ParsesNestedDocumentWithLines) {
  auto v = parse_json(
      TextBuffer("d.json", "{\n \"a\": [1, -2.5e1, true, null],\n \"b\": \"x\\u00e9\\n\"\n}"));
  ASSERT_TRUE(v) << v.status().to_string();
  ASSERT_TRUE(v->is_object());
  const JsonValue* a = v->find("a");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->items.size(), 4u);
  EXPECT_DOUBLE_EQ(a->items[0].number, 1);
  EXPECT_DOUBLE_EQ(a->items[1].number, -25);
  EXPECT_TRUE(a->items[2].boolean);
  EXPECT_EQ(a->items[3].kind, JsonValue::Kind::kNull);
  EXPECT_EQ(a->line, 2u);
  const JsonValue* b = v->find("b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->string, "x\xc3\xa9\n");
  EXPECT_EQ(b->line, 3u);
  EXPECT_EQ(v->find("missing"), nullptr);
}

TEST(Json, SurrogatePair) {
  auto v = parse_json(TextBuffer("s.json", "\"\\ud83d\\ude00\""));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->string, "\xf0\x9f\x98\x80");
}

TEST(Json, SequenceOfLines) {
  auto v = parse_json_sequence(TextBuffer("l.jsonl", "{\"a\":1}\n\n{\"a\":2}\n"));
  ASSERT_TRUE(v);
  ASSERT_EQ(v->size(), 2u);
  EXPECT_EQ((*v)[1].line, 3u);
  EXPECT_DOUBLE_EQ((*v)[1].find("a")->number, 2);
  auto empty = parse_json_sequence(TextBuffer("e.jsonl", "  \n"));
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
}

struct JsonBad {
  const char* name;
  const char* text;
  uint32_t line;
  uint32_t column;
  const char* message_part;
};

class JsonErrors : public ::testing::TestWithParam<JsonBad> {};

TEST_P(JsonErrors, ReportsFileLineColumn) {
  const JsonBad& c = GetParam();
  auto v = parse_json(TextBuffer("bad.json", c.text));
  ASSERT_FALSE(v);
  EXPECT_EQ(v.status().code(), ErrorCode::kParseError);
  EXPECT_EQ(v.status().location().file, "bad.json");
  EXPECT_EQ(v.status().location().line, c.line);
  EXPECT_EQ(v.status().location().column, c.column);
  EXPECT_NE(v.status().message().find(c.message_part), std::string::npos) << v.status().to_string();
}

INSTANTIATE_TEST_SUITE_P(
    Table, JsonErrors,
    ::testing::Values(JsonBad{"trailing_comma", "[1,\n2,]", 2, 3, "unexpected character"},
                      JsonBad{"missing_colon", "{\"a\" 1}", 1, 6, "expected ':'"},
                      JsonBad{"bad_literal", "[tru]", 1, 2, "invalid literal"},
                      JsonBad{"leading_dot", "[.5]", 1, 2, "unexpected character"},
                      JsonBad{"unterminated_string", "\n\"abc", 2, 5, "unterminated string"},
                      JsonBad{"control_char", "\"a\tb\"", 1, 3, "control character"},
                      JsonBad{"extra_content", "{} {}", 1, 4, "after the JSON document"},
                      JsonBad{"empty", "", 1, 1, "unexpected end"},
                      JsonBad{"binary_byte", "[\x01]", 1, 2, "\\x01"},
                      JsonBad{"huge_exponent", "[1e999]", 1, 2, "out of range"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(Json, DeepNestingIsAnErrorNotACrash) {
  std::string deep(100000, '[');
  auto v = parse_json(TextBuffer("deep.json", deep));
  ASSERT_FALSE(v);
  EXPECT_NE(v.status().message().find("nesting deeper"), std::string::npos);
}

}  // namespace
}  // namespace ksnap::perf

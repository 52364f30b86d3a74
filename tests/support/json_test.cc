#include "ksnap/support/json.h"

#include <gtest/gtest.h>

#include "ksnap/support/text.h"

namespace ksnap::json {
namespace {

std::string nested(size_t depth, char open = '[', char close = ']') {
  return std::string(depth, open) + std::string(depth, close);
}

TEST(Json, ParseErrorsAreLocated) {
  struct Case {
    const char* name;
    std::string text;
    uint32_t line, column;
    const char* says;
  };
  const Case cases[] = {
      {"truncated", "{\n  \"a\": [1,\n", 3, 1, "syntax error"},
      {"bad_token", "{\n  \"a\": tru\n}", 2, 11, "syntax error"},
      {"invalid_utf8_in_string", "[\"ok\", \"a\xff\"]", 1, 10, "syntax error"},
      {"number_overflow", "[1e400]", 1, 6, "number overflow"},
      {"deep_arrays", std::string("\n").append(nested(50000)), 2, kMaxDepth + 1,
       "nested deeper than 100"},
      {"deep_objects", "{\"a\":" + std::string(300, '{'), 1, 6 + kMaxDepth - 1, "nested deeper"},
      {"deep_but_unclosed_string_ignored", "[\"[[[[", 1, 7, "missing closing quote"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto v = parse(c.text, "in.json");
    ASSERT_FALSE(v);
    EXPECT_EQ(v.status().code(), ErrorCode::kParseError);
    EXPECT_EQ(v.status().location().file, "in.json");
    EXPECT_EQ(v.status().location().line, c.line) << v.status().to_string();
    EXPECT_EQ(v.status().location().column, c.column) << v.status().to_string();
    EXPECT_NE(v.status().message().find(c.says), std::string::npos) << v.status().to_string();
    EXPECT_TRUE(is_valid_utf8(v.status().message()));
  }
}

TEST(Json, DepthLimitIsInclusiveAndStringsDoNotCount) {
  EXPECT_TRUE(parse(nested(kMaxDepth), "x"));
  EXPECT_FALSE(parse(nested(kMaxDepth + 1), "x"));
  EXPECT_TRUE(parse("[\"" + std::string(5000, '[') + "\"]", "x"));
  EXPECT_TRUE(parse("[\"\\\"[[[[[[\"]", "x", 2));        // an escaped quote does not end the string
  EXPECT_TRUE(check_depth("]]]]" + nested(3), "x", 3));  // stray closers never go negative
}

TEST(Json, TypedReadsGiveLocatedErrors) {
  const std::string text =
      "{\n"
      "  \"format\": 1,\n"
      "  \"entries\": [\n"
      "    {\"kernel\": \"k\", \"line\": 12},\n"
      "    {\"kernel\": [\"x\"], \"line\": 99999999999, \"neg\": -1}\n"
      "  ],\n"
      "  \"we\\u0069rd\": true, \"nul\": null\n"
      "}\n";
  auto doc = Document::parse(text, "m.json");
  ASSERT_TRUE(doc) << doc.status().to_string();
  Node root = doc->root();
  std::string s;
  struct Case {
    const char* name;
    Status got;
    std::string want;  // "" = ok
  };
  int32_t i32 = 0;
  int64_t i64 = 0;
  uint64_t u64 = 0;
  bool b = false;
  double d = 0;
  const Case cases[] = {
      {"number_for_string", root["format"].read(&s),
       "m.json:2:13: parse error: expected string for \"format\", got number"},
      {"missing_required", root["build"].read(&s, Need::kRequired),
       "m.json:1:1: parse error: missing \"build\" (string)"},
      {"missing_optional", root["build"].read(&s), ""},
      {"nested_wrong_type", root["entries"][1]["kernel"].read(&s),
       "m.json:5:16: parse error: expected string for \"kernel\" in entries[1], got array"},
      {"nested_missing_is_located_at_parent",
       root["entries"][0]["cache_dir"].read(&s, Need::kRequired),
       "m.json:4:5: parse error: missing \"cache_dir\" in entries[0] (string)"},
      {"int32_range", root["entries"][1]["line"].read(&i32),
       "m.json:5:31: parse error: expected integer in [-2147483648, 2147483647] for "
       "\"line\" in entries[1], got 99999999999"},
      {"int64_fits", root["entries"][1]["line"].read(&i64), ""},
      {"unsigned_negative", root["entries"][1]["neg"].read(&u64),
       "m.json:5:51: parse error: expected integer in [0, 18446744073709551615] for "
       "\"neg\" in entries[1], got -1"},
      {"escaped_key_is_found", root["weird"].read(&i32),
       "m.json:7:17: parse error: expected integer for \"weird\", got boolean"},
      {"bool", root["weird"].read(&b), ""},
      {"double_from_int", root["entries"][0]["line"].read(&d), ""},
      {"array_expected", root["format"].expect_array(),
       "m.json:2:13: parse error: expected array for \"format\", got number"},
      {"object_expected_root", root.expect_object(), ""},
      {"null_is_absent_when_optional", root["nul"].read(&s), ""},
      {"null_required", root["nul"].read(&s, Need::kRequired),
       "m.json:7:30: parse error: expected string for \"nul\", got null"},
      {"array_item", root["entries"][1]["kernel"][0].read(&i32),
       "m.json:5:17: parse error: expected integer for item 0 in entries[1].kernel, got string"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(c.got.is_ok() ? "" : c.got.to_string(), c.want);
  }
  EXPECT_EQ(i64, 99999999999);
  EXPECT_TRUE(b);
  EXPECT_EQ(d, 12.0);
  EXPECT_EQ(i32, 0) << "a failed read leaves the target untouched";
}

TEST(Json, DuplicateKeysLocateTheOneKept) {
  const std::string text = "{\"a\": \"x\",\n \"a\": 2}";
  auto doc = Document::parse(text, "d.json");
  ASSERT_TRUE(doc);
  std::string s;
  Status st = doc->root()["a"].read(&s);
  EXPECT_EQ(st.location().line, 2u) << st.to_string();
}

TEST(Json, DumpSpellsInvalidUtf8AsEscapesAndNeverThrows) {
  Value v = Value::object();
  v["name\xff"] = std::string("k\xc3\x28", 3);
  v["ok"] = "caf\xc3\xa9";
  v["list"] = {std::string("\x80"), 1, nullptr};
  std::string out = dump(v);
  EXPECT_TRUE(is_valid_utf8(out));
  auto back = parse(out, "x");
  ASSERT_TRUE(back) << back.status().to_string();
  EXPECT_EQ((*back)["name\\xff"], "k\\xc3(");
  EXPECT_EQ((*back)["ok"], "caf\xc3\xa9");
  EXPECT_EQ((*back)["list"][0], "\\x80");
  EXPECT_EQ(text("a\xfe").get<std::string>(), "a\\xfe");
}

TEST(Json, DumpCutsNestingItDidNotParse) {
  Value v = "leaf";
  for (int i = 0; i < 3 * kMaxDepth; ++i) v = Value::array({std::move(v)});
  std::string out = dump(std::move(v));
  EXPECT_NE(out.find("<nested too deep>"), std::string::npos);
  EXPECT_TRUE(parse(out, "x", 4 * kMaxDepth));
}

TEST(Json, SequenceOfDocumentsLocatesInTheWholeText) {
  const std::string text = "{\"a\": 1}\n\n{\"a\": \"x\",\n \"b\": [1, true]}\n[2]3 \"s\"\n";
  auto docs = Document::parse_sequence(text, "l.jsonl");
  ASSERT_TRUE(docs) << docs.status().to_string();
  ASSERT_EQ(docs->size(), 5u);
  EXPECT_EQ((*docs)[0].value(), Value::parse(R"({"a": 1})"));
  EXPECT_EQ((*docs)[3].value(), Value(3));
  EXPECT_EQ((*docs)[4].value(), Value("s"));
  // A type error in the second document names line 3 and 4 of the file.
  int64_t a = 0;
  Status s = (*docs)[1].root()["a"].read(&a);
  EXPECT_EQ(s.to_string(), "l.jsonl:3:7: parse error: expected integer for \"a\", got string");
  EXPECT_EQ((*docs)[1].root()["b"][1].location().line, 4u);
  EXPECT_EQ((*docs)[1].root()["b"][1].location().column, 11u);  // the `true`
  EXPECT_EQ((*docs)[2].root().location().line, 5u);
  EXPECT_EQ((*docs)[3].root().location().line, 5u);
  EXPECT_EQ((*docs)[3].root().location().column, 4u);  // `3` right after `[2]`
  EXPECT_EQ((*docs)[4].root().location().column, 6u);
}

TEST(Json, ItemLocationsAreEachItemsLocation) {
  // In a document of a sequence and in a single document after a BOM and
  // blank lines: the one-pass locations equal location() item by item.
  const std::string seq = "[0]\n{\"r\": [\n  {\"n\": 1},{\"n\": [2, 3]},\n\n  \"s\" , 4\n]}\n";
  const std::string one = "\xEF\xBB\xBF\n\n  [ 7,\n[8, [9]], \"x\\\"]\"\n, {}]";
  auto docs = Document::parse_sequence(seq, "s.jsonl");
  auto doc = Document::parse(one, "o.json");
  ASSERT_TRUE(docs && doc);
  const Node r = (*docs)[1].root()["r"];
  const Node top = doc->root();
  for (const Node& n : {r, top, top[1], r[1]["n"]}) {
    const std::vector<SourceLocation> at = n.item_locations();
    ASSERT_EQ(at.size(), n.size()) << n.path().to_string();
    for (size_t i = 0; i < at.size(); ++i) {
      EXPECT_EQ(at[i].file, n[i].location().file);
      EXPECT_EQ(at[i].line, n[i].location().line) << n.path().to_string() << " " << i;
      EXPECT_EQ(at[i].column, n[i].location().column) << n.path().to_string() << " " << i;
    }
  }
  std::vector<std::pair<uint32_t, uint32_t>> want = {{3, 3}, {3, 12}, {5, 3}, {5, 9}};
  std::vector<std::pair<uint32_t, uint32_t>> got;
  for (const SourceLocation& l : r.item_locations()) got.emplace_back(l.line, l.column);
  EXPECT_EQ(got, want);
  got.clear();
  for (const SourceLocation& l : top.item_locations()) got.emplace_back(l.line, l.column);
  EXPECT_EQ(got, (std::vector<std::pair<uint32_t, uint32_t>>{{3, 5}, {4, 1}, {4, 11}, {5, 3}}));
  EXPECT_TRUE(r[0].item_locations().empty());  // an object
  EXPECT_TRUE(r[7].item_locations().empty());  // absent
}

TEST(Json, SequenceOfNothingIsEmpty) {
  for (std::string text : {"", "  \n\t", "\xEF\xBB\xBF\n"}) {
    auto docs = Document::parse_sequence(text, "e.jsonl");
    ASSERT_TRUE(docs) << docs.status().to_string();
    EXPECT_TRUE(docs->empty());
  }
}

struct BadSequence {
  const char* name;
  const char* text;
  uint32_t line, column;
};

class JsonBadSequence : public ::testing::TestWithParam<BadSequence> {};

// As for one document, the column is where nlohmann stopped reading: the end
// of a bad token, the end of the text when a value is cut off.
TEST_P(JsonBadSequence, ErrorNamesLineAndColumnOfTheWholeText) {
  const BadSequence& c = GetParam();
  auto docs = Document::parse_sequence(c.text, "bad.jsonl");
  ASSERT_FALSE(docs);
  EXPECT_EQ(docs.status().code(), ErrorCode::kParseError);
  EXPECT_EQ(docs.status().location().file, "bad.jsonl");
  EXPECT_EQ(docs.status().location().line, c.line) << docs.status().to_string();
  EXPECT_EQ(docs.status().location().column, c.column) << docs.status().to_string();
}

INSTANTIATE_TEST_SUITE_P(Table, JsonBadSequence,
                         ::testing::Values(BadSequence{"trailing_comma", "{\"a\":1}\n[1,\n2,]", 3,
                                                       3},
                                           BadSequence{"comma_between", "{}\n,{}", 2, 1},
                                           BadSequence{"stray_close", "{}\n}", 2, 1},
                                           BadSequence{"unterminated", "{}\n{\"a\": \"b", 2, 9},
                                           BadSequence{"bad_literal", "1\n tru", 2, 5},
                                           BadSequence{"overflow", "{}\n[1e999]", 2, 6},
                                           BadSequence{"unclosed", "{}\n[[[[[[[[", 2, 9}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(Json, SequenceDepthLimitHoldsPerDocument) {
  std::string deep = "{}\n" + std::string(kMaxDepth + 1, '[') + std::string(kMaxDepth + 1, ']');
  auto docs = Document::parse_sequence(deep, "d.jsonl");
  ASSERT_FALSE(docs);
  EXPECT_NE(docs.status().message().find("nested deeper than 100"), std::string::npos);
  EXPECT_EQ(docs.status().location().line, 2u);
}

TEST(Json, NulByteIsAnErrorNotTheEnd) {
  // nlohmann alone reads "7\0..." as 7 and ignores the rest.
  const std::string text("[7,\n8]\0{\"junk\"", 14);
  auto v = parse(text, "n.json");
  ASSERT_FALSE(v);
  EXPECT_EQ(v.status().to_string(), "n.json:2:3: parse error: invalid JSON: a NUL byte");
  auto seq = Document::parse_sequence(text, "n.jsonl");
  ASSERT_FALSE(seq);
  EXPECT_EQ(seq.status().location().line, 2u);
  EXPECT_FALSE(parse(std::string("\"a\0b\"", 5), "s.json"));
}

TEST(Json, ParseOrStringKeepsNonJsonTextAsAString) {
  struct Case {
    std::string text;
    Value want;
  };
  for (const Case& c :
       std::vector<Case>{{"64", Value(64)},
                         {"[1, \"a\"]", Value::parse(R"([1, "a"])")},
                         {"\"fp16\"", Value("fp16")},
                         {"fp16", Value("fp16")},  // a bare string the capture kept
                         {std::string("7\0x", 3), Value(std::string("7\0x", 3))},  // not 7
                         {std::string(kMaxDepth + 1, '['), Value(std::string(kMaxDepth + 1, '['))},
                         {"a\xff", Value("a\\xff")}}) {  // valid UTF-8 either way
    EXPECT_EQ(parse_or_string(c.text), c.want) << c.text;
  }
}


/// What Document::parse makes of `text`, read as a StreamedObject reads it:
/// either the first error, or (rest without "entries", the items).
struct Read {
  std::string error;  ///< Status::to_string(), "" when read.
  Value rest;
  std::vector<Value> items;
  std::vector<std::string> item_paths;
  std::vector<SourceLocation> kernel_at;  ///< Where each item's "kernel" is.
};

Read read_whole(std::string_view text) {
  Read r;
  auto d = Document::parse(text, "m.json");
  if (!d) {
    r.error = d.status().to_string();
    return r;
  }
  r.rest = d->value();
  Node entries = d->root()["entries"];
  if (!d->value().is_object() || !entries.is_array()) return r;
  r.rest["entries"] = Value::array();
  for (size_t i = 0; i < entries.size(); ++i) {
    r.items.push_back(entries[i].value());
    r.item_paths.push_back(entries[i].path().to_string());
    r.kernel_at.push_back(entries[i]["kernel"].location());
  }
  return r;
}

Read read_streamed(std::string_view text) {
  Read r;
  auto s = StreamedObject::parse(text, "m.json", "entries");
  if (!s) {
    r.error = s.status().to_string();
    return r;
  }
  r.rest = s->rest().value();
  for (size_t i = 0; i < s->size(); ++i) {
    auto item = s->item(i);
    if (!item) {
      r = Read{};
      r.error = item.status().to_string();
      return r;
    }
    r.items.push_back(item->value());
    r.item_paths.push_back(item->root().path().to_string());
    r.kernel_at.push_back(item->root()["kernel"].location());
  }
  return r;
}

TEST(Json, StreamedObjectReadsWhatTheWholeTreeHolds) {
  // Valid manifests in every spelling JSON allows, and broken ones: the
  // streamed reading gives the same members, items, paths and locations, or
  // the same error at the same place.
  const std::string deep = "{\"entries\": [" + nested(kMaxDepth - 1) + "]}";
  const std::string too_deep = "{\"entries\": [" + nested(kMaxDepth) + "]}";
  const std::vector<std::string> texts = {
      R"({"format": "ksnap-capture", "entries": [{"kernel": "a"}, {"kernel": "b"}]})",
      "\xEF\xBB\xBF {\n\t\"entries\"\r\n:\n[ {\"kernel\":\"a\",\n \"x\": [1, {\"y\": \"]}\"}]} ,\n"
      "{\"kernel\" : \"b\"} ] , \"arch\": \"sm90\" }\n",
      R"({"entries": []})",
      R"({"entries": [], "entries": [{"kernel": "last wins"}]})",
      R"({"entries": [{"kernel": "first"}], "entries": {"not": "an array"}})",
      R"({"entr\u0069es": [{"kernel": "escaped key"}], "b\"q": 1})",
      R"({"entries": [1, "two", null, [3], {"kernel": "k"}]})",
      R"({"arch": "sm90"})",
      R"({})",
      R"([{"entries": []}])",
      R"("entries")",
      R"({"entries": {"kernel": "a"}})",
      deep,
      // Broken: each must fail as the whole tree fails.
      "",
      "{",
      R"({"entries": [{"kernel": "a"}, {"kernel": tru}]})",
      R"({"entries": [{"kernel": "a"},, {"kernel": "b"}]})",
      R"({"entries": [{"kernel": "a"},]})",
      R"({"entries": [{"kernel": "a"}] "arch": 1})",
      R"({"entries": [{"kernel": "a"}]} trailing)",
      R"({"entries": [{"kernel": "a"}]}})",
      R"({"entries": [{"kernel": "a"]}]})",
      R"({"entries": [{"kernel": "unclosed}]})",
      R"({"entries": [{"kernel": "a"}], "arch": sm90})",
      R"({"entries": [{"kernel": "a"}], "arch": })",
      R"({"entries" [{"kernel": "a"}]})",
      R"({entries: [{"kernel": "a"}]})",
      R"({"entries": [{"kernel": "a\xff"}]})",
      "{\"entries\": [{\"kernel\": \"a\"}, {\"k\0\": 1}]}",
      std::string("{\"entries\": [{\"kernel\": \"a\"}]}\0", 31),
      too_deep,
      R"({"entries": [{"kernel": "a"}, {"kernel": 1e400}]})",
      // Keys the parser refuses (json_fuzz found the first): invalid UTF-8,
      // a raw control byte, a bad escape.
      "{\"a\x98ch\": \"sm90\", \"entries\": [{\"kernel\": \"a\"}]}",
      "{\"a\tb\": 1, \"entries\": []}",
      R"({"a\qb": 1, "entries": []})",
  };
  for (const std::string& t : texts) {
    Read whole = read_whole(t), streamed = read_streamed(t);
    EXPECT_EQ(streamed.error, whole.error) << t;
    EXPECT_EQ(streamed.rest, whole.rest) << t;
    EXPECT_EQ(streamed.items, whole.items) << t;
    EXPECT_EQ(streamed.item_paths, whole.item_paths) << t;
    ASSERT_EQ(streamed.kernel_at.size(), whole.kernel_at.size()) << t;
    for (size_t i = 0; i < whole.kernel_at.size(); ++i) {
      EXPECT_EQ(streamed.kernel_at[i].line, whole.kernel_at[i].line) << t << " item " << i;
      EXPECT_EQ(streamed.kernel_at[i].column, whole.kernel_at[i].column) << t << " item " << i;
    }
  }
}

TEST(Json, StreamedItemsTypeErrorsNameTheirPlaceInTheWholeText) {
  const std::string text = "{\n \"entries\": [\n  {\"kernel\": \"a\"},\n  {\"kernel\": 7}\n ]\n}";
  auto s = StreamedObject::parse(text, "manifest.json", "entries");
  ASSERT_TRUE(s) << s.status().to_string();
  ASSERT_TRUE(s->streamed());
  ASSERT_EQ(s->size(), 2u);
  auto e = s->item(1);
  ASSERT_TRUE(e);
  std::string kernel;
  Status st = e->root()["kernel"].read(&kernel, Need::kRequired);
  EXPECT_EQ(st.to_string(),
            "manifest.json:4:14: parse error: expected string for \"kernel\" in entries[1], got "
            "number");
}

}  // namespace
}  // namespace ksnap::json

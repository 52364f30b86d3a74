// ksnap perf: a minimal JSON reader (standard library only) for benchmark
// result files and the H200 sample data.
//
// Worked example:
//
//   {"name": "matmul", "samples": [31.1, 30.9]}   (line 7 of results.jsonl)
//   -> JsonValue{kObject, line 7}
//        "name"    -> JsonValue{kString "matmul"}
//        "samples" -> JsonValue{kArray [31.1, 30.9]}
//
// Every value remembers the 1-based line it starts on so that a semantic
// error ("samples must be numbers") can name file:line. Syntax errors come back
// as kParseError with file:line:col. Nesting deeper than `kMaxJsonDepth` is an
// error, not a stack overflow. Numbers are parsed with std::from_chars (locale
// independent); duplicate object keys keep the first occurrence for `find`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ksnap/support/file.h"
#include "ksnap/support/status.h"

namespace ksnap::perf {

inline constexpr int kMaxJsonDepth = 200;

struct JsonMember;

/// A parsed JSON value. Arrays and objects own their children.
struct JsonValue {
  enum class Kind : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<JsonValue> items;                            ///< kArray
  std::vector<JsonMember> members;  ///< kObject, in file order
  uint32_t line = 0;                                       ///< line the value starts on

  bool is_object() const { return kind == Kind::kObject; }
  bool is_array() const { return kind == Kind::kArray; }
  bool is_number() const { return kind == Kind::kNumber; }
  bool is_string() const { return kind == Kind::kString; }
  /// The member named `key` of an object, or nullptr.
  const JsonValue* find(std::string_view key) const;
};

/// One member of an object (a struct, not std::pair: a pair of the
/// still-incomplete JsonValue does not compile with clang's checks).
struct JsonMember {
  std::string key;
  JsonValue value;
};

/// "null", "bool", "number", "string", "array", "object".
const char* json_kind_name(JsonValue::Kind kind);

/// Parses `buf` as one JSON document (surrounding whitespace allowed).
Expected<JsonValue> parse_json(const TextBuffer& buf);

/// Parses `buf` as a sequence of JSON values separated by whitespace (JSON
/// lines / NDJSON is the common case). Empty input gives an empty vector.
Expected<std::vector<JsonValue>> parse_json_sequence(const TextBuffer& buf);

}  // namespace ksnap::perf

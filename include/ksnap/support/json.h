// ksnap support: reading untrusted JSON and writing JSON that never throws.
//
// Every JSON file ksnap reads (capture manifests, Triton `<kernel>.json`
// metadata, `tune replay` samples, tuning caches, store records) may come
// from a pull request. This layer makes reading it safe and errors precise:
//   - nesting deeper than `kMaxDepth` is a located error before any tree is
//     built (nothing downstream recurses more than kMaxDepth levels);
//   - a syntax error is kParseError at the line and column where it stopped;
//   - a field of the wrong type is kParseError at the line of that value:
//     `manifest.json:3:13: parse error: expected string for "format", got number`;
//   - nothing throws: nlohmann is used through its non-throwing calls only.
// Writing: `dump` spells every string and key as valid UTF-8 (`to_valid_utf8`:
// an invalid byte becomes the four characters `\xNN`) and never throws.
//
// Worked example (text = `{"format": 1}` in cache.json):
//   KSNAP_ASSIGN_OR_RETURN(json::Document doc, json::Document::parse(text, "cache.json"));
//   std::string format;
//   Status s = doc.root()["format"].read(&format, json::Need::kRequired);
//   s.to_string() == "cache.json:1:12: parse error: expected string for \"format\", got number"
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "ksnap/support/status.h"

namespace ksnap::json {

using Value = nlohmann::json;

/// Deepest nesting of arrays and objects a reader accepts. Real inputs nest
/// fewer than 10 levels; the limit keeps every recursive walk (python_json,
/// nlohmann's dump and copy) far from the stack's end.
inline constexpr int kMaxDepth = 100;

/// Where a value sits in a document: member names and array indices from the
/// root. Shown as `entries[3].kernel`.
class Path {
 public:
  using Step = std::variant<std::string, size_t>;
  Path() = default;
  Path key(std::string_view k) const;
  Path index(size_t i) const;
  const std::vector<Step>& steps() const { return steps_; }
  /// `entries[3].kernel`; "the document" for the root.
  std::string to_string() const;

 private:
  std::vector<Step> steps_;
};

/// Whether a field must be present.
enum class Need : uint8_t { kOptional, kRequired };

class Document;

/// A value of a Document (or an absent one) with its path: typed reads that
/// fail with a located error instead of throwing. Valid while its Document is.
class Node {
 public:
  Node(const Document* doc, const Value* v, Path path) : doc_(doc), v_(v), path_(std::move(path)) {}

  bool present() const { return v_ != nullptr; }
  /// The value; only when present().
  const Value& value() const { return *v_; }
  const Path& path() const { return path_; }
  /// Line and column of this value (of its nearest present ancestor when
  /// absent). Scans the text: meant for error paths and diagnostics.
  SourceLocation location() const;
  /// Locations of this array's items, in order, from one pass over its text
  /// (location() of each item would rescan the array up to it); empty when
  /// this is not an array.
  std::vector<SourceLocation> item_locations() const;
  bool is_object() const { return v_ && v_->is_object(); }
  bool is_array() const { return v_ && v_->is_array(); }
  bool is_string() const { return v_ && v_->is_string(); }

  /// Member `key` (absent when missing or when this is not an object).
  Node operator[](std::string_view key) const;
  /// Item `i` (absent when out of range or when this is not an array).
  Node operator[](size_t i) const;
  /// Number of items or members; 0 for scalars and absent values.
  size_t size() const;

  /// Type checks: ok when of the kind, or absent (or null) and optional;
  /// else the located error `expected <kind> for "kernel" in entries[3], got
  /// <kind>` / `missing "kernel" in entries[3] (<kind>)`.
  Status expect_object(Need need = Need::kOptional) const;
  Status expect_array(Need need = Need::kOptional) const;

  /// Reads the value into *out when present and of the right type (integers
  /// also within the range of the target type); *out is untouched when
  /// absent or null (null counts as absent: the capture plugin writes it
  /// for unknown fields).
  Status read(std::string* out, Need need = Need::kOptional) const;
  Status read(bool* out, Need need = Need::kOptional) const;
  Status read(int32_t* out, Need need = Need::kOptional) const;
  Status read(int64_t* out, Need need = Need::kOptional) const;
  Status read(uint64_t* out, Need need = Need::kOptional) const;
  Status read(double* out, Need need = Need::kOptional) const;

  /// kParseError `what`, located at this value (or, when absent, at the
  /// nearest enclosing value that is present).
  Status error(const std::string& what, ErrorCode code = ErrorCode::kParseError) const;

 private:
  Status wrong_type(const char* expected, Need need) const;
  template <typename T>
  Status read_integer(T* out, Need need) const;

  const Document* doc_;
  const Value* v_;
  Path path_;
};

/// A parsed JSON text with its name; Nodes locate errors in the text.
class Document {
 public:
  /// Parses `text` (which must outlive the Document) as one JSON value,
  /// reporting errors against `file`. Errors: kParseError for a syntax
  /// error or nesting deeper than `max_depth`, located at the byte.
  static Expected<Document> parse(std::string_view text, std::string file,
                                  int max_depth = kMaxDepth);
  /// Parses `text` (which must outlive the Documents) as a sequence of JSON
  /// values separated by optional whitespace: JSON lines (NDJSON) is the
  /// common case. Only whitespace gives an empty vector. Every Document
  /// locates its errors in the whole text (line 7 of `results.jsonl`).
  static Expected<std::vector<Document>> parse_sequence(std::string_view text, std::string file,
                                                        int max_depth = kMaxDepth);

  Document(Document&&) = default;
  Document& operator=(Document&&) = default;

  /// The root value as a Node. Take it after the Document is in its final place.
  Node root() const { return Node(this, &value_, root_path_); }
  const Value& value() const { return value_; }
  Value& mutable_value() { return value_; }
  const std::string& file() const { return file_; }
  /// The whole text (for a document of a sequence: the whole sequence).
  std::string_view text() const { return text_; }
  /// Line and column of the value at `p` (of its nearest present ancestor
  /// when absent). Scans the text: meant for error paths.
  SourceLocation locate(const Path& p) const;
  /// Locations of the items of the array at `p`, in one pass (empty when
  /// `p` is not an array).
  std::vector<SourceLocation> locate_items(const Path& p) const;

 private:
  friend class StreamedObject;
  Document(std::string_view text, std::string file, Value v, size_t start, uint32_t start_line,
           uint32_t start_column, Path root_path = Path())
      : text_(text),
        file_(std::move(file)),
        value_(std::move(v)),
        start_(start),
        start_line_(start_line),
        start_column_(start_column),
        root_path_(std::move(root_path)) {}
  /// Offset in text_ of the value at `p` (of its nearest present ancestor).
  size_t offset_of(const Path& p) const;
  SourceLocation start_location() const;

  std::string_view text_;
  std::string file_;
  Value value_;
  /// Where this document's value starts in text_: locations are counted on
  /// from there, so locating in the 10,000th line of a JSON lines file does
  /// not rescan the 9,999 before it.
  size_t start_ = 0;
  uint32_t start_line_ = 1, start_column_ = 1;
  /// Where this document's value sits in a larger one (an item of a
  /// StreamedObject: `entries[7]`): the prefix of every Node's path.
  Path root_path_;
};

/// One JSON object whose big array member is read one item at a time. A
/// capture manifest's 100,000 "entries" parsed as one tree take several
/// times the text's size; read this way one entry's tree is in memory at a
/// time, and errors say the same thing at the same place.
///
///   KSNAP_ASSIGN_OR_RETURN(StreamedObject m, StreamedObject::parse(text, "manifest.json", "entries"));
///   m.rest().root()["format"]            // every member but "entries"
///   for (size_t i = 0; i < m.size(); ++i) {
///     KSNAP_ASSIGN_OR_RETURN(Document e, m.item(i));
///     e.root()["kernel"]                 // path entries[i].kernel, located in the whole text
///   }
class StreamedObject {
 public:
  /// Checks the whole text as Document::parse does first (depth limit, NUL
  /// bytes), then the object's structure, parses every member but
  /// `array_key`, and finds where each of `array_key`'s items starts and
  /// ends. A text that is not such an object (not an object, `array_key`
  /// absent or not an array) is parsed whole: rest() is all of it and
  /// size() is 0. Errors are Document::parse's, at the same places. `text`
  /// must outlive the object and every item Document.
  static Expected<StreamedObject> parse(std::string_view text, std::string file,
                                        std::string_view array_key, int max_depth = kMaxDepth);

  /// The object without the items: `array_key` is an empty array there when
  /// it was streamed (streamed()), its items only through item().
  const Document& rest() const { return rest_; }
  bool streamed() const { return streamed_; }
  size_t size() const { return items_.size(); }
  /// Item `i` (< size()) parsed now: root() has the path `array_key[i]` and
  /// locates in the whole text. A syntax error in it is Document::parse's
  /// error for the whole text (items are checked only when read).
  Expected<Document> item(size_t i) const;

 private:
  struct Item {
    size_t begin, end;
    uint32_t line, column;
  };
  StreamedObject(Document rest, std::string_view text, std::string file, Path array_path)
      : rest_(std::move(rest)),
        text_(text),
        file_(std::move(file)),
        array_path_(std::move(array_path)) {}

  Document rest_;
  std::string_view text_;
  std::string file_;
  Path array_path_;
  bool streamed_ = false;
  int max_depth_ = kMaxDepth;
  std::vector<Item> items_;
};

/// Parses `text` as one JSON value (depth-limited, located syntax errors).
Expected<Value> parse(std::string_view text, const std::string& file, int max_depth = kMaxDepth);

/// The value JSON text `text` spells (read by `parse`), or the string `text`
/// itself when it is not JSON: for values kept as JSON text that may also be
/// a bare string (constexprs, options, benchmark point labels).
Value parse_or_string(std::string_view text);

/// Ok, or kParseError at the first `[`/`{` that opens level max_depth + 1.
/// Strings are skipped; the text need not be valid JSON.
Status check_depth(std::string_view text, const std::string& file, int max_depth = kMaxDepth);

/// "null", "boolean", "number", "string", "array", "object".
const char* kind_name(const Value& v);

/// A JSON string value holding `s` made valid UTF-8 (to_valid_utf8).
Value text(std::string_view s);

/// JSON text of `v` (indent < 0: one line). Every string and object key is
/// spelled as valid UTF-8 first (invalid bytes become `\xNN`), values nested
/// deeper than 2 * kMaxDepth become the string "<nested too deep>"; never throws.
std::string dump(Value v, int indent = -1);

}  // namespace ksnap::json

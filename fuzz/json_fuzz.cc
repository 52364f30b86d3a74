// libFuzzer target for support/json, the reader every JSON input goes
// through. Checks: parse never throws or recurses past kMaxDepth; an error
// is kParseError located inside the text; a parsed value dumps to valid
// UTF-8 that parses back to the same value; every member path is located
// inside the text and typed reads never throw. The same text read as a
// sequence (JSON lines): errors located inside the text; a text that parses
// as one document is a sequence of exactly that document; an array's
// one-pass item locations equal each item's own. Read as a StreamedObject
// (its "entries" one at a time, as manifests are): the same error, or the
// same members, items, paths and item locations as the whole tree.
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_util.h"
#include "ksnap/support/json.h"
#include "ksnap/support/text.h"

using ksnap::fuzz::check;

namespace {

size_t line_count(std::string_view t) {
  size_t n = 1;
  for (char c : t) n += c == '\n';
  return n;
}

/// Typed reads of every member of objects along the first items, down to depth 6.
void walk(const ksnap::json::Node& n, int depth, size_t lines) {
  if (depth > 6) return;
  std::string s;
  int64_t i = 0;
  uint64_t u = 0;
  int32_t i32 = 0;
  double d = 0;
  bool b = false;
  ksnap::Status st[] = {n.read(&s),
                        n.read(&i),
                        n.read(&u),
                        n.read(&i32),
                        n.read(&d),
                        n.read(&b),
                        n.expect_object(ksnap::json::Need::kRequired)};
  for (const ksnap::Status& x : st)
    check(x.is_ok() || (x.location().line >= 1 && x.location().line <= lines));
  if (n.is_object()) {
    for (auto it = n.value().begin(); it != n.value().end(); ++it)
      walk(n[it.key()], depth + 1, lines);
    walk(n["\x01missing"], depth + 1, lines);
  } else if (n.is_array()) {
    // The one-pass item locations are each item's own location.
    const std::vector<ksnap::SourceLocation> at = n.item_locations();
    check(at.size() == n.size());
    for (size_t k = 0; k < at.size() && k < 4; ++k) {
      const ksnap::SourceLocation one = n[k].location();
      check(at[k].line == one.line && at[k].column == one.column);
    }
    for (size_t k = 0; k < n.size() && k < 4; ++k) walk(n[k], depth + 1, lines);
    walk(n[n.size() + 1], depth + 1, lines);
  }
}

/// The streamed reading of `text` agrees with `doc`, the whole tree (or
/// its error).
void check_streamed(std::string_view text, const ksnap::Expected<ksnap::json::Document>& doc) {
  using namespace ksnap;
  auto s = json::StreamedObject::parse(text, "fuzz.json", "entries");
  std::string error;
  std::vector<json::Document> items;
  if (!s) {
    error = s.status().to_string();
  } else {
    for (size_t i = 0; i < s->size() && error.empty(); ++i) {
      auto item = s->item(i);
      if (item) items.push_back(std::move(*item));
      else error = item.status().to_string();
    }
  }
  if (!doc) {
    check(error == doc.status().to_string());
    return;
  }
  check(error.empty());
  json::Value rest = doc->value();
  json::Node entries = doc->root()["entries"];
  const bool streamed = rest.is_object() && entries.is_array();
  check(s->streamed() == streamed);
  if (streamed) rest["entries"] = json::Value::array();
  check(s->rest().value() == rest);
  check(items.size() == (streamed ? entries.size() : 0));
  for (size_t i = 0; i < items.size(); ++i) {
    check(items[i].value() == entries[i].value());
    check(items[i].root().path().to_string() == entries[i].path().to_string());
    const SourceLocation a = items[i].root().location(), b = entries[i].location();
    check(a.line == b.line && a.column == b.column);
    if (i < 4 && items[i].value().is_object()) {
      for (auto it = items[i].value().begin(); it != items[i].value().end(); ++it) {
        const SourceLocation x = items[i].root()[it.key()].location();
        const SourceLocation y = entries[i][it.key()].location();
        check(x.line == y.line && x.column == y.column);
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ksnap;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const size_t lines = line_count(text);
  auto seq = json::Document::parse_sequence(text, "fuzz.jsonl");
  if (!seq) {
    check(seq.status().code() == ErrorCode::kParseError);
    check(seq.status().location().line >= 1 && seq.status().location().line <= lines);
  } else {
    for (const json::Document& d : *seq) walk(d.root(), 3, lines);
  }
  auto doc = json::Document::parse(text, "fuzz.json");
  check_streamed(text, doc);
  if (doc) check(seq.has_value() && seq->size() == 1 && (*seq)[0].value() == doc->value());
  if (!doc) {
    const Status& s = doc.status();
    check(s.code() == ErrorCode::kParseError);
    check(s.location().line >= 1 && s.location().line <= lines);
    check(is_valid_utf8(s.message()));
    return 0;
  }
  std::string out = json::dump(doc->value());
  check(is_valid_utf8(out));
  auto back = json::parse(out, "dump");
  check(back.has_value() && *back == doc->value());
  walk(doc->root(), 0, lines);
  return 0;
}

// Internal: a small JSON text writer for large outputs (no tree is built: a
// 10,000-variant report has ~400,000 diff lines). Every string it writes is
// valid UTF-8: bytes that are not are spelled `\xNN` (support/text.h), and
// spans of such a string can be moved to match (repair_spans).
//
//   JsonOut o; o.raw("{").key("a", true).str("x\xff").raw("}");
//   o.text == R"({"a":"x\\xff"})"
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ksnap/diff/result.h"
#include "ksnap/support/status.h"

namespace ksnap::render {

class JsonOut {
 public:
  std::string text;
  /// Where `text` goes in pieces (null: it is kept whole): flush() hands it
  /// over once it holds `chunk` bytes or more, and empties it. After the
  /// sink fails, flush() drops what is written and `sink_status` says why.
  const std::function<Status(std::string_view)>* sink = nullptr;
  size_t chunk = size_t{1} << 20;
  Status sink_status;
  /// Hands `text` to the sink when there is one and it holds `chunk` bytes
  /// (with `all`, whatever it holds). Call between values, never inside a
  /// string: pieces are written in order, so any cut point is valid.
  void flush(bool all = false) {
    if (!sink || (!all && text.size() < chunk)) return;
    if (sink_status.is_ok() && !text.empty()) sink_status = (*sink)(text);
    text.clear();
  }

  JsonOut& raw(std::string_view s) {
    text += s;
    return *this;
  }
  JsonOut& num(int64_t v);
  /// A finite double with up to 6 significant digits; null when not finite.
  JsonOut& real(double v);
  JsonOut& boolean(bool v) { return raw(v ? "true" : "false"); }
  /// A JSON string of `s` made valid UTF-8 (to_valid_utf8), escaped.
  JsonOut& str(std::string_view s);
  /// `json_text` itself when it is one valid JSON value in valid UTF-8
  /// (constexpr and option values are JSON texts), else as a string.
  JsonOut& value(std::string_view json_text);
  template <typename T>
  JsonOut& nums(const std::vector<T>& v) {
    text += '[';
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) text += ',';
      num(static_cast<int64_t>(v[i]));
    }
    text += ']';
    return *this;
  }
  JsonOut& strs(const std::vector<std::string>& v);
  /// `"key":`, with a leading comma unless `first`.
  JsonOut& key(std::string_view k, bool first = false) {
    if (!first) text += ',';
    str(k);
    text += ':';
    return *this;
  }
};

/// `spans` (byte ranges of `s`) moved onto to_valid_utf8(s): each invalid
/// byte before or inside a span grows to four (`\xNN`).
std::vector<diff::Span> repair_spans(std::string_view s, const std::vector<diff::Span>& spans);

}  // namespace ksnap::render

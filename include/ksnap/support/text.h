// ksnap support: making untrusted text safe to show.
//
// Every string that reaches an output comes from a capture, and a capture
// comes from a pull request. Two rules hold for every format:
//   - JSON output is valid UTF-8: bytes that are not part of a valid UTF-8
//     sequence are spelled `\xNN` (four ASCII characters), so no information
//     is lost and no JSON library throws (docs/diff-json.md says so).
//   - A terminal never receives a control character from data: C0 controls
//     (except tab in IR text), DEL and the C1 range U+0080..U+009F are shown
//     as `\x1b`, `\x7f`, `\u009b`; invalid bytes as `\xNN`. Only ksnap's own
//     colors are emitted.
//
// Worked example:
//   to_valid_utf8("ok \xff")            == "ok \\xff"
//   escape_control("\x1b]0;pwned\x07")  == "\\x1b]0;pwned\\x07"
//   escape_control("tab\there", true)   == "tab\there"
#pragma once

#include <string>
#include <string_view>

namespace ksnap {

/// True when `s` is well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF).
bool is_valid_utf8(std::string_view s);

/// `s` with every byte that is not part of a well-formed UTF-8 sequence
/// replaced by the text `\xNN` (lowercase hex). Valid input is returned
/// unchanged.
std::string to_valid_utf8(std::string_view s);

/// `s` made safe for a terminal: invalid bytes as in to_valid_utf8, C0
/// controls, DEL and C1 controls as `\xNN` (C0, DEL) or `\uNNNN` (C1).
/// Tabs are kept when `keep_tab`; newlines are always escaped (a caller
/// that prints several lines passes one line at a time).
std::string escape_control(std::string_view s, bool keep_tab = true);

}  // namespace ksnap

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
//   - No format passes a Unicode bidirectional control from data (U+202A..
//     U+202E, U+2066..U+2069, U+200E, U+200F, U+061C): text that reorders
//     what the reader sees ("Trojan Source") is shown as `\u202e`; JSON
//     spells them (and C1 controls) as `\u` escapes.
//
// Worked example:
//   to_valid_utf8("ok \xff")            == "ok \\xff"
//   escape_control("\x1b]0;pwned\x07")  == "\\x1b]0;pwned\\x07"
//   escape_control("tab\there", true)   == "tab\there"
//   escape_control("a\u202eb")         == "a\\u202eb"
#pragma once

#include <string>
#include <vector>
#include <string_view>

namespace ksnap {

/// True when `s` is well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF).
bool is_valid_utf8(std::string_view s);

/// `s` with every byte that is not part of a well-formed UTF-8 sequence
/// replaced by the text `\xNN` (lowercase hex). Valid input is returned
/// unchanged.
std::string to_valid_utf8(std::string_view s);

/// True for a C1 control (U+0080..U+009F) or a bidirectional control
/// (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069): the one list
/// of invisible controls every writer escapes.
bool is_invisible_control(char32_t cp);

/// Length in bytes of the C1 control (U+0080..U+009F) or bidirectional
/// control (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069) encoded
/// at s[i], or 0 when there is none; `*cp` (when given) gets its code point.
size_t invisible_control_at(std::string_view s, size_t i, char32_t* cp = nullptr);

/// `s` with each invisible control (invisible_control_at) written `\uNNNN`
/// and nothing else changed: for JSON text (a valid escape there) and for
/// writers that escape the rest themselves.
std::string escape_invisible(std::string_view s);

/// `s` made safe for a terminal: invalid bytes as in to_valid_utf8, C0
/// controls, DEL, C1 and bidi controls as `\xNN` (C0, DEL) or `\uNNNN`
/// (C1, bidi: invisible_control_at).
/// Tabs are kept when `keep_tab`; newlines are always escaped (a caller
/// that prints several lines passes one line at a time).
std::string escape_control(std::string_view s, bool keep_tab = true);

/// Levenshtein distance of two short words (names, not texts: O(|a|·|b|)).
size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `value`, for "did you mean": a case-insensitive
/// match, a candidate that contains it or that it prefixes, or one within an
/// edit distance of a third of its length (at least 2); "" when none is close.
///   did_you_mean("tgir", {"ttir", "ttgir", "llir"})      == "ttgir"
///   did_you_mean("softmax", {"softmax_kernel", "add"})   == "softmax_kernel"
std::string did_you_mean(const std::string& value, const std::vector<std::string>& candidates);

}  // namespace ksnap

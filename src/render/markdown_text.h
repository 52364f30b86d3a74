// Internal: putting untrusted text into GitHub-flavoured Markdown safely.
//
// A PR comment is rendered by GitHub: Markdown, a subset of HTML, autolinks,
// @mentions and #123 references. Text from a capture must show as text:
//   - in a fenced block, the fence is longer than any backtick run inside
//     (an IR line holding ``` cannot close it);
//   - in a code span, likewise, and `|` is escaped inside table cells;
//   - in HTML (<summary>), it is HTML-escaped (no Markdown backslashes: GitHub
//     does not unescape Markdown inside HTML), and @, # before a digit, ://
//     and www. get a zero-width space so that nothing mentions or links.
//
//   fence_for("a ``` b")         == "````"
//   code_span("x`y")             == "``x`y``"
//   code_span(200 backticks)     == "`` `×200 ``"
//   html_text("<b>@team #12")    == "&lt;b&gt;@\u200bteam #\u200b12"
#pragma once

#include <string>
#include <string_view>

namespace ksnap::render::md {

/// Backticks that open and close a fenced block holding `content`: one more
/// than its longest backtick run, at least three.
std::string fence_for(std::string_view content);

/// An inline code span of `s` (made one line of valid UTF-8, controls and
/// bidi characters escaped); `in_table` escapes `|` for GFM table cells. A
/// run of more than 16 backticks is written "`×N", so the delimiters stay
/// short enough for GitHub (cmark-gfm ignores runs over 80).
std::string code_span(std::string_view s, bool in_table = false);

/// `s` for HTML inside Markdown (<summary>, table cells): valid UTF-8, one
/// line, HTML-escaped, mentions / references / links neutralized.
std::string html_text(std::string_view s);

/// At most `max` bytes of `s`, cut at a UTF-8 boundary, "…" added when cut.
std::string truncate(std::string_view s, size_t max);

/// `s` made one line of valid UTF-8 for a fenced block: control characters
/// other than tab escaped (escape_control).
std::string block_line(std::string_view s);

}  // namespace ksnap::render::md

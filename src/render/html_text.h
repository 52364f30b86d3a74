// Internal: escaping for the HTML report. Text goes into element content and
// attribute values through escape_html; JSON goes into a
// <script type="application/json"> element through script_safe_json.
//
//   escape_html("a<b & \"c\"")        -> "a&lt;b &amp; &quot;c&quot;"
//   script_safe_json("[\"</script>\"]") -> "[\"<\\/script>\"]"
#pragma once

#include <string>
#include <string_view>

namespace ksnap::render::html {

/// Escapes & < > " ' so the result is safe as element text and as a quoted
/// attribute value; bytes that are not UTF-8 become `\xNN` (to_valid_utf8).
std::string escape_html(std::string_view s);

/// Makes JSON text safe inside a <script> element without changing the value
/// JSON.parse reads back: "</" becomes "<\/" (no end tag can appear) and
/// "<!--" becomes "\u003c!--" (no script-data escape state). Both only occur
/// inside JSON strings, where these escapes are valid.
std::string script_safe_json(std::string_view json);

}  // namespace ksnap::render::html

// Internal: ksnap's own terminal colors and the one function that writes a
// diff line to a terminal (data escaped by escape_control, highlights in
// color).
#pragma once

#include <string>
#include <string_view>

#include "ksnap/diff/result.h"

namespace ksnap::render {

struct Palette {
  const char* bold = "";
  const char* dim = "";
  const char* red = "";
  const char* green = "";
  const char* cyan = "";
  const char* yellow = "";
  const char* red_hl = "";    ///< Highlight inside a removed line.
  const char* green_hl = "";  ///< Highlight inside an added line.
  const char* reset = "";
};
Palette palette(bool color);

/// Appends "  text", "- text" or "+ text" and a newline, the text as shown
/// (report::shown_text), control characters escaped, highlights colored.
void append_diff_line(std::string* out, const diff::DiffLine& l, bool head_names, const Palette& p);

/// Columns `s` takes on a terminal: code points (invalid bytes count 4, as
/// escape_control shows them).
size_t display_width(std::string_view s);

}  // namespace ksnap::render

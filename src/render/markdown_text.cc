// Safe Markdown text; see markdown_text.h.
#include "render/markdown_text.h"

#include <algorithm>

#include "ksnap/support/text.h"
#include "render/html_text.h"

namespace ksnap::render::md {

namespace {

constexpr char kZeroWidthSpace[] = "\xE2\x80\x8B";

size_t longest_backtick_run(std::string_view s) {
  size_t best = 0, run = 0;
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    best = std::max(best, run);
  }
  return best;
}

/// Zero-width spaces that stop @mentions, #123 references and autolinks.
std::string neutralize(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 8);
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    out += c;
    bool next_digit = i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '9';
    // "&#39;" is escape_html's own entity (a '&' of the data is "&amp;").
    bool entity = i > 0 && s[i - 1] == '&';
    if (c == '@' || (c == '#' && next_digit && !entity) || (c == ':' && s.substr(i + 1, 2) == "//") ||
        (c == 'w' && s.substr(i, 4) == "www."))
      out += kZeroWidthSpace;
  }
  return out;
}

/// `s` with every run of more than kMaxSpanRun backticks written as one
/// backtick and its count ("`×200"): cmark-gfm (GitHub) does not match code
/// span delimiters longer than 80 backticks, so a span that needed them
/// would not be a span and its text would render as Markdown.
std::string short_backtick_runs(std::string_view s) {
  constexpr size_t kMaxSpanRun = 16;
  if (longest_backtick_run(s) <= kMaxSpanRun) return std::string(s);
  std::string out;
  for (size_t i = 0; i < s.size();) {
    size_t n = 0;
    while (i + n < s.size() && s[i + n] == '`') ++n;
    if (n > kMaxSpanRun) {
      out += "`×" + std::to_string(n);
    } else if (n > 0) {
      out.append(n, '`');
    } else {
      out += s[i];
      n = 1;
    }
    i += n;
  }
  return out;
}

}  // namespace

std::string fence_for(std::string_view content) {
  return std::string(std::max<size_t>(3, longest_backtick_run(content) + 1), '`');
}

std::string truncate(std::string_view s, size_t max) {
  if (s.size() <= max) return std::string(s);
  size_t n = max;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return std::string(s.substr(0, n)) + "…";
}

std::string block_line(std::string_view s) { return escape_control(s, /*keep_tab=*/true); }

std::string code_span(std::string_view s, bool in_table) {
  std::string t = short_backtick_runs(escape_control(s, /*keep_tab=*/false));
  if (in_table) {
    std::string esc;
    for (char c : t) {
      if (c == '|') esc += '\\';
      esc += c;
    }
    t = std::move(esc);
  }
  std::string ticks(longest_backtick_run(t) + 1, '`');
  bool pad = !t.empty() && (t.front() == '`' || t.back() == '`');
  return ticks + (pad ? " " : "") + t + (pad ? " " : "") + ticks;
}

std::string html_text(std::string_view s) {
  return neutralize(html::escape_html(escape_control(s, /*keep_tab=*/false)));
}

}  // namespace ksnap::render::md

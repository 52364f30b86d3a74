#include "ksnap/perf/number_text.h"

#include <charconv>
#include <cmath>
#include <string>

namespace ksnap::perf {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

std::optional<double> parse_number(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  if (text.front() == '+') text.remove_prefix(1);  // from_chars rejects a leading '+'
  double d = 0;
  const char* end = text.data() + text.size();
  auto res = std::from_chars(text.data(), end, d);
  if (res.ec != std::errc() || res.ptr != end || !std::isfinite(d)) return std::nullopt;
  return d;
}

bool is_missing_value(std::string_view text) {
  text = trim(text);
  return text.empty() || text == "nan" || text == "NaN" || text == "NAN" || text == "none" ||
         text == "None" || text == "null";
}

Expected<std::vector<double>> parse_sample_list(std::string_view text) {
  std::vector<double> out;
  size_t i = 0, index = 0;
  while (i < text.size()) {
    while (i < text.size() && (is_blank(text[i]) || text[i] == ';' || text[i] == ',')) ++i;
    if (i >= text.size()) break;
    size_t j = i;
    while (j < text.size() && !is_blank(text[j]) && text[j] != ';' && text[j] != ',') ++j;
    ++index;
    std::string_view token = text.substr(i, j - i);
    auto v = parse_number(token);
    if (!v) {
      std::string shown(token.substr(0, 40));
      if (token.size() > 40) shown += "...";
      return make_error(ErrorCode::kParseError, "sample " + std::to_string(index) + " ('" + shown +
                                                    "') is not a finite number");
    }
    out.push_back(*v);
    i = j;
  }
  return out;
}

}  // namespace ksnap::perf

#include "tune/json_util.h"

#include "ksnap/support/file.h"

namespace ksnap::tune::detail {

Expected<nlohmann::json> parse_json(std::string_view text, const std::string& file) {
  // nlohmann reports the failing byte only through its exception; it is
  // caught here and never crosses the API.
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    size_t at = e.byte > 0 ? e.byte - 1 : 0;
    std::string why = e.what();
    size_t p = why.find("syntax error");
    if (p != std::string::npos) why = why.substr(p);
    return make_error(ErrorCode::kParseError, "invalid JSON: " + why, location_in(text, at, file));
  }
}

Status json_error(std::string_view text, const std::string& file, std::string_view needle,
                  const std::string& what) {
  size_t at = needle.empty() ? std::string_view::npos : text.find(needle);
  SourceLocation loc{file, 0, 0};
  if (at != std::string_view::npos) loc = location_in(text, at, file);
  return make_error(ErrorCode::kParseError, what, loc);
}

}  // namespace ksnap::tune::detail

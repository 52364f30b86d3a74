// Internal: JSON parsing with file:line:col errors, for the tune component.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "ksnap/support/status.h"

namespace ksnap::tune::detail {

/// Parses `text`; a syntax error (truncation included) becomes kParseError at
/// the line and column where the parser stopped.
Expected<nlohmann::json> parse_json(std::string_view text, const std::string& file);

/// kParseError "<what>" located at the first line of `text` that mentions
/// `needle` (line 0 when absent).
Status json_error(std::string_view text, const std::string& file, std::string_view needle,
                  const std::string& what);

}  // namespace ksnap::tune::detail

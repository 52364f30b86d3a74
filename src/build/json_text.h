// Internal: JSON helpers shared by the build loaders.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "ksnap/support/status.h"

namespace ksnap::build {

/// JSON text of `v` spelled as Python's json.dumps(sort_keys=True) would:
/// ", " and ": " separators, sorted object keys.
std::string python_json(const nlohmann::json& v);

/// Parses `text` (from file `file`) as JSON; a syntax error becomes
/// kParseError with the file, line and column of the byte where it failed.
Expected<nlohmann::json> parse_json(std::string_view text, const std::string& file);

/// 1-based line of the first occurrence of `needle` in `text` (0 if absent):
/// locates a manifest entry for error messages.
uint32_t line_of(std::string_view text, std::string_view needle);

}  // namespace ksnap::build

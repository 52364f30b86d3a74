// Internal: JSON spelling shared by the build loaders.
#pragma once

#include <string>

#include "ksnap/support/json.h"

namespace ksnap::build {

/// JSON text of `v` spelled as Python's json.dumps(sort_keys=True) would:
/// ", " and ": " separators, sorted object keys. `v` comes from
/// json::parse, so it nests at most json::kMaxDepth levels; deeper values
/// (never produced by the parser) are spelled `null` rather than recursed into.
std::string python_json(const json::Value& v);

/// json::parse (depth-limited, located syntax errors), for readers that
/// still walk the tree themselves (unstable.json).
inline Expected<json::Value> parse_json(std::string_view text, const std::string& file) {
  return json::parse(text, file);
}

/// 1-based line of the first occurrence of `needle` in `text` (0 if absent):
/// locates an entry for error messages where no json::Node is at hand.
uint32_t line_of(std::string_view text, std::string_view needle);

}  // namespace ksnap::build

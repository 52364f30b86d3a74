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

}  // namespace ksnap::build

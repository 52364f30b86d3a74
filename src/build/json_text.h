// Internal: JSON spelling shared by the build loaders.
#pragma once

#include <map>
#include <string>

#include "ksnap/support/json.h"

namespace ksnap::build {

/// JSON text of `v` spelled as Python's json.dumps(sort_keys=True) would:
/// ", " and ": " separators, sorted object keys. `v` comes from
/// json::parse, so it nests at most json::kMaxDepth levels; deeper values
/// (never produced by the parser) are spelled `null` rather than recursed into.
std::string python_json(const json::Value& v);

/// Reads the optional object at `obj` (constexprs, options) into *out as
/// member name -> python_json(value); a located error when it is present
/// and not an object.
Status read_python_json_map(const json::Node& obj, std::map<std::string, std::string>* out);

}  // namespace ksnap::build

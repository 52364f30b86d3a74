// ksnap capture: the JSON spelling of identity values, and reading a
// variant's identity fields from a JSON object (a manifest entry, an
// unstable.json entry). For the readers of capture files; includes
// support/json.h (nlohmann), so the tune runtime's headers do not.
#pragma once

#include <map>
#include <string>

#include "ksnap/capture/variant_key.h"
#include "ksnap/support/json.h"

namespace ksnap::capture {

/// JSON text of `v` spelled as Python's json.dumps(sort_keys=True) would:
/// ", " and ": " separators, sorted object keys. `v` comes from
/// json::parse, so it nests at most json::kMaxDepth levels; deeper values
/// (never produced by the parser) are spelled `null` rather than recursed into.
std::string python_json(const json::Value& v);

/// Reads the optional object at `obj` (constexprs, options) into *out as
/// member name -> python_json(value); a located error when it is present
/// and not an object.
Status read_python_json_map(const json::Node& obj, std::map<std::string, std::string>* out);

/// Reads the identity fields of the object `e` into *k: `kernel`
/// (required), `qualname`, `source_file`, `key` (and `signature` from it),
/// `constexprs`, `options`. Type errors are located at the field.
Status read_variant_key(const json::Node& e, VariantKey* k);

}  // namespace ksnap::capture

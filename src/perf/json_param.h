// ksnap perf: a JSON scalar as benchmark parameter text, shared by the
// sample reader (`{"name": "mm", "M": 4096}`) and the attribution of
// recorded point labels (`{"BLOCK_M": 64.0, "fp8": true}`).
//
// Worked example:
//   4096 -> "4096"    64.0 -> "64"    true -> "true"    "fp16" -> "fp16"
//   null -> "none"    [1, 2] -> ""    {"a": 1} -> ""
#pragma once

#include <string>

#include "ksnap/support/json.h"

namespace ksnap::perf {

/// The text of a scalar: integers exactly, other numbers through %.17g and
/// normalize_param_value (so 64.0 and 64 read the same), null as "none"
/// (pandas' spelling), arrays and objects "" (never equal to a label value).
std::string json_param_text(const json::Value& v);

/// True for strings, booleans and numbers.
inline bool is_json_scalar(const json::Value& v) {
  return v.is_string() || v.is_boolean() || v.is_number();
}

}  // namespace ksnap::perf

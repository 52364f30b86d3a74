#include "ksnap/capture/json_text.h"

#include <map>

namespace ksnap::capture {

namespace {

std::string scalar_text(const json::Value& v) {
  // nlohmann spells scalars as Python does (integral floats as "1.0"); parsed
  // strings are valid UTF-8, and `replace` keeps any other from throwing.
  return v.dump(-1, ' ', false, json::Value::error_handler_t::replace);
}

void append_python_json(const json::Value& v, int depth, std::string* out) {
  if (depth > json::kMaxDepth) {
    *out += "null";
  } else if (v.is_object()) {
    std::map<std::string, const json::Value*> sorted;
    for (auto it = v.begin(); it != v.end(); ++it) sorted[it.key()] = &it.value();
    *out += '{';
    bool first = true;
    for (const auto& [k, val] : sorted) {
      if (!first) *out += ", ";
      first = false;
      *out += scalar_text(json::Value(k));
      *out += ": ";
      append_python_json(*val, depth + 1, out);
    }
    *out += '}';
  } else if (v.is_array()) {
    *out += '[';
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) *out += ", ";
      append_python_json(v[i], depth + 1, out);
    }
    *out += ']';
  } else {
    *out += scalar_text(v);
  }
}

}  // namespace

std::string python_json(const json::Value& v) {
  std::string out;
  append_python_json(v, 0, &out);
  return out;
}

Status read_python_json_map(const json::Node& obj, std::map<std::string, std::string>* out) {
  KSNAP_RETURN_IF_ERROR(obj.expect_object());
  if (!obj.is_object()) return Status::ok();
  for (auto it = obj.value().begin(); it != obj.value().end(); ++it)
    (*out)[it.key()] = python_json(it.value());
  return Status::ok();
}

Status read_variant_key(const json::Node& e, VariantKey* k) {
  using json::Need;
  KSNAP_RETURN_IF_ERROR(e.expect_object(Need::kRequired));
  KSNAP_RETURN_IF_ERROR(e["kernel"].read(&k->kernel, Need::kRequired));
  KSNAP_RETURN_IF_ERROR(e["key"].read(&k->key));
  if (!k->key.empty()) k->signature = signature_of_key(k->key);
  KSNAP_RETURN_IF_ERROR(read_python_json_map(e["constexprs"], &k->constexprs));
  KSNAP_RETURN_IF_ERROR(read_python_json_map(e["options"], &k->options));
  KSNAP_RETURN_IF_ERROR(e["qualname"].read(&k->qualname));
  return e["source_file"].read(&k->source_file);
}

}  // namespace ksnap::capture

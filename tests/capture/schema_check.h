// A validator for the subset of JSON Schema that
// docs/capture-manifest.schema.json uses: type (a name or a list), enum,
// minimum, maximum, minLength, pattern (ECMAScript), not, properties,
// required, dependentRequired, additionalProperties (a schema), items (one
// schema). A keyword outside the subset is an error, so the schema cannot
// grow a rule this check silently skips.
#pragma once

#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace ksnap::testing {

using Json = nlohmann::json;

/// Problems of `v` against `schema`, each "path: what"; empty = valid.
inline void schema_check(const Json& schema, const Json& v, const std::string& at,
                         std::vector<std::string>* out) {
  static const std::set<std::string> kKnown = {
      "$schema", "title", "description", "type", "enum", "minimum", "maximum", "minLength",
      "pattern", "not", "properties", "required", "dependentRequired", "additionalProperties",
      "items"};
  for (auto it = schema.begin(); it != schema.end(); ++it)
    if (!kKnown.count(it.key())) out->push_back(at + ": schema keyword outside the subset: " + it.key());
  auto is = [&v](const std::string& t) {
    if (t == "null") return v.is_null();
    if (t == "boolean") return v.is_boolean();
    if (t == "integer") return v.is_number_integer();
    if (t == "number") return v.is_number();
    if (t == "string") return v.is_string();
    if (t == "array") return v.is_array();
    if (t == "object") return v.is_object();
    return false;
  };
  if (schema.contains("type")) {
    const Json& t = schema["type"];
    bool ok = false;
    if (t.is_string()) ok = is(t.get<std::string>());
    for (const Json& one : t.is_array() ? t : Json::array()) ok |= is(one.get<std::string>());
    if (!ok) {
      out->push_back(at + ": " + std::string(v.type_name()) + " is not of type " + t.dump());
      return;
    }
  }
  if (schema.contains("enum")) {
    bool found = false;
    for (const Json& e : schema["enum"]) found |= e == v;
    if (!found) out->push_back(at + ": " + v.dump() + " is not one of " + schema["enum"].dump());
  }
  if (v.is_number()) {
    if (schema.contains("minimum") && v.get<double>() < schema["minimum"].get<double>())
      out->push_back(at + ": " + v.dump() + " is below the minimum");
    if (schema.contains("maximum") && v.get<double>() > schema["maximum"].get<double>())
      out->push_back(at + ": " + v.dump() + " is above the maximum");
  }
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (schema.contains("minLength") && s.size() < schema["minLength"].get<size_t>())
      out->push_back(at + ": string shorter than minLength");
    if (schema.contains("pattern") &&
        !std::regex_search(s, std::regex(schema["pattern"].get<std::string>())))
      out->push_back(at + ": " + v.dump() + " does not match " + schema["pattern"].dump());
  }
  if (schema.contains("not")) {
    std::vector<std::string> inner;
    schema_check(schema["not"], v, at, &inner);
    if (inner.empty()) out->push_back(at + ": " + v.dump() + " matches a schema it must not");
  }
  if (v.is_object()) {
    const Json required = schema.value("required", Json::array());
    for (const Json& r : required)
      if (!v.contains(r.get<std::string>()))
        out->push_back(at + ": missing required \"" + r.get<std::string>() + "\"");
    const Json dependent = schema.value("dependentRequired", Json::object());
    for (auto [name, needs] : dependent.items())
      if (v.contains(name))
        for (const Json& r : needs)
          if (!v.contains(r.get<std::string>()))
            out->push_back(at + ": \"" + name + "\" needs \"" + r.get<std::string>() + "\"");
    const Json props = schema.value("properties", Json::object());
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string sub = at + "." + it.key();
      if (props.contains(it.key())) {
        schema_check(props[it.key()], it.value(), sub, out);
      } else if (schema.contains("additionalProperties")) {
        schema_check(schema["additionalProperties"], it.value(), sub, out);
      }
    }
  }
  if (v.is_array() && schema.contains("items"))
    for (size_t i = 0; i < v.size(); ++i)
      schema_check(schema["items"], v[i], at + "[" + std::to_string(i) + "]", out);
}

inline std::vector<std::string> schema_problems(const Json& schema, const Json& v) {
  std::vector<std::string> out;
  schema_check(schema, v, "$", &out);
  return out;
}

}  // namespace ksnap::testing

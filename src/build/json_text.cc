#include "build/json_text.h"

#include <map>

#include "ksnap/support/file.h"

namespace ksnap::build {

std::string python_json(const nlohmann::json& v) {
  if (v.is_object()) {
    std::map<std::string, const nlohmann::json*> sorted;
    for (auto it = v.begin(); it != v.end(); ++it) sorted[it.key()] = &it.value();
    std::string out = "{";
    bool first = true;
    for (const auto& [k, val] : sorted) {
      if (!first) out += ", ";
      first = false;
      out += nlohmann::json(k).dump();
      out += ": ";
      out += python_json(*val);
    }
    return out + "}";
  }
  if (v.is_array()) {
    std::string out = "[";
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) out += ", ";
      out += python_json(v[i]);
    }
    return out + "]";
  }
  // Scalars: nlohmann spells them as Python does (integral floats as "1.0").
  return v.dump();
}

Expected<nlohmann::json> parse_json(std::string_view text, const std::string& file) {
  nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr,
                                           /*allow_exceptions=*/false);
  if (!j.is_discarded()) return j;
  // Find where it failed: parse with a callback-free SAX that records the offset.
  struct Sax : nlohmann::json_sax<nlohmann::json> {
    size_t pos = 0;
    std::string msg;
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return true; }
    bool key(string_t&) override { return true; }
    bool end_object() override { return true; }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t position, const std::string&,
                     const nlohmann::detail::exception& ex) override {
      pos = position;
      msg = ex.what();
      return false;
    }
  } sax;
  nlohmann::json::sax_parse(text.begin(), text.end(), &sax);
  size_t off = sax.pos > 0 ? sax.pos - 1 : 0;
  std::string why = sax.msg;
  size_t colon = why.find("syntax error");
  if (colon != std::string::npos) why = why.substr(colon);
  if (why.empty()) why = "not valid JSON";
  return make_error(ErrorCode::kParseError, "invalid JSON: " + why, location_in(text, off, file));
}

uint32_t line_of(std::string_view text, std::string_view needle) {
  size_t at = text.find(needle);
  if (at == std::string_view::npos) return 0;
  uint32_t line = 1;
  for (size_t i = 0; i < at; ++i) line += text[i] == '\n';
  return line;
}

}  // namespace ksnap::build

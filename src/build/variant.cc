#include <cstring>

#include "ksnap/build/build.h"

namespace ksnap::build {

int stage_rank(const std::string& stage) {
  int i = 0;
  for (const char* s : kKnownStages) {
    if (stage == s) return i;
    ++i;
  }
  return -1;
}

std::string json_object_text(const std::map<std::string, std::string>& kv) {
  std::string out = "{";
  bool first = true;
  for (const auto& [k, v] : kv) {
    if (!first) out += ", ";
    first = false;
    out += '"';
    for (char c : k) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += "\": ";
    out += v;
  }
  return out + "}";
}

std::string Variant::constexprs_text() const { return json_object_text(constexprs); }
std::string Variant::options_text() const { return json_object_text(options); }
std::string Variant::id() const { return kernel + "|" + constexprs_text() + "|" + options_text(); }

const StageFile* Variant::stage(const std::string& name) const {
  for (const auto& s : stages)
    if (s.stage == name) return &s;
  return nullptr;
}

Expected<TextBuffer> read_stage(const StageFile& f) {
  if (f.text) {
    if (std::memchr(f.text->data(), 0, f.text->size()) != nullptr) {
      size_t nul = std::string_view(*f.text).find('\0');
      return make_error(ErrorCode::kParseError, "binary data (NUL byte) in a text stage",
                        location_in(*f.text, nul, f.path));
    }
    return TextBuffer(f.path, *f.text);
  }
  return read_text_file(f.path);
}

}  // namespace ksnap::build

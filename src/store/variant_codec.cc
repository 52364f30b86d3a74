#include "store/variant_codec.h"

#include <nlohmann/json.hpp>

#include "ksnap/support/hash.h"
#include "ksnap/support/json.h"

namespace ksnap::store {

using nlohmann::json;

std::string content_id(const std::string& text) { return hash128_hex(text); }

std::string encode_variant(const build::Variant& v, const std::vector<StoredStage>& stages) {
  json j;
  j["kernel"] = v.kernel;
  j["qualname"] = v.qualname;
  j["key"] = v.key;
  j["signature"] = v.signature;
  j["constexprs"] = v.constexprs;
  j["options"] = v.options;
  j["constexprs_known"] = v.constexprs_known;
  j["compile_options"] = v.compile_options;
  j["cache_dir"] = v.cache_dir;
  j["resources"] = v.resources;
  j["source_file"] = v.source_file;
  j["source_line"] = v.source_line;
  j["benchmark_script"] = v.benchmark_script;
  j["benchmark_points"] = v.benchmark_points;
  json st = json::array();
  for (const StoredStage& s : stages)
    st.push_back({{"stage", s.stage}, {"blob", s.blob}, {"path", s.path}});
  j["stages"] = st;
  return ksnap::json::dump(std::move(j));
}

namespace {

template <typename T>
bool get_field(const json& j, const char* name, T* out) {
  auto it = j.find(name);
  if (it == j.end()) return false;
  try {
    *out = it->get<T>();
  } catch (const json::exception&) {
    return false;
  }
  return true;
}

}  // namespace

Expected<StoredVariant> decode_variant(const std::string& json_text, const std::string& id,
                                       const std::string& what) {
  auto bad = [&](const std::string& why) {
    return make_error(ErrorCode::kCorrupt, what + ": " + why);
  };
  auto parsed = ksnap::json::parse(json_text, what);
  if (!parsed) return bad(parsed.status().message());
  json j = std::move(*parsed);
  if (!j.is_object()) return bad("variant record is not a JSON object");
  StoredVariant sv;
  sv.record_id = id;
  build::Variant& v = sv.meta;
  bool ok = get_field(j, "kernel", &v.kernel) && get_field(j, "qualname", &v.qualname) &&
            get_field(j, "key", &v.key) && get_field(j, "signature", &v.signature) &&
            get_field(j, "constexprs", &v.constexprs) && get_field(j, "options", &v.options) &&
            get_field(j, "constexprs_known", &v.constexprs_known) &&
            get_field(j, "compile_options", &v.compile_options) &&
            get_field(j, "cache_dir", &v.cache_dir) && get_field(j, "resources", &v.resources) &&
            get_field(j, "source_file", &v.source_file) &&
            get_field(j, "source_line", &v.source_line) &&
            get_field(j, "benchmark_script", &v.benchmark_script) &&
            get_field(j, "benchmark_points", &v.benchmark_points);
  if (!ok) return bad("variant record lacks a field or has one of the wrong type");
  auto st = j.find("stages");
  if (st == j.end() || !st->is_array()) return bad("variant record has no \"stages\" array");
  for (const json& s : *st) {
    StoredStage x;
    if (!s.is_object() || !get_field(s, "stage", &x.stage) || !get_field(s, "blob", &x.blob) ||
        !get_field(s, "path", &x.path))
      return bad("malformed stage entry in variant record");
    sv.stages.push_back(std::move(x));
  }
  return sv;
}

std::string tree_text(const std::string& name, const std::string& triton_version,
                      const std::string& arch, int format_version,
                      const std::vector<std::string>& variant_ids) {
  json j;
  j["name"] = name;
  j["triton_version"] = triton_version;
  j["arch"] = arch;
  j["format_version"] = format_version;
  j["variants"] = variant_ids;
  return ksnap::json::dump(std::move(j));
}

}  // namespace ksnap::store

#include "store/variant_codec.h"

#include <nlohmann/json.hpp>

#include "ksnap/support/figures.h"
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
  j["compile_options"] = v.compile_options.map();
  j["cache_dir"] = v.cache_dir;
  j["resources"] = v.resources;
  j["source_file"] = v.source_file;
  j["source_line"] = v.source_line;
  j["benchmark_script"] = v.benchmark_script;
  j["benchmark_points"] = v.benchmark_points;
  json st = json::array();
  for (const StoredStage& s : stages) {
    json x = {{"stage", s.stage}, {"blob", s.blob}, {"path", s.path}};
    if (!s.raw_hash.empty()) x["raw"] = s.raw_hash;
    st.push_back(std::move(x));
  }
  j["stages"] = st;
  return ksnap::json::dump(std::move(j));
}

namespace {

// Typed reads of a record's fields (every field required): a wrong type is
// an error, never an exception or a float-to-integer cast out of range.
using ksnap::json::Need;
using ksnap::json::Node;

template <typename T>
Status field(const Node& j, const char* name, T* out) {
  return j[name].read(out, Need::kRequired);
}

Status field(const Node& j, const char* name, std::map<std::string, std::string>* out) {
  Node o = j[name];
  KSNAP_RETURN_IF_ERROR(o.expect_object(Need::kRequired));
  for (auto it = o.value().begin(); it != o.value().end(); ++it)
    KSNAP_RETURN_IF_ERROR(o[it.key()].read(&(*out)[it.key()], Need::kRequired));
  return Status::ok();
}

/// A stored variant's resource figures: each in 0..kMaxFigure, as the
/// capture readers that recorded them required (a record edited to hold
/// another value is refused, not passed on to the report's arithmetic).
Status field(const Node& j, const char* name, std::map<std::string, int64_t>* out) {
  Node o = j[name];
  KSNAP_RETURN_IF_ERROR(o.expect_object(Need::kRequired));
  for (auto it = o.value().begin(); it != o.value().end(); ++it) {
    int64_t& v = (*out)[it.key()];
    KSNAP_RETURN_IF_ERROR(o[it.key()].read(&v, Need::kRequired));
    if (!figure_in_range(v))
      return o[it.key()].error(figure_range_message(it.key(), v), ErrorCode::kCorrupt);
  }
  return Status::ok();
}

Status field(const Node& j, const char* name, std::vector<std::string>* out) {
  Node a = j[name];
  KSNAP_RETURN_IF_ERROR(a.expect_array(Need::kRequired));
  out->resize(a.size());
  for (size_t i = 0; i < a.size(); ++i)
    KSNAP_RETURN_IF_ERROR(a[i].read(&(*out)[i], Need::kRequired));
  return Status::ok();
}

Status read_record(const Node& j, StoredVariant* sv) {
  build::Variant& v = sv->meta;
  KSNAP_RETURN_IF_ERROR(j.expect_object(Need::kRequired));
  for (auto [name, dst] :
       {std::pair{"kernel", &v.kernel}, std::pair{"qualname", &v.qualname},
        std::pair{"key", &v.key}, std::pair{"signature", &v.signature},
        std::pair{"cache_dir", &v.cache_dir}, std::pair{"source_file", &v.source_file},
        std::pair{"benchmark_script", &v.benchmark_script}})
    KSNAP_RETURN_IF_ERROR(field(j, name, dst));
  for (auto [name, dst] : {std::pair{"constexprs", &v.constexprs}, std::pair{"options", &v.options}})
    KSNAP_RETURN_IF_ERROR(field(j, name, dst));
  build::OptionMap::Map compile_options;
  KSNAP_RETURN_IF_ERROR(field(j, "compile_options", &compile_options));
  v.compile_options = std::move(compile_options);
  KSNAP_RETURN_IF_ERROR(field(j, "constexprs_known", &v.constexprs_known));
  KSNAP_RETURN_IF_ERROR(field(j, "resources", &v.resources));
  KSNAP_RETURN_IF_ERROR(field(j, "source_line", &v.source_line));
  KSNAP_RETURN_IF_ERROR(field(j, "benchmark_points", &v.benchmark_points));
  Node st = j["stages"];
  KSNAP_RETURN_IF_ERROR(st.expect_array(Need::kRequired));
  for (size_t i = 0; i < st.size(); ++i) {
    StoredStage x;
    KSNAP_RETURN_IF_ERROR(st[i].expect_object(Need::kRequired));
    KSNAP_RETURN_IF_ERROR(field(st[i], "stage", &x.stage));
    KSNAP_RETURN_IF_ERROR(field(st[i], "blob", &x.blob));
    KSNAP_RETURN_IF_ERROR(field(st[i], "path", &x.path));
    KSNAP_RETURN_IF_ERROR(st[i]["raw"].read(&x.raw_hash, Need::kOptional));  // since schema 3
    sv->stages.push_back(std::move(x));
  }
  return Status::ok();
}

}  // namespace

Expected<StoredVariant> decode_variant(const std::string& json_text, const std::string& id,
                                       const std::string& what) {
  auto bad = [&](const std::string& why) {
    return make_error(ErrorCode::kCorrupt, what + ": " + why);
  };
  auto doc = ksnap::json::Document::parse(json_text, what);
  if (!doc) return bad(doc.status().message());
  if (!doc->value().is_object()) return bad("variant record is not a JSON object");
  StoredVariant sv;
  sv.record_id = id;
  Status st = read_record(doc->root(), &sv);
  if (!st.is_ok()) return bad(st.message());
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

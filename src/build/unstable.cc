// unstable.json: reading, writing, and marking a build's variants.
//
// Worked example. `ksnap capture --repeat 2 -o cap -- python3 09-persistent-matmul.py`
// compiled matmul_kernel_descriptor_persistent_ws{...} twice; the two LLVM
// IRs differ in two swapped @global_smem offsets, so cap/unstable.json holds
//   {"format": "ksnap-unstable", "format_version": 1, "runs": ["cap", "cap.repeat-2"],
//    "variants": [{"kernel": "matmul_kernel_descriptor_persistent_ws", ...,
//                  "cache_dir": "Q7PN...", "stages": [{"stage": "llir", ...}, ...]}]}
// and load_capture("cap") sets that variant's unstable_stages = {llir, ptx, ...}.
#include "ksnap/build/unstable.h"

#include <algorithm>

#include "ksnap/capture/json_text.h"

namespace ksnap::build {

using nlohmann::json;

namespace {

json object_of(const std::map<std::string, std::string>& kv) {
  json o = json::object();
  for (const auto& [k, v] : kv) o[k] = ksnap::json::parse_or_string(v);
  return o;
}

json identity_json(const Variant& v) {
  auto str_or_null = [](const std::string& s) { return s.empty() ? json(nullptr) : json(s); };
  return {{"kernel", v.kernel},
          {"qualname", str_or_null(v.qualname)},
          {"source_file", str_or_null(v.source_file)},
          {"id", v.id()},
          {"key", str_or_null(v.key)},
          {"signature", v.signature},
          {"constexprs", object_of(v.constexprs)},
          {"options", object_of(v.options)},
          {"cache_dir", v.cache_dir}};
}

/// Reads the identity fields of the entry at `e` (type errors located there):
/// the manifest entry's (capture::read_variant_key), `signature` as written
/// and `cache_dir`.
Status read_identity(const ksnap::json::Node& e, Variant* v) {
  KSNAP_RETURN_IF_ERROR(capture::read_variant_key(e, v));
  KSNAP_RETURN_IF_ERROR(e["signature"].read(&v->signature));
  return e["cache_dir"].read(&v->cache_dir);
}

/// An optional count, kept as uint32_t (larger values saturate).
Status read_count(const ksnap::json::Node& n, uint32_t* dst) {
  uint64_t x = *dst;
  KSNAP_RETURN_IF_ERROR(n.read(&x));
  *dst = static_cast<uint32_t>(std::min<uint64_t>(x, UINT32_MAX));
  return Status::ok();
}

}  // namespace

size_t UnstableReport::stage_count() const {
  size_t n = 0;
  for (const auto& v : variants) n += v.stages.size();
  return n;
}

std::string unstable_json(const UnstableReport& r, bool compact) {
  json root;
  root["format"] = "ksnap-unstable";
  root["format_version"] = kUnstableFormatVersion;
  root["runs"] = r.runs;
  root["variants_compared"] = r.variants_compared;
  root["stages_compared"] = r.stages_compared;
  root["unstable_stages"] = r.stage_count();
  json vs = json::array();
  for (const auto& u : r.variants) {
    json e = identity_json(u.variant);
    json st = json::array();
    for (const auto& s : u.stages)
      st.push_back({{"stage", s.stage},
                    {"lines_added", s.lines_added},
                    {"lines_removed", s.lines_removed}});
    e["stages"] = st;
    vs.push_back(e);
  }
  root["variants"] = vs;
  json un = json::array();
  for (const auto& u : r.unpaired) {
    json e = identity_json(u.variant);
    e["run"] = u.run;
    un.push_back(e);
  }
  root["unpaired"] = un;
  return ksnap::json::dump(std::move(root), compact ? -1 : 1) + "\n";  // bytes as \xNN
}

Expected<UnstableReport> read_unstable(const std::string& path) {
  KSNAP_ASSIGN_OR_RETURN(TextBuffer buf, read_text_file(path));
  return parse_unstable(buf.view(), path);
}

Expected<UnstableReport> parse_unstable(std::string_view text, const std::string& path) {
  using ksnap::json::Need;
  using ksnap::json::Node;
  KSNAP_ASSIGN_OR_RETURN(ksnap::json::Document doc, ksnap::json::Document::parse(text, path));
  const Node root = doc.root();
  KSNAP_RETURN_IF_ERROR(root.expect_object(Need::kRequired));
  std::string format;
  KSNAP_RETURN_IF_ERROR(root["format"].read(&format, Need::kRequired));
  if (format != "ksnap-unstable")
    return root["format"].error("\"format\" is " + ksnap::json::dump(ksnap::json::text(format)) +
                                ", not \"ksnap-unstable\"");
  int64_t version = 0;
  KSNAP_RETURN_IF_ERROR(root["format_version"].read(&version, Need::kRequired));
  if (version < 1 || version > kUnstableFormatVersion)
    return root["format_version"].error("unstable.json format_version " + std::to_string(version) +
                                            " is not one this ksnap reads (" +
                                            std::to_string(kUnstableFormatVersion) + ")",
                                        ErrorCode::kUnsupported);
  UnstableReport r;
  const Node runs = root["runs"];
  KSNAP_RETURN_IF_ERROR(runs.expect_array());
  r.runs.resize(runs.size());
  for (size_t i = 0; i < runs.size(); ++i)
    KSNAP_RETURN_IF_ERROR(runs[i].read(&r.runs[i], Need::kRequired));
  KSNAP_RETURN_IF_ERROR(read_count(root["variants_compared"], &r.variants_compared));
  KSNAP_RETURN_IF_ERROR(read_count(root["stages_compared"], &r.stages_compared));
  const Node variants = root["variants"];
  KSNAP_RETURN_IF_ERROR(variants.expect_array(Need::kRequired));
  for (size_t i = 0; i < variants.size(); ++i) {
    const Node e = variants[i];
    UnstableVariant u;
    KSNAP_RETURN_IF_ERROR(read_identity(e, &u.variant));
    const Node stages = e["stages"];
    KSNAP_RETURN_IF_ERROR(stages.expect_array(Need::kRequired));
    for (size_t k = 0; k < stages.size(); ++k) {
      const Node s = stages[k];
      UnstableStage st;
      KSNAP_RETURN_IF_ERROR(s.expect_object(Need::kRequired));
      KSNAP_RETURN_IF_ERROR(s["stage"].read(&st.stage, Need::kRequired));
      KSNAP_RETURN_IF_ERROR(read_count(s["lines_added"], &st.lines_added));
      KSNAP_RETURN_IF_ERROR(read_count(s["lines_removed"], &st.lines_removed));
      u.stages.push_back(std::move(st));
    }
    r.variants.push_back(std::move(u));
  }
  const Node unpaired = root["unpaired"];
  KSNAP_RETURN_IF_ERROR(unpaired.expect_array());
  for (size_t i = 0; i < unpaired.size(); ++i) {
    UnpairedVariant u;
    KSNAP_RETURN_IF_ERROR(read_identity(unpaired[i], &u.variant));
    uint64_t run = 0;
    KSNAP_RETURN_IF_ERROR(unpaired[i]["run"].read(&run));
    u.run = static_cast<size_t>(run);
    r.unpaired.push_back(std::move(u));
  }
  return r;
}

bool same_variant_identity(const Variant& a, const Variant& b) {
  return a.kernel == b.kernel && capture::variant_text(a) == capture::variant_text(b) &&
         capture::compatible_sources(a, b);
}

size_t mark_unstable(const UnstableReport& r, UnstableMatch how, Build* b) {
  size_t marked = 0;
  for (Variant& v : b->variants) {
    for (const UnstableVariant& u : r.variants) {
      const Variant& w = u.variant;
      const bool match = how == UnstableMatch::kSameCapture
                             ? capture::same_kernel(w, v) && w.cache_dir == v.cache_dir
                             : same_variant_identity(w, v);
      if (!match) continue;
      for (const UnstableStage& s : u.stages) {
        auto at = std::lower_bound(v.unstable_stages.begin(), v.unstable_stages.end(), s.stage);
        if (at != v.unstable_stages.end() && *at == s.stage) continue;
        v.unstable_stages.insert(at, s.stage);
        ++marked;
      }
    }
  }
  return marked;
}

}  // namespace ksnap::build

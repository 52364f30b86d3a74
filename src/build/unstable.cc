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

#include "build/json_text.h"

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

/// Reads the identity fields of one entry; `what` names it in errors.
Status read_identity(const json& e, const std::string& file, uint32_t line, const std::string& what,
                     Variant* v) {
  auto bad = [&](const std::string& why) {
    return make_error(ErrorCode::kParseError, what + ": " + why, {file, line, 0});
  };
  if (!e.is_object()) return bad("not a JSON object");
  if (!e.contains("kernel") || !e["kernel"].is_string()) return bad("missing string \"kernel\"");
  v->kernel = e["kernel"].get<std::string>();
  for (auto [name, dst] : {std::pair{"qualname", &v->qualname},
                           std::pair{"source_file", &v->source_file}, std::pair{"key", &v->key},
                           std::pair{"signature", &v->signature},
                           std::pair{"cache_dir", &v->cache_dir}}) {
    if (!e.contains(name) || e[name].is_null()) continue;
    if (!e[name].is_string()) return bad(std::string("\"") + name + "\" is not a string");
    *dst = e[name].get<std::string>();
  }
  for (auto [name, dst] :
       {std::pair{"constexprs", &v->constexprs}, std::pair{"options", &v->options}}) {
    if (!e.contains(name)) continue;
    if (!e[name].is_object()) return bad(std::string("\"") + name + "\" is not an object");
    for (auto it = e[name].begin(); it != e[name].end(); ++it)
      (*dst)[it.key()] = python_json(it.value());
  }
  return Status::ok();
}

/// A line that names the entry's kernel (the first such), for messages.
uint32_t entry_line(std::string_view text, const json& e) {
  if (!e.is_object() || !e.contains("kernel") || !e["kernel"].is_string()) return 0;
  std::string needle = "\"";
  needle.append(e["kernel"].get<std::string>()).append("\"");
  return line_of(text, needle);
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
  KSNAP_ASSIGN_OR_RETURN(json j, parse_json(text, path));
  auto bad = [&](const std::string& why, std::string_view needle) {
    return make_error(ErrorCode::kParseError, why, {path, line_of(text, needle), 0});
  };
  if (!j.is_object()) return bad("unstable.json is not a JSON object", "");
  if (!j.contains("format") || !j["format"].is_string() ||
      j["format"].get<std::string>() != "ksnap-unstable")
    return bad("\"format\" is not \"ksnap-unstable\"", "\"format\"");
  if (!j.contains("format_version") || !j["format_version"].is_number_integer())
    return bad("\"format_version\" missing or not an integer", "\"format\"");
  const int64_t version = j["format_version"].get<int64_t>();
  if (version < 1 || version > kUnstableFormatVersion)
    return make_error(ErrorCode::kUnsupported,
                      "unstable.json format_version " + std::to_string(version) +
                          " is not one this ksnap reads (" +
                          std::to_string(kUnstableFormatVersion) + ")",
                      {path, line_of(text, "\"format_version\""), 0});
  UnstableReport r;
  if (j.contains("runs") && j["runs"].is_array())
    for (const auto& run : j["runs"])
      if (run.is_string()) r.runs.push_back(run.get<std::string>());
  for (auto [name, dst] : {std::pair{"variants_compared", &r.variants_compared},
                           std::pair{"stages_compared", &r.stages_compared}})
    if (j.contains(name) && j[name].is_number_unsigned())
      *dst = static_cast<uint32_t>(std::min<uint64_t>(j[name].get<uint64_t>(), UINT32_MAX));
  if (!j.contains("variants") || !j["variants"].is_array())
    return bad("no \"variants\" array", "");
  size_t index = 0;
  for (const json& e : j["variants"]) {
    const std::string what = "variants[" + std::to_string(index++) + "]";
    const uint32_t line = entry_line(text, e);
    UnstableVariant u;
    KSNAP_RETURN_IF_ERROR(read_identity(e, path, line, what, &u.variant));
    if (!e.contains("stages") || !e["stages"].is_array())
      return make_error(ErrorCode::kParseError, what + ": no \"stages\" array", {path, line, 0});
    for (const json& s : e["stages"]) {
      UnstableStage st;
      if (!s.is_object() || !s.contains("stage") || !s["stage"].is_string())
        return make_error(ErrorCode::kParseError, what + ": a stage without a string \"stage\"",
                          {path, line, 0});
      st.stage = s["stage"].get<std::string>();
      for (auto [name, dst] : {std::pair{"lines_added", &st.lines_added},
                               std::pair{"lines_removed", &st.lines_removed}})
        if (s.contains(name) && s[name].is_number_unsigned())
          *dst = static_cast<uint32_t>(std::min<uint64_t>(s[name].get<uint64_t>(), UINT32_MAX));
      u.stages.push_back(std::move(st));
    }
    r.variants.push_back(std::move(u));
  }
  if (j.contains("unpaired") && j["unpaired"].is_array()) {
    index = 0;
    for (const json& e : j["unpaired"]) {
      UnpairedVariant u;
      KSNAP_RETURN_IF_ERROR(read_identity(e, path, entry_line(text, e),
                                          "unpaired[" + std::to_string(index++) + "]",
                                          &u.variant));
      if (e.contains("run") && e["run"].is_number_unsigned()) u.run = e["run"].get<size_t>();
      r.unpaired.push_back(std::move(u));
    }
  }
  return r;
}

bool same_variant_identity(const Variant& a, const Variant& b) {
  if (a.kernel != b.kernel || a.signature != b.signature || a.id() != b.id()) return false;
  if (a.source() == b.source()) return true;
  std::vector<std::string> x = source_components(a), y = source_components(b);
  return x.empty() || y.empty() || common_source_suffix(x, y) > 0;
}

size_t mark_unstable(const UnstableReport& r, UnstableMatch how, Build* b) {
  size_t marked = 0;
  for (Variant& v : b->variants) {
    for (const UnstableVariant& u : r.variants) {
      const Variant& w = u.variant;
      const bool match = how == UnstableMatch::kSameCapture
                             ? w.kernel == v.kernel && w.cache_dir == v.cache_dir &&
                                   w.source() == v.source()
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

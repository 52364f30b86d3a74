#include "ksnap/tune/capture.h"

#include <nlohmann/json.hpp>
#include <set>

#include "ksnap/support/file.h"
#include "tune/json_util.h"

namespace ksnap::tune {

namespace {

using nlohmann::json;

int64_t int_or(const json& j, const char* k, int64_t dflt) {
  if (!j.contains(k)) return dflt;
  const json& v = j[k];
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_boolean()) return v.get<bool>();
  return dflt;
}

void int_map(const json& j, std::map<std::string, int64_t>& out) {
  if (!j.is_object()) return;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.value().is_number_integer()) out[it.key()] = it.value().get<int64_t>();
    if (it.value().is_boolean()) out[it.key()] = it.value().get<bool>();
  }
}

std::string label_of(const CapturedVariant& v, const json& constexprs, const json& options) {
  std::string out;
  auto add = [&](const json& obj) {
    if (!obj.is_object()) return;
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      if (!out.empty()) out += ",";
      out += it.key() + "=" + (it.value().is_string() ? it.value().get<std::string>() : it.value().dump());
    }
  };
  add(constexprs);
  add(options);
  return out.empty() ? v.kernel + "@" + v.cache_dir : out;
}

}  // namespace

Expected<TritonLaunchMeta> parse_triton_meta(std::string_view text, const std::string& name) {
  KSNAP_ASSIGN_OR_RETURN(json j, detail::parse_json(text, name));
  if (!j.is_object() || !j.contains("name") || !j["name"].is_string())
    return detail::json_error(text, name, "", "Triton metadata has no kernel \"name\"");
  TritonLaunchMeta m;
  m.name = j["name"];
  m.num_warps = static_cast<int>(int_or(j, "num_warps", 4));
  m.num_ctas = static_cast<int>(int_or(j, "num_ctas", 1));
  m.shared = int_or(j, "shared", 0);
  m.global_scratch_size = int_or(j, "global_scratch_size", 0);
  m.global_scratch_align = int_or(j, "global_scratch_align", 1);
  m.profile_scratch_size = int_or(j, "profile_scratch_size", 0);
  m.profile_scratch_align = int_or(j, "profile_scratch_align", 1);
  m.launch_cooperative_grid = int_or(j, "launch_cooperative_grid", 0) != 0;
  m.launch_pdl = int_or(j, "launch_pdl", 0) != 0;
  m.threads_per_warp = static_cast<int>(int_or(j, "warp_size", 32));
  if (j.contains("arch") && j["arch"].is_string()) m.arch = j["arch"];
  if (j.contains("cluster_dims") && j["cluster_dims"].is_array()) {
    for (size_t i = 0; i < 3 && i < j["cluster_dims"].size(); ++i)
      if (j["cluster_dims"][i].is_number_integer()) m.cluster_dims[i] = j["cluster_dims"][i].get<int>();
  }
  if (m.num_warps <= 0 || m.num_warps > 32 || m.num_ctas <= 0 || m.shared < 0 ||
      m.global_scratch_size < 0 || m.profile_scratch_size < 0)
    return detail::json_error(text, name, "\"num_warps\"", "Triton metadata has out-of-range launch fields");
  return m;
}

Expected<std::vector<CapturedVariant>> load_capture_kernel(const std::string& capture_dir,
                                                           const std::string& kernel,
                                                           bool read_cubins) {
  const std::string mpath = capture_dir + "/manifest.json";
  KSNAP_ASSIGN_OR_RETURN(TextBuffer mtext, read_text_file(mpath));
  KSNAP_ASSIGN_OR_RETURN(json m, detail::parse_json(mtext.view(), mpath));
  if (!m.is_object() || !m.contains("entries") || !m["entries"].is_array())
    return detail::json_error(mtext.view(), mpath, "", "capture manifest has no \"entries\" array");
  if (m.contains("format") && m["format"] != "ksnap-capture")
    return detail::json_error(mtext.view(), mpath, "\"format\"", "not a ksnap capture manifest");
  std::vector<CapturedVariant> out;
  std::set<std::string> kernels;
  for (const auto& e : m["entries"]) {
    if (!e.is_object() || !e.contains("kernel") || !e["kernel"].is_string() ||
        !e.contains("cache_dir") || !e["cache_dir"].is_string())
      return detail::json_error(mtext.view(), mpath, "\"entries\"",
                                "a manifest entry lacks \"kernel\" or \"cache_dir\"");
    std::string k = e["kernel"];
    kernels.insert(k);
    if (k != kernel) continue;
    CapturedVariant v;
    v.kernel = k;
    v.cache_dir = e["cache_dir"];
    json cx = e.value("constexprs", json::object());
    json op = e.value("options", json::object());
    int_map(cx, v.constexprs);
    int_map(op, v.options);
    v.label = label_of(v, cx, op);
    const std::string base = capture_dir + "/cache/" + v.cache_dir + "/" + k;
    KSNAP_ASSIGN_OR_RETURN(TextBuffer meta_text, read_text_file(base + ".json"));
    KSNAP_ASSIGN_OR_RETURN(v.meta, parse_triton_meta(meta_text.view(), base + ".json"));
    if (read_cubins) {
      auto bin = read_binary_file(base + ".cubin");
      if (!bin)
        return make_error(ErrorCode::kNotFound,
                          "variant " + v.label + " has no cubin: " + bin.status().message(),
                          {base + ".cubin", 0, 0});
      v.cubin = std::move(*bin);
    }
    out.push_back(std::move(v));
  }
  if (out.empty()) {
    std::string list;
    for (const auto& k : kernels) list += (list.empty() ? "" : ", ") + k;
    return make_error(ErrorCode::kNotFound,
                      "capture has no kernel '" + kernel + "' (it has: " + list + ")", {mpath, 0, 0});
  }
  return out;
}

}  // namespace ksnap::tune

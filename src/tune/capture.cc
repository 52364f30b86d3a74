#include "ksnap/tune/capture.h"

#include <set>

#include "ksnap/support/file.h"
#include "ksnap/support/json.h"
#include "ksnap/support/path_guard.h"

namespace ksnap::tune {

namespace {

/// An integer (or boolean, as 0/1) field within [lo, hi]; `dflt` when absent or null.
Status read_int(const json::Node& j, const char* key, int64_t lo, int64_t hi, int64_t dflt,
                int64_t* out) {
  json::Node n = j[key];
  *out = dflt;
  if (n.present() && n.value().is_boolean()) {
    *out = n.value().get<bool>();
  } else {
    KSNAP_RETURN_IF_ERROR(n.read(out));
  }
  if (*out < lo || *out > hi)
    return n.error(std::string("Triton metadata has out-of-range launch field \"") + key +
                   "\": " + std::to_string(*out) + " (expected " + std::to_string(lo) + ".." +
                   std::to_string(hi) + ")");
  return Status::ok();
}

void int_map(const json::Value& j, std::map<std::string, int64_t>& out) {
  if (!j.is_object()) return;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const json::Value& v = it.value();
    if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t{INT64_MAX}) continue;
    if (v.is_number_integer()) out[it.key()] = v.get<int64_t>();
    if (v.is_boolean()) out[it.key()] = v.get<bool>();
  }
}

std::string label_of(const CapturedVariant& v, const json::Value& constexprs,
                     const json::Value& options) {
  std::string out;
  auto add = [&](const json::Value& obj) {
    if (!obj.is_object()) return;
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      if (!out.empty()) out += ",";
      out += it.key() + "=" +
             (it.value().is_string() ? it.value().get<std::string>() : json::dump(it.value()));
    }
  };
  add(constexprs);
  add(options);
  return out.empty() ? v.kernel + "@" + v.cache_dir : out;
}

/// A guarded file of the capture, located at its path when missing.
Expected<std::string> capture_file(PathGuard& guard, const std::string& rel) {
  auto p = guard.resolve(rel, PathGuard::kFile);
  if (!p)
    return make_error(p.status().code(), p.status().message(), {guard.root() + "/" + rel, 0, 0});
  return p;
}

}  // namespace

Expected<TritonLaunchMeta> parse_triton_meta(std::string_view text, const std::string& name) {
  KSNAP_ASSIGN_OR_RETURN(json::Document doc, json::Document::parse(text, name));
  json::Node j = doc.root();
  if (!j["name"].is_string()) return j.error("Triton metadata has no kernel \"name\"");
  TritonLaunchMeta m;
  KSNAP_RETURN_IF_ERROR(j["name"].read(&m.name));
  constexpr int64_t kBig = int64_t{1} << 40;
  int64_t x = 0;
  KSNAP_RETURN_IF_ERROR(read_int(j, "num_warps", 1, 32, 4, &x));
  m.num_warps = static_cast<int>(x);
  KSNAP_RETURN_IF_ERROR(read_int(j, "num_ctas", 1, 1024, 1, &x));
  m.num_ctas = static_cast<int>(x);
  KSNAP_RETURN_IF_ERROR(read_int(j, "shared", 0, kBig, 0, &m.shared));
  KSNAP_RETURN_IF_ERROR(read_int(j, "global_scratch_size", 0, kBig, 0, &m.global_scratch_size));
  KSNAP_RETURN_IF_ERROR(read_int(j, "global_scratch_align", 1, kBig, 1, &m.global_scratch_align));
  KSNAP_RETURN_IF_ERROR(read_int(j, "profile_scratch_size", 0, kBig, 0, &m.profile_scratch_size));
  KSNAP_RETURN_IF_ERROR(read_int(j, "profile_scratch_align", 1, kBig, 1, &m.profile_scratch_align));
  KSNAP_RETURN_IF_ERROR(read_int(j, "launch_cooperative_grid", 0, 1, 0, &x));
  m.launch_cooperative_grid = x != 0;
  KSNAP_RETURN_IF_ERROR(read_int(j, "launch_pdl", 0, 1, 0, &x));
  m.launch_pdl = x != 0;
  KSNAP_RETURN_IF_ERROR(read_int(j, "warp_size", 1, 1024, 32, &x));
  m.threads_per_warp = static_cast<int>(x);
  KSNAP_RETURN_IF_ERROR(j["arch"].read(&m.arch));
  json::Node dims = j["cluster_dims"];
  KSNAP_RETURN_IF_ERROR(dims.expect_array());
  for (size_t i = 0; i < 3 && i < dims.size(); ++i) {
    int32_t d = 1;
    KSNAP_RETURN_IF_ERROR(dims[i].read(&d));
    if (d < 1) return dims[i].error("cluster dimension must be at least 1");
    m.cluster_dims[i] = d;
  }
  return m;
}

Expected<std::vector<CapturedVariant>> load_capture_kernel(const std::string& capture_dir,
                                                           const std::string& kernel,
                                                           bool read_cubins) {
  using json::Need;
  const std::string mpath = capture_dir + "/manifest.json";
  KSNAP_ASSIGN_OR_RETURN(TextBuffer mtext, read_text_file(mpath));
  KSNAP_ASSIGN_OR_RETURN(json::Document doc, json::Document::parse(mtext.view(), mpath));
  json::Node m = doc.root();
  if (!m["entries"].is_array()) return m.error("capture manifest has no \"entries\" array");
  std::string format = "ksnap-capture";
  KSNAP_RETURN_IF_ERROR(m["format"].read(&format));
  if (format != "ksnap-capture") return m["format"].error("not a ksnap capture manifest");
  PathGuard guard(capture_dir);
  std::vector<CapturedVariant> out;
  std::set<std::string> kernels;
  for (size_t i = 0; i < m["entries"].size(); ++i) {
    json::Node e = m["entries"][i];
    KSNAP_RETURN_IF_ERROR(e.expect_object(Need::kRequired));
    CapturedVariant v;
    KSNAP_RETURN_IF_ERROR(e["kernel"].read(&v.kernel, Need::kRequired));
    KSNAP_RETURN_IF_ERROR(e["cache_dir"].read(&v.cache_dir, Need::kRequired));
    kernels.insert(v.kernel);
    if (v.kernel != kernel) continue;
    if (!is_plain_name(v.cache_dir) || !is_plain_name(v.kernel))
      return e["cache_dir"].error("\"cache_dir\" and \"kernel\" must each be one plain name",
                                  ErrorCode::kInvalidArgument);
    const json::Value empty = json::Value::object();
    const json::Value& cx = e["constexprs"].present() ? e["constexprs"].value() : empty;
    const json::Value& op = e["options"].present() ? e["options"].value() : empty;
    KSNAP_RETURN_IF_ERROR(e["constexprs"].expect_object());
    KSNAP_RETURN_IF_ERROR(e["options"].expect_object());
    int_map(cx, v.constexprs);
    int_map(op, v.options);
    v.label = label_of(v, cx, op);
    const std::string base = "cache/" + v.cache_dir + "/" + v.kernel;
    KSNAP_ASSIGN_OR_RETURN(std::string meta_path, capture_file(guard, base + ".json"));
    KSNAP_ASSIGN_OR_RETURN(TextBuffer meta_text, read_text_file(meta_path));
    KSNAP_ASSIGN_OR_RETURN(v.meta, parse_triton_meta(meta_text.view(), meta_path));
    if (read_cubins) {
      auto cubin = capture_file(guard, base + ".cubin");
      auto bin = cubin ? read_binary_file(*cubin) : Expected<std::string>(cubin.status());
      if (!bin)
        return make_error(bin.status().code() == ErrorCode::kInvalidArgument
                              ? ErrorCode::kInvalidArgument
                              : ErrorCode::kNotFound,
                          "variant " + v.label + " has no cubin: " + bin.status().message(),
                          {capture_dir + "/" + base + ".cubin", 0, 0});
      v.cubin = std::move(*bin);
    }
    out.push_back(std::move(v));
  }
  if (out.empty()) {
    std::string list;
    for (const auto& k : kernels) list += (list.empty() ? "" : ", ") + k;
    return make_error(ErrorCode::kNotFound,
                      "capture has no kernel '" + kernel + "' (it has: " + list + ")",
                      {mpath, 0, 0});
  }
  return out;
}

}  // namespace ksnap::tune

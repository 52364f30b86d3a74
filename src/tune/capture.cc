#include "ksnap/tune/capture.h"

#include <set>

#include "ksnap/capture/manifest.h"
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

/// The integer (and boolean, as 0/1) values of a map of JSON texts.
void int_map(const std::map<std::string, std::string>& texts, std::map<std::string, int64_t>& out) {
  for (const auto& [name, text] : texts) {
    const json::Value v = json::parse_or_string(text);
    if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t{INT64_MAX}) continue;
    if (v.is_number_integer()) out[name] = v.get<int64_t>();
    if (v.is_boolean()) out[name] = v.get<bool>();
  }
}

/// "BLOCK_SIZE_M=128,...,num_warps=8": constexprs then options, sorted by
/// name; string values bare, others as compact JSON.
std::string label_of(const CapturedVariant& v) {
  std::string out;
  for (const auto* kv : {&v.identity.constexprs, &v.identity.options}) {
    for (const auto& [name, text] : *kv) {
      const json::Value val = json::parse_or_string(text);
      if (!out.empty()) out += ",";
      out += name + "=" + (val.is_string() ? val.get<std::string>() : json::dump(val));
    }
  }
  return out.empty() ? v.kernel + "@" + v.cache_dir : out;
}

/// The capture's kernels, in order of first entry, with the entries of each.
struct KernelGroups {
  std::vector<CapturedKernel> kernels;
  std::vector<std::vector<size_t>> entries;  ///< Per kernel: indices into the manifest.
};

KernelGroups group_kernels(const capture::Manifest& m) {
  KernelGroups g;
  std::map<std::string, size_t> index;  // capture::kernel_text -> kernels[i]
  std::vector<capture::KernelSource> sources;
  for (size_t i = 0; i < m.entries.size(); ++i) {
    const capture::VariantKey& k = m.entries[i].key;
    auto [it, fresh] = index.emplace(capture::kernel_text(k), g.kernels.size());
    if (fresh) {
      g.kernels.push_back({k.kernel, k.source(), k.source_kind(), k.kernel, 0});
      g.entries.emplace_back();
      sources.push_back({k.kernel, k.source(), &k});
    }
    ++g.kernels[it->second].variants;
    g.entries[it->second].push_back(i);
  }
  const auto tails = capture::kernel_source_tails(sources);
  for (CapturedKernel& k : g.kernels) {
    auto it = tails.find({k.kernel, k.source});
    if (it != tails.end()) k.selector = k.kernel + "@" + (k.source.empty() ? "" : it->second);
  }
  return g;
}

/// "matmul_kernel@a.py (/ci/a.py, 3 variants)".
std::string describe(const CapturedKernel& k) {
  return k.selector + " (" + (k.source.empty() ? "source unknown" : k.source) + ", " +
         std::to_string(k.variants) + (k.variants == 1 ? " variant)" : " variants)");
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
    // CUDA thread-block clusters hold at most 16 blocks (8 portably).
    if (d < 1 || d > 16) return dims[i].error("cluster dimension must be 1 to 16");
    m.cluster_dims[i] = d;
  }
  return m;
}

Expected<std::vector<CapturedKernel>> list_capture_kernels(const std::string& capture_dir) {
  KSNAP_ASSIGN_OR_RETURN(capture::Manifest m, capture::read_manifest(capture_dir));
  return group_kernels(m).kernels;
}

Expected<std::vector<CapturedVariant>> load_capture_kernel(const std::string& capture_dir,
                                                           const std::string& selector,
                                                           bool read_cubins) {
  KSNAP_ASSIGN_OR_RETURN(capture::Manifest m, capture::read_manifest(capture_dir));
  const KernelGroups groups = group_kernels(m);
  const size_t at = selector.find('@');
  const std::string name = selector.substr(0, at);
  const std::string tail = at == std::string::npos ? "" : selector.substr(at + 1);
  std::vector<size_t> matches;
  for (size_t g = 0; g < groups.kernels.size(); ++g) {
    const CapturedKernel& k = groups.kernels[g];
    if (k.kernel != name) continue;
    // The selector a listing printed picks its kernel, whatever the tail rule says.
    if (selector == k.selector ||
        (at == std::string::npos ? true
                                 : capture::source_has_tail(m.entries[groups.entries[g][0]].key, tail)))
      matches.push_back(g);
  }
  if (matches.size() > 1) {
    for (size_t g : matches)
      if (groups.kernels[g].selector == selector) matches = {g};
  }
  if (matches.empty()) {
    std::string list;
    std::set<std::string> seen;
    for (const CapturedKernel& k : groups.kernels)
      if (seen.insert(k.selector).second) list += (list.empty() ? "" : ", ") + k.selector;
    return make_error(ErrorCode::kNotFound,
                      "capture has no kernel '" + selector + "' (it has: " + list + ")",
                      {m.file, 0, 0});
  }
  if (matches.size() > 1) {
    std::string list;
    for (size_t g : matches) list += (list.empty() ? "" : ", ") + describe(groups.kernels[g]);
    return make_error(ErrorCode::kInvalidArgument,
                      "kernel '" + selector + "' is defined in " + std::to_string(matches.size()) +
                          " places in this capture, each its own autotune group: " + list +
                          "; name one as NAME@SOURCE (a trailing part of its path or module)",
                      {m.file, 0, 0});
  }
  PathGuard guard(capture_dir);
  std::vector<CapturedVariant> out;
  for (size_t i : groups.entries[matches[0]]) {
    const capture::ManifestEntry& e = m.entries[i];
    CapturedVariant v;
    v.kernel = e.key.kernel;
    v.identity = e.key;
    v.cache_dir = e.cache_dir;
    if (!is_plain_name(v.kernel))
      return m.entry_error(i, "kernel", "\"kernel\" must be one plain name",
                           ErrorCode::kInvalidArgument);
    int_map(v.identity.constexprs, v.constexprs);
    int_map(v.identity.options, v.options);
    v.label = label_of(v);
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
  return out;
}

}  // namespace ksnap::tune

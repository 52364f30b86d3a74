// Loads a ksnap capture folder: manifest.json beside Triton's cache/ folder
// (docs/capture-format.md). Manifests written before the format field
// existed (the shared corpus) load as format_version 0.
#include <dirent.h>

#include "build/json_text.h"
#include "build/metadata.h"
#include "ksnap/build/build.h"
#include "ksnap/build/unstable.h"

namespace ksnap::build {

namespace {

std::string value_text(const nlohmann::json& v) { return python_json(v); }

Status entry_error(const std::string& file, std::string_view text, size_t index,
                   std::string_view needle, const std::string& what) {
  uint32_t line = needle.empty() ? 0 : line_of(text, needle);
  return make_error(ErrorCode::kParseError,
                    "manifest entry " + std::to_string(index) + ": " + what,
                    SourceLocation{file, line, 0});
}

}  // namespace

Expected<Build> load_capture(const std::string& dir) {
  const std::string manifest_path = dir + "/manifest.json";
  KSNAP_ASSIGN_OR_RETURN(TextBuffer buf, read_text_file(manifest_path));
  KSNAP_ASSIGN_OR_RETURN(nlohmann::json m, parse_json(buf.view(), manifest_path));
  if (!m.is_object())
    return make_error(ErrorCode::kParseError, "manifest is not a JSON object",
                      {manifest_path, 1, 1});
  Build b;
  b.root = dir;
  b.kind = BuildKind::kCapture;
  if (m.contains("format")) {
    if (!m["format"].is_string() || m["format"].get<std::string>() != "ksnap-capture")
      return make_error(ErrorCode::kUnsupported,
                        "\"format\" is " + m["format"].dump() + ", expected \"ksnap-capture\"",
                        {manifest_path, line_of(buf.view(), "\"format\""), 0});
    if (!m.contains("format_version") || !m["format_version"].is_number_integer())
      return make_error(ErrorCode::kParseError, "\"format_version\" missing or not an integer",
                        {manifest_path, line_of(buf.view(), "\"format\""), 0});
    b.format_version = m["format_version"].get<int>();
    if (b.format_version < 1 || b.format_version > kCaptureFormatVersion)
      return make_error(ErrorCode::kUnsupported,
                        "capture format_version " + std::to_string(b.format_version) +
                            " is newer than this ksnap reads (" +
                            std::to_string(kCaptureFormatVersion) + ")",
                        {manifest_path, line_of(buf.view(), "\"format_version\""), 0});
  }
  std::string base = dir;
  size_t slash = base.find_last_not_of('/');
  base = base.substr(0, slash + 1);
  b.name = base.substr(base.rfind('/') + 1);
  if (m.contains("build") && m["build"].is_string()) b.name = m["build"].get<std::string>();
  if (m.contains("triton_version") && m["triton_version"].is_string())
    b.triton_version = m["triton_version"].get<std::string>();
  if (m.contains("arch") && m["arch"].is_string()) b.arch = m["arch"].get<std::string>();
  if (!m.contains("entries") || !m["entries"].is_array())
    return make_error(ErrorCode::kParseError, "manifest has no \"entries\" array",
                      {manifest_path, 1, 1});

  size_t index = 0;
  for (const nlohmann::json& e : m["entries"]) {
    if (!e.is_object())
      return entry_error(manifest_path, buf.view(), index, "", "not a JSON object");
    Variant v;
    if (!e.contains("kernel") || !e["kernel"].is_string())
      return entry_error(manifest_path, buf.view(), index, "", "missing string \"kernel\"");
    v.kernel = e["kernel"].get<std::string>();
    if (e.contains("key") && e["key"].is_string()) {
      v.key = e["key"].get<std::string>();
      size_t close = v.key.find("]{");
      v.signature = close == std::string::npos ? v.key : v.key.substr(0, close + 1);
    }
    for (const char* field : {"constexprs", "options"}) {
      if (!e.contains(field)) continue;
      if (!e[field].is_object())
        return entry_error(manifest_path, buf.view(), index, "",
                           std::string("\"") + field + "\" is not an object");
      auto& dst = std::string(field) == "constexprs" ? v.constexprs : v.options;
      for (auto it = e[field].begin(); it != e[field].end(); ++it)
        dst[it.key()] = value_text(it.value());
    }
    if (e.contains("qualname") && e["qualname"].is_string())
      v.qualname = e["qualname"].get<std::string>();
    if (e.contains("source_file") && e["source_file"].is_string())
      v.source_file = e["source_file"].get<std::string>();
    if (e.contains("source_line") && e["source_line"].is_number_integer())
      v.source_line = e["source_line"].get<int32_t>();
    if (e.contains("benchmark")) {
      const auto& bm = e["benchmark"];
      if (bm.is_string()) v.benchmark_script = bm.get<std::string>();
      if (bm.is_object()) {
        if (bm.contains("script") && bm["script"].is_string())
          v.benchmark_script = bm["script"].get<std::string>();
        if (bm.contains("points") && bm["points"].is_array())
          for (const auto& p : bm["points"])
            v.benchmark_points.push_back(p.is_string() ? p.get<std::string>() : python_json(p));
      }
    }
    for (const char* r : {"n_regs", "n_spills", "shared", "n_max_threads"}) {
      if (e.contains(r) && e[r].is_number_integer()) v.resources[r] = e[r].get<int64_t>();
    }
    if (!e.contains("cache_dir") || !e["cache_dir"].is_string())
      return entry_error(manifest_path, buf.view(), index, "\"kernel\": \"" + v.kernel,
                         "missing string \"cache_dir\"");
    v.cache_dir = e["cache_dir"].get<std::string>();
    const std::string vdir = dir + "/cache/" + v.cache_dir;
    if (!is_directory(vdir))
      return entry_error(manifest_path, buf.view(), index, v.cache_dir,
                         "cache folder " + vdir + " does not exist");
    if (e.contains("stages") && e["stages"].is_object()) {
      for (auto it = e["stages"].begin(); it != e["stages"].end(); ++it) {
        if (!it.value().is_string()) continue;
        StageFile f{it.key(), dir + "/" + it.value().get<std::string>(), nullptr};
        if (!is_regular_file(f.path))
          return entry_error(manifest_path, buf.view(), index, it.value().get<std::string>(),
                             "stage file " + f.path + " does not exist");
        if (stage_rank(f.stage) >= 0) v.stages.push_back(f);
        else v.binaries.push_back(f);
      }
    } else {
      collect_stage_files(vdir, v.kernel, &v);
    }
    v.move_binary_stages();
    if (v.stages.empty())
      return entry_error(manifest_path, buf.view(), index, v.cache_dir,
                         "no IR stage files for " + v.kernel + " in " + vdir);
    sort_stages(&v);
    KSNAP_RETURN_IF_ERROR(read_metadata(vdir + "/" + v.kernel + ".json", &v));
    b.variants.push_back(std::move(v));
    ++index;
  }
  // Compiler nondeterminism found by `ksnap capture --repeat` (unstable.h).
  if (is_regular_file(dir + "/unstable.json")) {
    KSNAP_ASSIGN_OR_RETURN(UnstableReport u, read_unstable(dir + "/unstable.json"));
    mark_unstable(u, UnstableMatch::kSameCapture, &b);
  }
  return b;
}

Expected<Build> load_build(const std::string& path) {
  if (!is_directory(path)) {
    if (is_regular_file(path))
      return make_error(ErrorCode::kInvalidArgument,
                        "expected a build folder (capture or Triton cache), got a file",
                        {path, 0, 0});
    return make_error(ErrorCode::kNotFound, "no such build folder", {path, 0, 0});
  }
  if (is_regular_file(path + "/manifest.json")) return load_capture(path);
  return load_triton_cache(path);
}

}  // namespace ksnap::build

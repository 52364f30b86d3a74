// Loads a ksnap capture folder: manifest.json beside Triton's cache/ folder
// (docs/capture-format.md). Manifests written before the format field
// existed (the shared corpus) load as format_version 0.
//
// The manifest is untrusted (docs/hostile-input.md): every field is type
// checked with a located error, and every path it names (cache_dir, stage
// paths, `<kernel>.json`) is confined to the capture folder by a PathGuard.
#include "build/json_text.h"
#include "build/metadata.h"
#include "ksnap/build/build.h"
#include "ksnap/build/unstable.h"
#include "ksnap/support/path_guard.h"

namespace ksnap::build {

namespace {

/// `what` about manifest entry `index`, located at `at`; `code` from a guard.
Status entry_error(const json::Node& at, size_t index, const std::string& what,
                   ErrorCode code = ErrorCode::kParseError) {
  return at.error("manifest entry " + std::to_string(index) + ": " + what, code);
}

/// A guarded path's error, told about entry `index` at `at`.
Status path_error(const json::Node& at, size_t index, const Status& s) {
  return entry_error(at, index, s.message(), s.code());
}

/// Reads one manifest entry (everything but the files it names).
Status read_entry_fields(const json::Node& e, Variant* v) {
  using json::Need;
  KSNAP_RETURN_IF_ERROR(e.expect_object(Need::kRequired));
  KSNAP_RETURN_IF_ERROR(e["kernel"].read(&v->kernel, Need::kRequired));
  KSNAP_RETURN_IF_ERROR(e["key"].read(&v->key));
  if (!v->key.empty()) {
    size_t close = v->key.find("]{");
    v->signature = close == std::string::npos ? v->key : v->key.substr(0, close + 1);
  }
  KSNAP_RETURN_IF_ERROR(read_python_json_map(e["constexprs"], &v->constexprs));
  KSNAP_RETURN_IF_ERROR(read_python_json_map(e["options"], &v->options));
  KSNAP_RETURN_IF_ERROR(e["qualname"].read(&v->qualname));
  KSNAP_RETURN_IF_ERROR(e["source_file"].read(&v->source_file));
  KSNAP_RETURN_IF_ERROR(e["source_line"].read(&v->source_line));
  json::Node bm = e["benchmark"];
  if (bm.is_string()) {
    KSNAP_RETURN_IF_ERROR(bm.read(&v->benchmark_script));
  } else {
    KSNAP_RETURN_IF_ERROR(bm.expect_object());
    KSNAP_RETURN_IF_ERROR(bm["script"].read(&v->benchmark_script));
    KSNAP_RETURN_IF_ERROR(bm["points"].expect_array());
    for (size_t i = 0; i < bm["points"].size(); ++i) {
      const json::Value& p = bm["points"][i].value();
      v->benchmark_points.push_back(p.is_string() ? p.get<std::string>() : python_json(p));
    }
  }
  for (const char* r : {"n_regs", "n_spills", "shared", "n_max_threads"}) {
    int64_t n = 0;
    KSNAP_RETURN_IF_ERROR(e[r].read(&n));
    if (e[r].present() && !e[r].value().is_null()) v->resources[r] = n;
  }
  return e["cache_dir"].read(&v->cache_dir, Need::kRequired);
}

/// Finds the variant's files: the manifest's "stages" when given, else
/// `<kernel>.<stage>` in its cache folder; then its `<kernel>.json`.
Status read_entry_files(const json::Node& e, size_t index, PathGuard& guard, Variant* v) {
  // Triton names each folder by a hash: one plain name, never a path.
  const std::string& cd = v->cache_dir;
  if (!is_plain_name(cd))
    return entry_error(
        e["cache_dir"], index,
        "\"cache_dir\" " + json::dump(json::text(cd)) + " is not one folder name under cache/",
        ErrorCode::kInvalidArgument);
  const std::string vdir = "cache/" + cd;
  auto vpath = guard.resolve(vdir, PathGuard::kDirectory);
  if (!vpath) return path_error(e["cache_dir"], index, vpath.status());
  json::Node stages = e["stages"];
  KSNAP_RETURN_IF_ERROR(stages.expect_object());
  if (stages.is_object()) {
    for (auto it = stages.value().begin(); it != stages.value().end(); ++it) {
      json::Node s = stages[it.key()];
      std::string rel;
      KSNAP_RETURN_IF_ERROR(s.read(&rel, json::Need::kRequired));
      auto p = guard.resolve(rel, PathGuard::kFile);
      if (!p) return path_error(s, index, p.status());
      StageFile f{it.key(), std::move(*p), nullptr};
      if (stage_rank(f.stage) >= 0) {
        v->stages.push_back(std::move(f));
      } else {
        v->binaries.push_back(std::move(f));
      }
    }
  } else {
    Status st = collect_stage_files(guard, vdir, v->kernel, v);
    if (!st.is_ok()) return path_error(e["kernel"], index, st);
  }
  v->move_binary_stages();
  if (v->stages.empty())
    return entry_error(e["cache_dir"], index,
                       "no IR stage files for " + v->kernel + " in " + *vpath);
  sort_stages(v);
  // "metadata" names the same `<kernel>.json` read below; a path there that
  // leaves the capture is refused like any other (an absent file is fine).
  std::string meta_rel;
  KSNAP_RETURN_IF_ERROR(e["metadata"].read(&meta_rel));
  if (!meta_rel.empty()) {
    auto m = guard.resolve(meta_rel, PathGuard::kFile);
    if (!m && m.status().code() != ErrorCode::kNotFound)
      return path_error(e["metadata"], index, m.status());
  }
  Status st = read_metadata(guard, vdir + "/" + v->kernel + ".json", v);
  if (!st.is_ok() && st.location().file == guard.root()) return path_error(e["kernel"], index, st);
  return st;
}

}  // namespace

Expected<Build> load_capture(const std::string& dir) {
  using json::Need;
  const std::string manifest_path = dir + "/manifest.json";
  KSNAP_ASSIGN_OR_RETURN(TextBuffer buf, read_text_file(manifest_path));
  KSNAP_ASSIGN_OR_RETURN(json::Document doc, json::Document::parse(buf.view(), manifest_path));
  json::Node m = doc.root();
  if (!m.is_object())
    return make_error(ErrorCode::kParseError, "manifest is not a JSON object",
                      {manifest_path, 1, 1});
  Build b;
  b.root = dir;
  b.kind = BuildKind::kCapture;
  if (m["format"].present()) {
    std::string format;
    KSNAP_RETURN_IF_ERROR(m["format"].read(&format, Need::kRequired));
    if (format != "ksnap-capture")
      return m["format"].error(
          "\"format\" is " + json::dump(json::text(format)) + ", expected \"ksnap-capture\"",
          ErrorCode::kUnsupported);
    KSNAP_RETURN_IF_ERROR(m["format_version"].read(&b.format_version, Need::kRequired));
    if (b.format_version < 1 || b.format_version > kCaptureFormatVersion)
      return m["format_version"].error(
          "capture format_version " + std::to_string(b.format_version) +
              " is newer than this ksnap reads (" + std::to_string(kCaptureFormatVersion) + ")",
          ErrorCode::kUnsupported);
  }
  std::string base = dir;
  size_t slash = base.find_last_not_of('/');
  base = base.substr(0, slash + 1);
  b.name = base.substr(base.rfind('/') + 1);
  KSNAP_RETURN_IF_ERROR(m["build"].read(&b.name));
  KSNAP_RETURN_IF_ERROR(m["triton_version"].read(&b.triton_version));
  KSNAP_RETURN_IF_ERROR(m["arch"].read(&b.arch));
  json::Node entries = m["entries"];
  if (!entries.is_array())
    return make_error(ErrorCode::kParseError, "manifest has no \"entries\" array",
                      {manifest_path, 1, 1});

  PathGuard guard(dir);
  for (size_t index = 0; index < entries.size(); ++index) {
    json::Node e = entries[index];
    Variant v;
    KSNAP_RETURN_IF_ERROR(read_entry_fields(e, &v));
    KSNAP_RETURN_IF_ERROR(read_entry_files(e, index, guard, &v));
    b.variants.push_back(std::move(v));
  }
  // Compiler nondeterminism found by `ksnap capture --repeat` (unstable.h).
  // Confined like every file of the capture: a link out of it is an error.
  auto unstable = guard.resolve("unstable.json", PathGuard::kFile);
  if (!unstable && unstable.status().code() != ErrorCode::kNotFound)
    return make_error(unstable.status().code(), unstable.status().message(), {dir, 0, 0});
  if (unstable) {
    KSNAP_ASSIGN_OR_RETURN(UnstableReport u, read_unstable(*unstable));
    mark_unstable(u, UnstableMatch::kSameCapture, &b);
  }
  // What `ksnap recompile` into this capture failed to rebuild
  // (recompile_report.cc): reported as not rebuilt, never as removed.
  auto recompiled = guard.resolve("recompile.json", PathGuard::kFile);
  if (!recompiled && recompiled.status().code() != ErrorCode::kNotFound)
    return make_error(recompiled.status().code(), recompiled.status().message(), {dir, 0, 0});
  if (recompiled) {
    KSNAP_ASSIGN_OR_RETURN(b.not_rebuilt, read_recompile_report(*recompiled));
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

// Loads a ksnap capture folder: manifest.json beside Triton's cache/ folder
// (docs/capture-format.md). Manifests written before the format field
// existed (the shared corpus) load as format_version 0.
//
// The manifest is untrusted (docs/hostile-input.md): capture::read_manifest
// type checks every field with a located error, and every path it names
// (cache_dir, stage paths, `<kernel>.json`) is confined to the capture folder
// here by a PathGuard; a bad one is reported at the field that named it.
#include "build/metadata.h"
#include "ksnap/build/build.h"
#include "ksnap/build/unstable.h"
#include "ksnap/support/path_guard.h"

namespace ksnap::build {

namespace {

/// A guarded path's error, told about entry `index` at its `field`.
Status path_error(const capture::Manifest& m, size_t index, std::string_view field,
                  const Status& s, std::string_view stage = {}) {
  return m.entry_error(index, field, s.message(), s.code(), stage);
}

/// The variant of a manifest entry: its identity and what the
/// manifest records (capture::read_manifest checked every field). Moves
/// them out of the entry (a suite's entries and variants are not held
/// twice); the entry keeps what read_entry_files reads (cache_dir, stages).
Variant variant_of(capture::ManifestEntry& e) {
  Variant v;
  static_cast<capture::VariantKey&>(v) = std::move(e.key);
  v.cache_dir = e.cache_dir;
  v.source_line = e.source_line;
  v.benchmark_script = std::move(e.benchmark_script);
  v.benchmark_points = std::move(e.benchmark_points);
  v.resources = std::move(e.resources);
  return v;
}

/// Finds the variant's files: the manifest's "stages" when given, else
/// `<kernel>.<stage>` in its cache folder; then its `<kernel>.json`.
Status read_entry_files(const capture::Manifest& m, size_t index, PathGuard& guard, Variant* v) {
  const capture::ManifestEntry& e = m.entries[index];
  const std::string vdir = "cache/" + v->cache_dir;
  auto vpath = guard.resolve(vdir, PathGuard::kDirectory);
  if (!vpath) return path_error(m, index, "cache_dir", vpath.status());
  if (e.has_stages) {
    for (const capture::StagePath& s : e.stages) {
      auto p = guard.resolve(s.path, PathGuard::kFile);
      if (!p) return path_error(m, index, "stages", p.status(), s.stage);
      StageFile f{s.stage, std::move(*p), nullptr, {}, {}};
      if (stage_rank(f.stage) >= 0) {
        v->stages.push_back(std::move(f));
      } else {
        v->binaries.push_back(std::move(f));
      }
    }
  } else {
    Status st = collect_stage_files(guard, vdir, v->kernel, v);
    if (!st.is_ok()) return path_error(m, index, "kernel", st);
  }
  v->move_binary_stages();
  if (v->stages.empty())
    return m.entry_error(index, "cache_dir",
                         "no IR stage files for " + v->kernel + " in " + *vpath);
  sort_stages(v);
  // "metadata" names the same `<kernel>.json` read below; a path there that
  // leaves the capture is refused like any other (an absent file is fine).
  if (!e.metadata.empty()) {
    auto meta = guard.resolve(e.metadata, PathGuard::kFile);
    if (!meta && meta.status().code() != ErrorCode::kNotFound)
      return path_error(m, index, "metadata", meta.status());
  }
  Status st = read_metadata(guard, vdir + "/" + v->kernel + ".json", v);
  if (!st.is_ok() && st.location().file == guard.root()) return path_error(m, index, "kernel", st);
  return st;
}

}  // namespace

Expected<Build> load_capture(const std::string& dir) {
  KSNAP_ASSIGN_OR_RETURN(capture::Manifest m, capture::read_manifest(dir));  // entries moved out below
  Build b;
  b.root = dir;
  b.kind = BuildKind::kCapture;
  b.format_version = m.format_version;
  std::string base = dir;
  size_t slash = base.find_last_not_of('/');
  base = base.substr(0, slash + 1);
  b.name = m.build.empty() ? base.substr(base.rfind('/') + 1) : m.build;
  b.triton_version = m.triton_version;
  b.arch = m.arch;

  PathGuard guard(dir);
  b.variants.reserve(m.entries.size());
  OptionMap::Pool options;  // equal options shared as they are read
  for (size_t index = 0; index < m.entries.size(); ++index) {
    Variant v = variant_of(m.entries[index]);
    KSNAP_RETURN_IF_ERROR(read_entry_files(m, index, guard, &v));
    options.share(&v.compile_options);
    b.variants.push_back(std::move(v));
  }
  // Compiler nondeterminism found by `ksnap capture --repeat` (unstable.h).
  // Confined like every file of the capture: a link out of it is an error.
  KSNAP_ASSIGN_OR_RETURN(std::string unstable, capture::optional_capture_file(dir, "unstable.json"));
  if (!unstable.empty()) {
    KSNAP_ASSIGN_OR_RETURN(UnstableReport u, read_unstable(unstable));
    mark_unstable(u, UnstableMatch::kSameCapture, &b);
  }
  // What `ksnap recompile` into this capture failed to rebuild
  // (capture/recompile.h): reported as not rebuilt, never as removed.
  KSNAP_ASSIGN_OR_RETURN(std::string recompiled,
                         capture::optional_capture_file(dir, "recompile.json"));
  if (!recompiled.empty()) {
    KSNAP_ASSIGN_OR_RETURN(b.not_rebuilt, capture::read_recompile_report(recompiled));
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

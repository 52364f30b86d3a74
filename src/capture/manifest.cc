// Reading manifest.json and its shards (docs/capture-format.md). Manifests
// written before the format field existed (the shared corpus) read as
// format_version 0.
//
// Worked example. manifest.json line 7 holds `"cache_dir": "../x"`:
//   parse_manifest -> kInvalidArgument at manifest.json:7:20
//     `manifest entry 0: "cache_dir" "../x" is not one folder name under cache/`
// and a cache folder that is a plain name but missing is found by the
// caller (load_capture), which reports it with entry_error(0, "cache_dir",
// ...) at the same place.
#include "ksnap/capture/manifest.h"

#include <dirent.h>

#include <algorithm>

#include "ksnap/capture/json_text.h"
#include "ksnap/support/figures.h"
#include "ksnap/support/file.h"
#include "ksnap/support/path_guard.h"

namespace ksnap::capture {

/// The manifest's text, and its parsed document only when an error needs a
/// position: parse_manifest reads the entries one at a time (a whole tree of
/// 100,000 entries is hundreds of megabytes; the text is a tenth of that),
/// and locate() parses the text whole on the rare error that asks.
struct ManifestText {
  std::string text;
};

namespace {

const char* format_name(ManifestKind kind) {
  return kind == ManifestKind::kShard ? "ksnap-capture-shard" : "ksnap-capture";
}

Status entry_error_at(const json::Node& at, size_t index, const std::string& what,
                      ErrorCode code = ErrorCode::kParseError) {
  return at.error("manifest entry " + std::to_string(index) + ": " + what, code);
}

/// "format" and "format_version": absent "format" is version 0 (a capture
/// manifest only); else the kind's name and a version this ksnap reads.
Status read_format(const json::Node& m, ManifestKind kind, int* version) {
  using json::Need;
  *version = 0;
  if (!m["format"].present() && kind == ManifestKind::kCapture) return Status::ok();
  std::string format;
  KSNAP_RETURN_IF_ERROR(m["format"].read(&format, Need::kRequired));
  if (format != format_name(kind))
    return m["format"].error("\"format\" is " + json::dump(json::text(format)) + ", expected \"" +
                                 format_name(kind) + "\"",
                             ErrorCode::kUnsupported);
  KSNAP_RETURN_IF_ERROR(m["format_version"].read(version, Need::kRequired));
  if (*version > kCaptureFormatVersion)
    return m["format_version"].error("capture format_version " + std::to_string(*version) +
                                         " is newer than this ksnap reads (" +
                                         std::to_string(kCaptureFormatVersion) + ")",
                                     ErrorCode::kUnsupported);
  if (*version < 1)
    return m["format_version"].error("capture format_version " + std::to_string(*version) +
                                         " is not one this ksnap reads (1 to " +
                                         std::to_string(kCaptureFormatVersion) + ")",
                                     ErrorCode::kUnsupported);
  return Status::ok();
}

Status read_benchmark(const json::Node& bm, ManifestEntry* e) {
  if (bm.is_string()) return bm.read(&e->benchmark_script);
  KSNAP_RETURN_IF_ERROR(bm.expect_object());
  KSNAP_RETURN_IF_ERROR(bm["script"].read(&e->benchmark_script));
  KSNAP_RETURN_IF_ERROR(bm["points"].expect_array());
  for (size_t i = 0; i < bm["points"].size(); ++i) {
    const json::Value& p = bm["points"][i].value();
    e->benchmark_points.push_back(p.is_string() ? p.get<std::string>() : python_json(p));
  }
  return Status::ok();
}

/// Reads entry `index` at `e` (its fields; the files it names are the caller's).
Status read_entry(const json::Node& e, size_t index, ManifestEntry* out) {
  using json::Need;
  KSNAP_RETURN_IF_ERROR(read_variant_key(e, &out->key));
  KSNAP_RETURN_IF_ERROR(e["source_line"].read(&out->source_line));
  KSNAP_RETURN_IF_ERROR(read_benchmark(e["benchmark"], out));
  for (const char* r : {"n_regs", "n_spills", "shared", "n_max_threads"}) {
    int64_t n = 0;
    KSNAP_RETURN_IF_ERROR(e[r].read(&n));
    if (!e[r].present() || e[r].value().is_null()) continue;
    if (!figure_in_range(n))
      return e[r].error(figure_range_message(r, n));
    out->resources[r] = n;
  }
  KSNAP_RETURN_IF_ERROR(e["cache_dir"].read(&out->cache_dir, Need::kRequired));
  // Triton names each folder by a hash: one plain name, never a path.
  if (!is_plain_name(out->cache_dir))
    return entry_error_at(e["cache_dir"], index,
                          "\"cache_dir\" " + json::dump(json::text(out->cache_dir)) +
                              " is not one folder name under cache/",
                          ErrorCode::kInvalidArgument);
  json::Node stages = e["stages"];
  KSNAP_RETURN_IF_ERROR(stages.expect_object());
  out->has_stages = stages.is_object();
  if (out->has_stages) {
    for (auto it = stages.value().begin(); it != stages.value().end(); ++it) {
      StagePath s{it.key(), ""};
      KSNAP_RETURN_IF_ERROR(stages[it.key()].read(&s.path, Need::kRequired));
      out->stages.push_back(std::move(s));
    }
  }
  return e["metadata"].read(&out->metadata);
}

}  // namespace

SourceLocation Manifest::locate(size_t index, std::string_view field,
                                std::string_view stage) const {
  if (!text_) return {file, 0, 0};
  // Errors only: the text is parsed again, down to the one entry asked for.
  auto doc = json::StreamedObject::parse(text_->text, file, "entries");
  if (!doc || !doc->streamed() || index >= doc->size()) return {file, 0, 0};
  auto e = doc->item(index);
  if (!e) return {file, 0, 0};  // read once already: cannot happen
  json::Node at = e->root()[field];
  if (!stage.empty()) at = at[stage];
  return at.location();
}

Status Manifest::entry_error(size_t index, std::string_view field, const std::string& what,
                             ErrorCode code, std::string_view stage) const {
  return make_error(code, "manifest entry " + std::to_string(index) + ": " + what,
                    locate(index, field, stage));
}

Expected<Manifest> parse_manifest(std::string text, std::string name, ManifestKind kind) {
  auto src = std::make_shared<ManifestText>();
  src->text = std::move(text);
  // The entries one at a time: at 100,000 of them a whole tree would take
  // several times the text (json::StreamedObject).
  KSNAP_ASSIGN_OR_RETURN(json::StreamedObject doc,
                         json::StreamedObject::parse(src->text, name, "entries"));
  json::Node m = doc.rest().root();
  if (!m.is_object())
    return make_error(ErrorCode::kParseError, "manifest is not a JSON object", {name, 1, 1});
  Manifest out;
  out.file = name;
  out.kind = kind;
  KSNAP_RETURN_IF_ERROR(read_format(m, kind, &out.format_version));
  KSNAP_RETURN_IF_ERROR(m["build"].read(&out.build));
  KSNAP_RETURN_IF_ERROR(m["triton_version"].read(&out.triton_version));
  KSNAP_RETURN_IF_ERROR(m["arch"].read(&out.arch));
  KSNAP_RETURN_IF_ERROR(m["source_path"].read(&out.source_path));
  json::Node entries = m["entries"];
  if (!entries.is_array())
    return make_error(ErrorCode::kParseError, "manifest has no \"entries\" array", {name, 1, 1});
  // Room for the entries the text can hold (an entry with "kernel" and
  // "cache_dir" takes over 30 bytes): `"entries": [1,1,1,...]` in a small
  // file reserves no gigabytes, and fails at its first item.
  out.entries.reserve(std::min(doc.size(), src->text.size() / 32 + 1));
  for (size_t i = 0; i < doc.size(); ++i) {
    KSNAP_ASSIGN_OR_RETURN(json::Document e, doc.item(i));
    KSNAP_RETURN_IF_ERROR(read_entry(e.root(), i, &out.entries.emplace_back()));
  }
  out.text_ = std::move(src);  // locate() parses it again on an error
  return out;
}

Expected<Manifest> read_manifest(const std::string& dir) {
  const std::string path = dir + "/manifest.json";
  KSNAP_ASSIGN_OR_RETURN(TextBuffer buf, read_text_file(path));
  return parse_manifest(std::move(buf).release(), path, ManifestKind::kCapture);
}

Expected<std::vector<Manifest>> read_shards(const std::string& dir) {
  std::vector<Manifest> out;
  PathGuard guard(dir);
  auto shard_dir = guard.resolve("manifest.d", PathGuard::kDirectory);
  if (!shard_dir) {
    if (shard_dir.status().code() == ErrorCode::kNotFound) return out;
    return make_error(shard_dir.status().code(), shard_dir.status().message(), {dir, 0, 0});
  }
  std::vector<std::string> names;
  if (DIR* d = ::opendir(shard_dir->c_str())) {
    while (const dirent* ent = ::readdir(d)) {
      std::string n = ent->d_name;
      if (n.size() > 5 && n.compare(n.size() - 5, 5, ".json") == 0) names.push_back(n);
    }
    ::closedir(d);
  } else {
    return make_error(ErrorCode::kIoError, "cannot list the shard folder", {*shard_dir, 0, 0});
  }
  std::sort(names.begin(), names.end());
  for (const std::string& n : names) {
    auto p = guard.resolve("manifest.d/" + n, PathGuard::kFile);
    if (!p) return make_error(p.status().code(), p.status().message(), {dir + "/manifest.d/" + n, 0, 0});
    KSNAP_ASSIGN_OR_RETURN(TextBuffer buf, read_text_file(*p));
    KSNAP_ASSIGN_OR_RETURN(Manifest m,
                           parse_manifest(std::move(buf).release(), *p, ManifestKind::kShard));
    out.push_back(std::move(m));
  }
  return out;
}

Expected<std::string> optional_capture_file(const std::string& dir, const std::string& name) {
  PathGuard guard(dir);
  auto p = guard.resolve(name, PathGuard::kFile);
  if (p) return p;
  if (p.status().code() == ErrorCode::kNotFound) return std::string();
  return make_error(p.status().code(), p.status().message(), {dir, 0, 0});
}

}  // namespace ksnap::capture

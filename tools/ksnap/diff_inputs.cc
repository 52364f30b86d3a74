// Inputs of `ksnap diff`; see diff_inputs.h.
#include "diff_inputs.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <thread>

#include "ksnap/ir/lexer.h"
#include "ksnap/store/resolve.h"
#include "ksnap/support/file.h"
#include "ksnap/support/guarded.h"
#include "ksnap/support/path_guard.h"

namespace ksnap::cli {

namespace {

namespace fs = std::filesystem;

const char kIrExtensions[] = ".ttir, .ttgir, .llir, .ptx, .amdgcn, .spv";

/// Stage of an IR file from its extension ("" when unknown).
std::string stage_of(const fs::path& p) {
  std::string ext = p.extension().string();
  if (ext.size() < 2) return "";
  ext = ext.substr(1);
  ir::Dialect d;
  if (ext == "ll") ext = "llir";
  return ir::dialect_for_stage(ext, &d) ? ext : "";
}

build::Build one_file_build(const std::string& path, const std::string& kernel,
                            const std::string& stage) {
  build::Build b;
  b.root = path;
  b.name = fs::path(path).filename().string();
  b.kind = build::BuildKind::kMemory;
  build::Variant v;
  v.kernel = kernel;
  v.stages.push_back({stage, path, nullptr, {}, {}});
  b.variants.push_back(std::move(v));
  return b;
}

Expected<std::pair<build::Build, build::Build>> two_files(const std::string& a,
                                                          const std::string& b) {
  std::string sa = stage_of(a), sb = stage_of(b);
  for (const auto& [path, stage] : {std::pair{a, sa}, std::pair{b, sb}})
    if (stage.empty())
      return make_error(ErrorCode::kInvalidArgument, "cannot tell the IR kind of '" + path +
                                                         "' from its name; IR files end in " +
                                                         kIrExtensions);
  if (sa != sb)
    return make_error(ErrorCode::kInvalidArgument, "cannot compare a " + sa + " file ('" + a +
                                                       "') with a " + sb + " file ('" + b + "')");
  std::string ka = fs::path(a).stem().string(), kb = fs::path(b).stem().string();
  std::string kernel = ka == kb ? ka : ka + " vs " + kb;
  return std::make_pair(one_file_build(a, kernel, sa), one_file_build(b, kernel, sb));
}

/// A folder of IR files: one variant per file stem. Fails (kNotFound) when
/// the folder holds no IR file.
Expected<build::Build> plain_folder(const std::string& dir) {
  std::map<std::string, build::Variant> by_stem;
  std::error_code ec;
  // Confined like a capture: an IR file that is a link leading out of the
  // folder, a FIFO or a device is an error naming it, never read.
  PathGuard guard(dir);
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string stage = stage_of(e.path());
    if (stage.empty() || e.is_directory(ec)) continue;
    std::string name = e.path().filename().string();
    auto path = guard.resolve(name, PathGuard::kFile);
    if (!path) return path.status().with_file(e.path().string());
    build::Variant& v = by_stem[e.path().stem().string()];
    v.kernel = e.path().stem().string();
    v.stages.push_back({stage, std::move(*path), nullptr, {}, {}});
  }
  if (by_stem.empty())
    return make_error(ErrorCode::kNotFound,
                      "not a build: no manifest.json (a capture: `ksnap capture`), no Triton cache "
                      "folders (<hash>/<kernel>.json, e.g. ~/.triton/cache) and no IR files (" +
                          std::string(kIrExtensions) +
                          "); `ksnap diff` also takes two IR files or "
                          "two recorded commits",
                      {dir, 0, 0});
  build::Build b;
  b.root = dir;
  b.name = fs::path(dir).filename().string();
  if (b.name.empty()) b.name = fs::path(dir).parent_path().filename().string();
  b.kind = build::BuildKind::kMemory;
  for (auto& [stem, v] : by_stem) {
    std::sort(v.stages.begin(), v.stages.end(), [](const auto& x, const auto& y) {
      return build::stage_rank(x.stage) < build::stage_rank(y.stage);
    });
    b.variants.push_back(std::move(v));
  }
  return b;
}

Expected<build::Build> resolve(const std::string& arg, const std::string& store) {
  auto b = store::resolve_build(arg, store);
  if (b || !is_directory(arg)) return b;
  // A folder that is neither a capture nor a Triton cache: a folder of IR files?
  if (fs::exists(fs::path(arg) / "manifest.json")) return b;
  auto plain = plain_folder(arg);
  if (plain) return plain;
  return plain.status();
}

}  // namespace

Expected<std::pair<build::Build, build::Build>> load_diff_inputs(const std::string& base,
                                                                 const std::string& head,
                                                                 const std::string& store) {
  bool fa = is_regular_file(base), fb = is_regular_file(head);
  if (fa && fb) return two_files(base, head);
  if (fa != fb)
    return make_error(ErrorCode::kInvalidArgument,
                      "'" + (fa ? base : head) + "' is a file and '" + (fa ? head : base) +
                          "' is not: pass two IR files, or two builds (capture or Triton cache "
                          "folders, folders of IR files, recorded commits)");
  // An exception must not leave the loader thread (std::terminate): each side
  // becomes a Status whatever a damaged input makes it throw.
  auto load = [&store](const std::string& arg) {
    return guarded([&] { return resolve(arg, store); }, "loading '" + arg + "'");
  };
  Expected<build::Build> b = Status();
  std::thread loader([&] { b = load(base); });
  Expected<build::Build> h = load(head);
  loader.join();
  if (!b) return b.status();
  if (!h) return h.status();
  return std::make_pair(std::move(*b), std::move(*h));
}

}  // namespace ksnap::cli

// Loads a bare Triton cache folder (TRITON_CACHE_DIR): each `<hash>/` folder
// holding `<kernel>.json` metadata is one variant. Constexprs are unknown, so
// the variant's options are its recorded num_warps / num_stages / num_ctas and
// pairing falls back to metadata and IR similarity (marked "inferred").
// Every folder and file is confined to the cache folder (PathGuard): a link
// that leads out of it is an error.
#include <dirent.h>

#include <algorithm>

#include "build/metadata.h"
#include "ksnap/build/build.h"
#include "ksnap/support/path_guard.h"

namespace ksnap::build {

namespace {

std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") out.push_back(n);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

bool ends_with(const std::string& s, const std::string& suf) {
  return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}

}  // namespace

Expected<Build> load_triton_cache(const std::string& path) {
  std::string dir = path;
  if (is_directory(path + "/cache")) dir = path + "/cache";
  Build b;
  b.root = path;
  b.kind = BuildKind::kTritonCache;
  std::string trimmed = path.substr(0, path.find_last_not_of('/') + 1);
  b.name = trimmed.substr(trimmed.rfind('/') + 1);
  PathGuard guard(dir);
  OptionMap::Pool options;  // equal options shared as they are read
  for (const std::string& h : list_dir(dir)) {
    if (!is_directory(dir + "/" + h)) continue;  // a file or a dangling link: not a variant
    auto vdir = guard.resolve(h, PathGuard::kDirectory);
    if (!vdir) return make_error(vdir.status().code(), vdir.status().message(), {dir, 0, 0});
    for (const std::string& f : list_dir(*vdir)) {
      if (!ends_with(f, ".json") || f.rfind("__grp__", 0) == 0) continue;
      std::string kernel = f.substr(0, f.size() - 5);
      Variant v;
      v.kernel = kernel;
      v.cache_dir = h;
      v.constexprs_known = false;
      KSNAP_RETURN_IF_ERROR(read_metadata(guard, h + "/" + f, &v));
      KSNAP_RETURN_IF_ERROR(collect_stage_files(guard, h, kernel, &v));
      v.move_binary_stages();
      if (v.stages.empty()) continue;  // metadata of a non-kernel artifact
      sort_stages(&v);
      for (const char* k : {"num_warps", "num_stages", "num_ctas"}) {
        auto it = v.compile_options.find(k);
        if (it != v.compile_options.end()) v.options[k] = it->second;
      }
      if (auto it = v.compile_options.find("triton_version");
          b.triton_version.empty() && it != v.compile_options.end()) {
        const std::string& tv = it->second;
        b.triton_version = tv.size() >= 2 ? tv.substr(1, tv.size() - 2) : tv;
      }
      options.share(&v.compile_options);
      b.variants.push_back(std::move(v));
    }
  }
  if (b.variants.empty())
    return make_error(ErrorCode::kNotFound,
                      "neither a capture (no manifest.json) nor a Triton cache (no "
                      "<hash>/<kernel>.json with IR files)",
                      {path, 0, 0});
  return b;
}

}  // namespace ksnap::build

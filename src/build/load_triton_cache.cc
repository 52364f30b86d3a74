// Loads a bare Triton cache folder (TRITON_CACHE_DIR): each `<hash>/` folder
// holding `<kernel>.json` metadata is one variant. Constexprs are unknown, so
// the variant's options are its recorded num_warps / num_stages / num_ctas and
// pairing falls back to metadata and IR similarity (marked "inferred").
#include <dirent.h>

#include <algorithm>

#include "build/json_text.h"
#include "build/metadata.h"
#include "ksnap/build/build.h"

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
  for (const std::string& h : list_dir(dir)) {
    const std::string vdir = dir + "/" + h;
    if (!is_directory(vdir)) continue;
    for (const std::string& f : list_dir(vdir)) {
      if (!ends_with(f, ".json") || f.rfind("__grp__", 0) == 0) continue;
      std::string kernel = f.substr(0, f.size() - 5);
      Variant v;
      v.kernel = kernel;
      v.cache_dir = h;
      v.constexprs_known = false;
      KSNAP_RETURN_IF_ERROR(read_metadata(vdir + "/" + f, &v));
      collect_stage_files(vdir, kernel, &v);
      v.move_binary_stages();
      if (v.stages.empty()) continue;  // metadata of a non-kernel artifact
      sort_stages(&v);
      for (const char* k : {"num_warps", "num_stages", "num_ctas"}) {
        auto it = v.compile_options.find(k);
        if (it != v.compile_options.end()) v.options[k] = it->second;
      }
      if (b.triton_version.empty() && v.compile_options.count("triton_version")) {
        std::string tv = v.compile_options["triton_version"];
        b.triton_version = tv.size() >= 2 ? tv.substr(1, tv.size() - 2) : tv;
      }
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

// libFuzzer target for capture loading: manifest.json, Triton's
// `<kernel>.json` and a stage file, written into a scratch capture folder
// that also holds symbolic links leading out of it. The input is
// "manifest \0 metadata \0 ttgir" (missing parts: no such file).
// Checks: loading (as a capture, as a bare Triton cache, and through the
// tune component's reader) never crashes; errors carry a message; every
// file a loaded variant names resolves inside the folder.
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz_util.h"
#include "ksnap/build/build.h"
#include "ksnap/tune/capture.h"

namespace fs = std::filesystem;
using ksnap::fuzz::check;

namespace {

struct Scratch {
  std::string dir, real;
  Scratch() {
    std::string tmpl = (fs::temp_directory_path() / "ksnap-capture-fuzz-XXXXXX").string();
    check(::mkdtemp(tmpl.data()) != nullptr);
    dir = tmpl + "/cap";
    fs::create_directories(dir + "/cache/ABC");
    fs::create_directories(dir + "/cache/DEF");
    fs::create_directories(tmpl + "/outside");
    std::ofstream(tmpl + "/outside/k.ttir") << "module {\n}\n";
    std::ofstream(dir + "/cache/ABC/k.ttir")
        << "module {\n  tt.func @k() {\n    tt.return\n  }\n}\n";
    std::ofstream(dir + "/cache/ABC/k.cubin") << "\x7f"
                                                 "ELF";
    std::ofstream(dir + "/cache/DEF/k.ttir") << "module {\n}\n";
    fs::create_symlink(tmpl + "/outside/k.ttir", dir + "/cache/ABC/out.ttir");
    fs::create_symlink(tmpl + "/outside", dir + "/cache/OUT");
    fs::create_symlink("ABC", dir + "/cache/ALIAS");
    char buf[PATH_MAX];
    check(::realpath(dir.c_str(), buf) != nullptr);
    real = buf;
  }
  void put(const std::string& rel, const std::string& text, bool present) {
    std::string p = dir + "/" + rel;
    if (!present) {
      ::unlink(p.c_str());
      return;
    }
    std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
  }
  /// True when `path` resolves inside the capture folder.
  bool inside(const std::string& path) const {
    char buf[PATH_MAX];
    if (!::realpath(path.c_str(), buf)) return false;
    std::string r = buf;
    return r.size() > real.size() && r.compare(0, real.size(), real) == 0 && r[real.size()] == '/';
  }
};

void check_build(const ksnap::Expected<ksnap::build::Build>& b, const Scratch& s) {
  if (!b) {
    check(!b.status().message().empty());
    check(b.status().code() != ksnap::ErrorCode::kInternal);
    return;
  }
  for (const auto& v : b->variants) {
    check(!v.stages.empty());
    for (const auto& f : v.stages) check(s.inside(f.path));
    for (const auto& f : v.binaries) check(s.inside(f.path));
    (void)v.id();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Scratch s;
  auto parts = ksnap::fuzz::split_parts(data, size, 3);
  const bool has_meta = size > parts[0].size();
  const bool has_stage = size > parts[0].size() + 1 + parts[1].size();
  s.put("manifest.json", parts[0], true);
  s.put("cache/ABC/k.json", parts[1], has_meta);
  s.put("cache/ABC/k.ttgir", parts[2], has_stage);
  check_build(ksnap::build::load_build(s.dir), s);
  check_build(ksnap::build::load_build(s.dir + "/cache"), s);
  auto t = ksnap::tune::load_capture_kernel(s.dir, "k", /*read_cubins=*/true);
  if (t) {
    for (const auto& v : *t) check(!v.cubin.empty() && v.meta.num_warps >= 1);
  } else {
    check(!t.status().message().empty());
  }
  return 0;
}

// Shared helpers of the store tests: corpus builds and scratch folders.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "ksnap/support/file.h"

namespace ksnap::store::testing {

/// A corpus build folder ("base", "noise", "no_licm", "fusion_off"): the
/// committed examples/corpus copy when present, else the shared corpus;
/// "" when neither exists (the test then skips).
inline std::string corpus_build(const std::string& name) {
  for (const char* root : {KSNAP_EXAMPLE_DIR, KSNAP_CORPUS_DIR}) {
    std::string p = std::string(root) + "/" + name;
    if (is_regular_file(p + "/manifest.json")) return p;
  }
  return "";
}

/// A fresh folder under the system temp dir, removed with the object.
class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ksnap-store-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data()) ? tmpl : std::string();
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

/// Copies capture folder `from` to `to` (text stages and manifests only are needed).
inline void copy_capture(const std::string& from, const std::string& to) {
  std::filesystem::copy(from, to, std::filesystem::copy_options::recursive);
}

}  // namespace ksnap::store::testing

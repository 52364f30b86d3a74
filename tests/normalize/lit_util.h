// The lit-test fixture corpus (tests/fixtures/lit, see its README): every
// `.mlir` file split on `// -----` into modules. Header-only: tests compile
// only *_test.cc files.
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "ksnap/support/file.h"

namespace ksnap::testing {

struct LitModule {
  std::string file;   ///< Path relative to tests/fixtures/lit.
  size_t index = 0;   ///< 0-based position in its file.
  uint32_t first_line = 1;  ///< Line of the file where it starts.
  std::string text;
  bool expects_error = false;  ///< Holds an `expected-error` annotation: invalid on purpose.

  std::string name() const { return file + "#" + std::to_string(index); }
};

inline std::string lit_dir() { return std::string(KSNAP_SOURCE_DIR) + "/tests/fixtures/lit"; }

/// Every module of every fixture file, in path order.
inline std::vector<LitModule> lit_modules() {
  namespace fs = std::filesystem;
  std::vector<std::string> paths;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(lit_dir(), ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->path().extension() == ".mlir") paths.push_back(it->path().string());
  }
  std::sort(paths.begin(), paths.end());
  std::vector<LitModule> out;
  for (const std::string& p : paths) {
    auto buf = read_text_file(p);
    if (!buf) continue;
    std::string rel = p.substr(lit_dir().size() + 1);
    std::string_view text = buf->view();
    LitModule cur;
    cur.file = rel;
    uint32_t line = 1;
    size_t pos = 0;
    while (pos <= text.size()) {
      size_t eol = text.find('\n', pos);
      std::string_view l = text.substr(pos, eol == std::string_view::npos ? text.size() - pos : eol - pos);
      if (l == "// -----") {
        out.push_back(cur);
        cur = LitModule{};
        cur.file = rel;
        cur.index = out.back().index + 1;
        cur.first_line = line + 1;
      } else {
        cur.text.append(l);
        cur.text.push_back('\n');
        if (l.find("expected-error") != std::string_view::npos) cur.expects_error = true;
      }
      if (eol == std::string_view::npos) break;
      pos = eol + 1;
      ++line;
    }
    out.push_back(cur);
  }
  return out;
}

}  // namespace ksnap::testing

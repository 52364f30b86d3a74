// The normalized hashes of real IR files under norm::kHashVersion.
//
// Hashes outlive a run: the history store keeps the normalized hash of every
// text it records, and `ksnap diff <recorded commit> HEAD` uses it instead of
// normalizing the text again, but only when it was computed under the same
// kHashVersion. A change to the normalizer that changes any hash therefore
// must raise kHashVersion, or a kept hash would stand for a different
// normalization. This test holds the hashes of every IR file of the bundled
// example corpus (and the SASS fixtures) under the current version; when it
// fails, raise kHashVersion in include/ksnap/normalize/normalize.h and
// rewrite the golden file:
//
//   KSNAP_UPDATE_HASHES=1 ./build/tests/normalize_tests --gtest_filter='HashVersion*'
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "ksnap/ir/lexer.h"
#include "ksnap/normalize/normalize.h"
#include "ksnap/support/file.h"
#include "ksnap/support/hash.h"

namespace fs = std::filesystem;

namespace ksnap::norm {
namespace {

std::string golden_path() {
  return std::string(KSNAP_SOURCE_DIR) + "/tests/normalize/golden/hashes_v" +
         std::to_string(kHashVersion) + ".txt";
}

/// "<path relative to the source tree> <hash>" for every IR file with a
/// lexer, sorted by path.
std::map<std::string, std::string> current_hashes() {
  std::map<std::string, std::string> out;
  const fs::path src(KSNAP_SOURCE_DIR);
  for (const char* dir : {"examples/corpus", "tests/fixtures/sass"}) {
    for (const auto& e : fs::recursive_directory_iterator(src / dir)) {
      if (!e.is_regular_file()) continue;
      std::string ext = e.path().extension().string();
      if (ext.empty()) continue;
      ir::Dialect d;
      if (!ir::dialect_for_stage(ext.substr(1), &d)) continue;
      auto text = read_text_file(e.path().string());
      if (!text) continue;  // binaries
      auto h = normalized_hash(*text, d);
      out[fs::relative(e.path(), src).generic_string()] =
          h ? hex64(*h) : "error:" + std::string(h.status().message().substr(0, 40));
    }
  }
  return out;
}

TEST(HashVersion, RealFilesHashAsTheGoldenFileOfThisVersionSays) {
  auto now = current_hashes();
  ASSERT_GT(now.size(), 60u) << "the example corpus and SASS fixtures are part of the tree";
  if (std::getenv("KSNAP_UPDATE_HASHES")) {
    std::ofstream f(golden_path());
    f << "# normalized hashes under norm::kHashVersion " << kHashVersion
      << " (tests/normalize/hash_version_test.cc)\n";
    for (const auto& [path, h] : now) f << path << " " << h << "\n";
    GTEST_SKIP() << "rewrote " << golden_path();
  }
  std::ifstream f(golden_path());
  ASSERT_TRUE(f) << golden_path() << " is missing: kHashVersion " << kHashVersion
                 << " has no golden hashes (KSNAP_UPDATE_HASHES=1 writes them)";
  std::map<std::string, std::string> golden;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto sp = line.rfind(' ');
    ASSERT_NE(sp, std::string::npos) << line;
    golden[line.substr(0, sp)] = line.substr(sp + 1);
  }
  size_t changed = 0;
  std::ostringstream first;
  for (const auto& [path, h] : now) {
    auto it = golden.find(path);
    if (it == golden.end() || it->second == h) continue;
    if (changed++ == 0) first << path << ": " << it->second << " -> " << h;
  }
  EXPECT_EQ(changed, 0u) << changed << " normalized hashes changed under kHashVersion "
                         << kHashVersion << " (first: " << first.str()
                         << "). A normalizer change that changes hashes must raise "
                            "norm::kHashVersion, or the history store's kept hashes would "
                            "stand for another normalization; then rewrite the golden file "
                            "with KSNAP_UPDATE_HASHES=1.";
  for (const auto& [path, h] : golden)
    EXPECT_TRUE(now.count(path)) << path << " is in the golden file but not in the tree";
}

}  // namespace
}  // namespace ksnap::norm

// Bad input from real files: every corpus file (the shared corpus, else the
// bundled example: support/corpus_dir.h) cut at many offsets must give
// a Module or a kParseError naming a line of the file, never a crash (this
// test is also run under ASan+UBSan: -DKSNAP_SANITIZE=ON). The fast path and
// normalize() must agree on each cut.
#include <gtest/gtest.h>

#include <algorithm>

#include "normalize/corpus_util.h"

namespace ksnap::norm {
namespace {

TEST(TruncateTest, CutCorpusFilesNeverCrash) {
  constexpr size_t kCutsPerFile = 40;
  size_t ok = 0, errors = 0;
  for (const std::string& path : testing::corpus_files("base")) {
    std::string stage = path.substr(path.rfind('.') + 1);
    ir::Dialect d = testing::dialect_of(stage);
    std::string text(testing::read_or_die(path).view());
    for (size_t k = 1; k <= kCutsPerFile; ++k) {
      size_t cut = text.size() * k / (kCutsPerFile + 1) + k % 7;  // not only line starts
      cut = std::min(cut, text.size() - 1);
      std::string part = text.substr(0, cut);
      TextBuffer buf(path, part);
      auto m = normalize(buf, d);
      auto h = normalized_hash(buf, d);
      ASSERT_EQ(m.has_value(), h.has_value()) << path << " cut at " << cut;
      if (m) {
        EXPECT_EQ(m->hash, *h) << path << " cut at " << cut;
        ++ok;
        continue;
      }
      ++errors;
      const Status& s = m.status();
      EXPECT_EQ(s.code(), ErrorCode::kParseError) << s.to_string();
      size_t lines = static_cast<size_t>(std::count(part.begin(), part.end(), '\n')) + 1;
      EXPECT_GE(s.location().line, 1u) << s.to_string();
      EXPECT_LE(s.location().line, lines) << s.to_string();
      EXPECT_EQ(s.location().file, path);
      EXPECT_EQ(h.status().location().line, s.location().line);
    }
  }
  // Most cuts leave a region open: they are errors; a few land after the
  // last brace (PTX debug sections, LLVM metadata, the #loc table) and
  // normalize.
  EXPECT_GT(errors, ok);
  EXPECT_GT(ok, 0u);
}

TEST(TruncateTest, TruncatedFunctionNamesTheOpenRegion) {
  for (const std::string& path : testing::corpus_files("base")) {
    if (path.find("add_kernel") == std::string::npos || path.substr(path.size() - 5) != "ttgir") continue;
    std::string text(testing::read_or_die(path).view());
    size_t cut = text.find("tt.store");  // inside the function body
    ASSERT_NE(cut, std::string::npos);
    TextBuffer buf(path, text.substr(0, cut));
    auto m = normalize(buf, ir::Dialect::kMlir);
    ASSERT_FALSE(m);
    // The innermost open region is the function body opened on line 8.
    EXPECT_EQ(m.status().location().line, 8u) << m.status().to_string();
    EXPECT_NE(m.status().message().find("never closed"), std::string::npos);
    return;
  }
  FAIL() << "no add_kernel.ttgir in the corpus";
}

}  // namespace
}  // namespace ksnap::norm

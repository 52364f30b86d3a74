// A Module's lines and symbols are views into texts and references the
// Module owns (Module::text, Module::refs). Moving the Module, as every
// caller does (Expected, vectors, optionals), must keep them valid and
// unchanged. Every IR file of the bundled example corpus (TTIR, TTGIR, LLVM
// IR, PTX) is normalized, copied out field by field, then the Module is
// moved through an Expected, a growing vector and a move assignment, the
// earlier owners destroyed, and compared with the copy.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include "ksnap/normalize/normalize.h"
#include "ksnap/support/file.h"
#include "ksnap/support/hash.h"

namespace ksnap::norm {
namespace {

namespace fs = std::filesystem;

/// Everything a Module says, as owned strings.
std::vector<std::string> snapshot(const Module& m) {
  std::vector<std::string> out;
  out.push_back(canonical_text(m));
  for (const Symbol& s : m.symbols)
    out.push_back("sym " + std::string(s.name) + " " + std::to_string(s.canonical));
  for (const Unit& u : m.units)
    for (const Line& l : u.lines) {
      std::string t = std::to_string(l.line_no) + "|" + std::string(l.display) + "|" +
                      std::string(l.shape) + "|" + std::string(l.op) + "|" +
                      std::string(l.callee) + "|";
      for (const SymbolRef& r : l.symbols)
        t += std::to_string(r.id) + "," + std::to_string(r.offset) + "," +
             std::to_string(r.length) + "," + std::to_string(r.shape_offset) + "," +
             std::to_string(r.shape_length) + (r.is_def ? "d;" : ";");
      out.push_back(std::move(t));
    }
  return out;
}

/// Every line's references lie in m.refs, back to back in line order.
void expect_refs_owned(const Module& m, const std::string& what) {
  const SymbolRef* next = m.refs.data();
  for (const Unit& u : m.units)
    for (const Line& l : u.lines) {
      if (l.symbols.empty()) continue;
      ASSERT_EQ(l.symbols.data(), next) << what << " line " << l.line_no;
      next += l.symbols.size();
    }
  EXPECT_EQ(next, m.refs.data() + m.refs.size()) << what;
}

TEST(ModuleLayoutTest, MovedModulesKeepEveryView) {
  const std::string root = std::string(KSNAP_SOURCE_DIR) + "/examples/corpus";
  struct Kind {
    const char* ext;
    ir::Dialect dialect;
  };
  const Kind kinds[] = {{".ttir", ir::Dialect::kMlir},
                        {".ttgir", ir::Dialect::kMlir},
                        {".llir", ir::Dialect::kLlvm},
                        {".ptx", ir::Dialect::kPtx}};
  std::vector<std::pair<std::string, ir::Dialect>> files;
  for (const auto& e : fs::recursive_directory_iterator(root))
    for (const Kind& k : kinds)
      if (e.is_regular_file() && e.path().extension() == k.ext)
        files.emplace_back(e.path().string(), k.dialect);
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 120u);  // 32 variants x 4 text stages

  std::vector<Module> kept;  // grows: every push moves the earlier Modules
  std::vector<std::vector<std::string>> want;
  size_t ops_in_display = 0, ops = 0;
  for (const auto& [path, dialect] : files) {
    auto buf = read_text_file(path);
    ASSERT_TRUE(buf) << path;
    std::vector<std::string> snap;
    {
      Expected<Module> m = normalize(*buf, dialect);
      ASSERT_TRUE(m) << path << ": " << m.status().to_string();
      expect_refs_owned(*m, path);
      snap = snapshot(*m);
      for (const Unit& u : m->units)
        for (const Line& l : u.lines) {
          if (l.op.empty()) continue;
          ++ops;
          ops_in_display += l.op.data() >= l.display.data() &&
                            l.op.data() + l.op.size() <= l.display.data() + l.display.size();
        }
      Module moved = std::move(*m);
      Module assigned;
      assigned = std::move(moved);
      kept.push_back(std::move(assigned));
    }  // the Expected and the intermediate owners are gone
    buf = Expected<TextBuffer>(TextBuffer());  // and the input text
    want.push_back(std::move(snap));
  }
  for (size_t i = 0; i < kept.size(); ++i) {
    expect_refs_owned(kept[i], files[i].first);
    EXPECT_EQ(snapshot(kept[i]), want[i]) << files[i].first;
    EXPECT_EQ(hash64(canonical_text(kept[i])), kept[i].hash) << files[i].first;
  }
  // The op names are views into the display text, not copies of their own
  // (where the display holds them verbatim: all but a few).
  EXPECT_GT(ops_in_display * 10, ops * 9) << ops_in_display << " of " << ops;
}

// Normalization (the hash now, the Module on demand, as the diff engine uses
// it for HEAD) gives normalized_hash()'s hash and normalize()'s Module, for
// every IR file of the example corpus; two alive at once on one thread (the
// second on fresh memory) and moved ones too.
TEST(ModuleLayoutTest, NormalizationBuildsWhatNormalizeBuilds) {
  const std::string root = std::string(KSNAP_SOURCE_DIR) + "/examples/corpus";
  const std::pair<const char*, ir::Dialect> kinds[] = {{".ttir", ir::Dialect::kMlir},
                                                       {".ttgir", ir::Dialect::kMlir},
                                                       {".llir", ir::Dialect::kLlvm},
                                                       {".ptx", ir::Dialect::kPtx}};
  std::vector<std::pair<std::string, ir::Dialect>> files;
  for (const auto& e : fs::recursive_directory_iterator(root))
    for (const auto& [ext, dialect] : kinds)
      if (e.is_regular_file() && e.path().extension() == ext)
        files.emplace_back(e.path().string(), dialect);
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 120u);
  for (size_t i = 0; i + 1 < files.size(); i += 2) {
    auto a = read_text_file(files[i].first);
    auto b = read_text_file(files[i + 1].first);
    ASSERT_TRUE(a && b);
    auto na = Normalization::run(*a, files[i].second);
    auto nb = Normalization::run(*b, files[i + 1].second);  // while `na` holds the scratch
    ASSERT_TRUE(na && nb) << files[i].first;
    Normalization moved = std::move(*nb);
    for (auto [n, buf, file] : {std::tuple{&*na, &*a, &files[i]}, {&moved, &*b, &files[i + 1]}}) {
      auto want = normalize(*buf, file->second);
      ASSERT_TRUE(want) << file->first;
      EXPECT_EQ(n->hash(), want->hash) << file->first;
      EXPECT_EQ(n->hash(), *normalized_hash(*buf, file->second)) << file->first;
      Module got = std::move(*n).module();
      EXPECT_EQ(snapshot(got), snapshot(*want)) << file->first;
      EXPECT_EQ(got.hash, want->hash) << file->first;
      ASSERT_EQ(got.units.size(), want->units.size()) << file->first;
      for (size_t u = 0; u < got.units.size(); ++u)
        EXPECT_EQ(got.units[u].hash, want->units[u].hash) << file->first << " unit " << u;
      EXPECT_TRUE(std::move(*n).module().units.empty()) << "a second module() is empty";
    }
  }
  // Bad input: normalize()'s error, file and line.
  for (const char* bad : {"tt.func @f() {\n  %0 = \"unterminated\n", "a\0b\n"}) {
    TextBuffer buf("bad.ttir", std::string(bad, std::strlen(bad) + (bad[1] == '\0' ? 3 : 0)));
    auto n = Normalization::run(buf, ir::Dialect::kMlir);
    auto want = normalize(buf, ir::Dialect::kMlir);
    ASSERT_FALSE(n);
    ASSERT_FALSE(want);
    EXPECT_EQ(n.status().to_string(), want.status().to_string());
    EXPECT_NE(n.status().to_string().find("bad.ttir:"), std::string::npos) << n.status().to_string();
  }
}

}  // namespace
}  // namespace ksnap::norm

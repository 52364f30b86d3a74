// The normalizer's fallback reaches the reader like the diff's: `ksnap
// normalize` notes it on stderr, and a two-file diff shows it as the
// stage's fallback note (JSON "notes", kind "fallback").
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli/cli_util.h"

namespace ksnap::cli_test {
namespace {

namespace fs = std::filesystem;

/// LLVM IR whose !tbaa metadata is a chain of 450 nodes (past the
/// normalizer's depth limit of 400), ending in `i32 <last>`.
std::string deep_chain(int last) {
  std::string out = "define void @k(ptr %p) {\n  %v = load i32, ptr %p, !tbaa !0\n  ret void\n}\n";
  for (int i = 0; i < 450; ++i)
    out += "!" + std::to_string(i) + " = !{!" + std::to_string(i + 1) + "}\n";
  return out + "!450 = !{i32 " + std::to_string(last) + "}\n";
}

TEST(NormalizeFallbackCli, StatedByNormalizeAndByTheDiff) {
  const fs::path dir = fs::temp_directory_path() / ("ksnap_norm_fallback_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "a.llir") << deep_chain(0);
  std::ofstream(dir / "b.llir") << deep_chain(1);
  CmdResult n = run("normalize " + (dir / "a.llir").string());
  EXPECT_EQ(n.rc, 0) << n.err;
  EXPECT_NE(n.err.find("note: " + (dir / "a.llir").string() + ": "), std::string::npos) << n.err;
  EXPECT_NE(n.err.find("named by spelling, not by definition"), std::string::npos) << n.err;

  CmdResult d = run("diff " + (dir / "a.llir").string() + " " + (dir / "b.llir").string() +
                    " --format json");
  ASSERT_EQ(d.rc, 0) << d.err;
  nlohmann::json j = nlohmann::json::parse(d.out);
  bool stated = false;
  for (const auto& note : j["notes"])
    stated |= note["kind"] == "fallback" &&
              note["text"].get<std::string>().find("named by spelling") != std::string::npos;
  EXPECT_TRUE(stated) << j["notes"].dump(1);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ksnap::cli_test

// docs/capture-manifest.schema.json against every real manifest (the
// corpus layout and the plugin's captures) and against hostile ones: the
// schema accepts what capture::read_manifest accepts, and what the schema
// refuses the reader refuses too.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "capture/schema_check.h"
#include "ksnap/capture/manifest.h"

namespace ksnap::capture {
namespace {

namespace fs = std::filesystem;
using ksnap::testing::Json;
using ksnap::testing::schema_problems;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Json schema() {
  return Json::parse(slurp(std::string(KSNAP_SOURCE_DIR) + "/docs/capture-manifest.schema.json"));
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += s + "\n";
  return out;
}

TEST(SchemaTest, RealManifestsAreValid) {
  const Json s = schema();
  size_t checked = 0;
  for (const std::string& root : {std::string(KSNAP_EXAMPLE_DIR), std::string(KSNAP_CORPUS_DIR),
                                 std::string(KSNAP_SOURCE_DIR) + "/tests/fixtures",
                                 std::string(KSNAP_SOURCE_DIR) + "/gpu/tune/results"}) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) continue;
    for (auto it = fs::recursive_directory_iterator(root, ec); it != fs::end(it); it.increment(ec)) {
      if (!it->is_regular_file() || it->path().filename() != "manifest.json") continue;
      SCOPED_TRACE(it->path().string());
      const std::string text = slurp(it->path().string());
      EXPECT_EQ(joined(schema_problems(s, Json::parse(text))), "");
      EXPECT_TRUE(parse_manifest(text, it->path().string()));
      ++checked;
    }
  }
  EXPECT_GE(checked, 8u);
}

TEST(SchemaTest, SchemaAndReaderRefuseTheSameManifests) {
  const Json s = schema();
  struct Case {
    const char* name;
    const char* text;
  } cases[] = {
      {"other_format", R"({"format": "x", "format_version": 1, "entries": []})"},
      {"newer_version", R"({"format": "ksnap-capture", "format_version": 2, "entries": []})"},
      {"version_missing", R"({"format": "ksnap-capture", "entries": []})"},
      {"no_entries", R"({"format": "ksnap-capture", "format_version": 1})"},
      {"entry_not_object", R"({"entries": [3]})"},
      {"kernel_missing", R"({"entries": [{"cache_dir": "x"}]})"},
      {"kernel_number", R"({"entries": [{"kernel": 3, "cache_dir": "x"}]})"},
      {"cache_dir_missing", R"({"entries": [{"kernel": "k"}]})"},
      {"cache_dir_up", R"({"entries": [{"kernel": "k", "cache_dir": ".."}]})"},
      {"cache_dir_path", R"({"entries": [{"kernel": "k", "cache_dir": "a/b"}]})"},
      {"constexprs_list", R"({"entries": [{"kernel": "k", "cache_dir": "x", "constexprs": [1]}]})"},
      {"stage_path_number",
       R"({"entries": [{"kernel": "k", "cache_dir": "x", "stages": {"ttir": 5}}]})"},
      {"points_object",
       R"({"entries": [{"kernel": "k", "cache_dir": "x", "benchmark": {"points": {}}}]})"},
      {"n_regs_string", R"({"entries": [{"kernel": "k", "cache_dir": "x", "n_regs": "1"}]})"},
      {"source_line_huge",
       R"({"entries": [{"kernel": "k", "cache_dir": "x", "source_line": 9999999999}]})"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_FALSE(schema_problems(s, Json::parse(c.text)).empty());
    EXPECT_FALSE(parse_manifest(c.text, "manifest.json"));
  }
  // And both accept the smallest manifests of each version.
  for (const char* ok : {R"({"entries": []})",
                         R"({"format": "ksnap-capture", "format_version": 1, "entries": [
                              {"kernel": "k", "cache_dir": "x", "qualname": null, "n_regs": null,
                               "benchmark": "run.py", "stages": {"ttir": "cache/x/k.ttir"}}]})"}) {
    SCOPED_TRACE(ok);
    EXPECT_EQ(joined(schema_problems(s, Json::parse(ok))), "");
    auto m = parse_manifest(ok, "manifest.json");
    EXPECT_TRUE(m) << m.status().to_string();
  }
}

TEST(SchemaTest, TheValidatorRefusesKeywordsOutsideItsSubset) {
  Json s = {{"type", "object"}, {"oneOf", Json::array()}};
  EXPECT_FALSE(schema_problems(s, Json::object()).empty());
}

}  // namespace
}  // namespace ksnap::capture

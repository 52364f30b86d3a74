// capture::read_manifest on every real manifest there is (examples/corpus,
// ../shared/corpus, the plugin's captures under tests/fixtures), and on
// hostile ones: each error located and of the right kind.
#include "ksnap/capture/manifest.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "ksnap/capture/recompile.h"

namespace ksnap::capture {
namespace {

namespace fs = std::filesystem;

/// Every manifest.json under the example corpus, the shared corpus and the
/// test fixtures (corpus layout and plugin output).
std::vector<std::string> real_manifests() {
  std::vector<std::string> out;
  for (const std::string& root : {std::string(KSNAP_EXAMPLE_DIR), std::string(KSNAP_CORPUS_DIR),
                                 std::string(KSNAP_SOURCE_DIR) + "/tests/fixtures"}) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) continue;
    for (auto it = fs::recursive_directory_iterator(root, ec); it != fs::end(it); it.increment(ec))
      if (it->is_regular_file() && it->path().filename() == "manifest.json")
        out.push_back(it->path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

TEST(ManifestTest, EveryRealManifestReads) {
  const auto paths = real_manifests();
  ASSERT_GE(paths.size(), 8u) << "examples/corpus and tests/fixtures hold at least 8 manifests";
  for (const std::string& path : paths) {
    SCOPED_TRACE(path);
    auto m = read_manifest(fs::path(path).parent_path().string());
    ASSERT_TRUE(m) << m.status().to_string();
    // The same file read by nlohmann directly: entry for entry.
    const nlohmann::json j = read_json(path);
    EXPECT_EQ(m->format_version, j.contains("format") ? j["format_version"].get<int>() : 0);
    ASSERT_EQ(m->entries.size(), j["entries"].size());
    for (size_t i = 0; i < m->entries.size(); ++i) {
      const ManifestEntry& e = m->entries[i];
      const nlohmann::json& je = j["entries"][i];
      EXPECT_EQ(e.key.kernel, je["kernel"].get<std::string>());
      EXPECT_EQ(e.cache_dir, je["cache_dir"].get<std::string>());
      EXPECT_EQ(e.key.constexprs.size(), je.value("constexprs", nlohmann::json::object()).size());
      EXPECT_EQ(e.key.options.size(), je.value("options", nlohmann::json::object()).size());
      for (const auto& [name, text] : e.key.constexprs)
        EXPECT_EQ(nlohmann::json::parse(text), je["constexprs"][name]) << name;
      // The signature is the key's leading list, never the plugin's structured one.
      EXPECT_EQ(e.key.key.compare(0, e.key.signature.size(), e.key.signature), 0);
      if (je.contains("qualname") && !je["qualname"].is_null()) {
        EXPECT_FALSE(e.key.source().empty());
      }
      EXPECT_EQ(e.has_stages, je.contains("stages"));
      if (e.has_stages) {
        EXPECT_EQ(e.stages.size(), je["stages"].size());
      }
    }
  }
}

TEST(ManifestTest, ShardsOfAMerge) {
  // A capture folder whose shards are kept (manifest.d) reads them as shards.
  const std::string dir = std::string(KSNAP_SOURCE_DIR) + "/tests/fixtures/gpu_capture/run1";
  auto shards = read_shards(dir);
  ASSERT_TRUE(shards) << shards.status().to_string();
  for (const Manifest& s : *shards) {
    EXPECT_EQ(s.kind, ManifestKind::kShard);
    EXPECT_EQ(s.format_version, 1);
  }
  // No manifest.d: no shards, no error.
  auto none = read_shards(std::string(KSNAP_EXAMPLE_DIR) + "/base");
  ASSERT_TRUE(none) << none.status().to_string();
  EXPECT_TRUE(none->empty());
}

struct Hostile {
  const char* name;
  const char* text;
  ManifestKind kind;
  ErrorCode code;
  uint32_t line;  ///< 0 = not checked
  const char* says;
};

TEST(ManifestTest, HostileManifestsGiveLocatedErrors) {
  const ManifestKind kC = ManifestKind::kCapture, kS = ManifestKind::kShard;
  const Hostile cases[] = {
      {"not_json", "{\"entries\": [", kC, ErrorCode::kParseError, 1, ""},
      {"array_root", "[]", kC, ErrorCode::kParseError, 1, "manifest is not a JSON object"},
      {"other_format", "{\"format\": \"x\", \"format_version\": 1, \"entries\": []}", kC,
       ErrorCode::kUnsupported, 1, "expected \"ksnap-capture\""},
      {"shard_as_manifest",
       "{\"format\": \"ksnap-capture-shard\", \"format_version\": 1, \"entries\": []}", kC,
       ErrorCode::kUnsupported, 1, "expected \"ksnap-capture\""},
      {"manifest_as_shard", "{\"format\": \"ksnap-capture\", \"format_version\": 1,\n\"entries\": []}",
       kS, ErrorCode::kUnsupported, 1, "expected \"ksnap-capture-shard\""},
      {"shard_without_format", "{\"entries\": []}", kS, ErrorCode::kParseError, 1,
       "missing \"format\""},
      {"newer_version", "{\"format\": \"ksnap-capture\",\n \"format_version\": 2, \"entries\": []}",
       kC, ErrorCode::kUnsupported, 2, "format_version 2 is newer than this ksnap reads (1)"},
      {"version_zero", "{\"format\": \"ksnap-capture\",\n \"format_version\": 0, \"entries\": []}",
       kC, ErrorCode::kUnsupported, 2, "is not one this ksnap reads"},
      {"version_missing", "{\"format\": \"ksnap-capture\",\n \"entries\": []}", kC,
       ErrorCode::kParseError, 1, "missing \"format_version\""},
      {"version_string", "{\"format\": \"ksnap-capture\",\n \"format_version\": \"1\"}", kC,
       ErrorCode::kParseError, 2, "expected integer for \"format_version\""},
      {"build_number", "{\"build\": 7, \"entries\": []}", kC, ErrorCode::kParseError, 1,
       "expected string for \"build\""},
      {"no_entries", "{\"format\": \"ksnap-capture\", \"format_version\": 1}", kC,
       ErrorCode::kParseError, 1, "manifest has no \"entries\" array"},
      {"entry_not_object", "{\"entries\": [\n3]}", kC, ErrorCode::kParseError, 2,
       "expected object for item 0 in entries"},
      {"kernel_missing", "{\"entries\": [\n{\"cache_dir\": \"x\"}]}", kC, ErrorCode::kParseError, 2,
       "missing \"kernel\" in entries[0]"},
      {"kernel_number", "{\"entries\": [{\"cache_dir\": \"x\",\n\"kernel\": 3}]}", kC,
       ErrorCode::kParseError, 2, "expected string for \"kernel\" in entries[0]"},
      {"cache_dir_missing", "{\"entries\": [\n{\"kernel\": \"k\"}]}", kC, ErrorCode::kParseError, 2,
       "missing \"cache_dir\" in entries[0]"},
      {"cache_dir_up", "{\"entries\": [{\"kernel\": \"k\",\n\"cache_dir\": \"../x\"}]}", kC,
       ErrorCode::kInvalidArgument, 2,
       "manifest entry 0: \"cache_dir\" \"../x\" is not one folder name under cache/"},
      {"cache_dir_path", "{\"entries\": [{\"kernel\": \"k\",\n\"cache_dir\": \"a/b\"}]}", kC,
       ErrorCode::kInvalidArgument, 2, "is not one folder name"},
      {"constexprs_list",
       "{\"entries\": [{\"kernel\": \"k\", \"cache_dir\": \"x\",\n\"constexprs\": [1]}]}", kC,
       ErrorCode::kParseError, 2, "expected object for \"constexprs\""},
      {"options_string",
       "{\"entries\": [{\"kernel\": \"k\", \"cache_dir\": \"x\",\n\"options\": \"o\"}]}", kC,
       ErrorCode::kParseError, 2, "expected object for \"options\""},
      {"key_number", "{\"entries\": [{\"kernel\": \"k\", \"cache_dir\": \"x\",\n\"key\": 1}]}", kC,
       ErrorCode::kParseError, 2, "expected string for \"key\""},
      {"stage_path_number",
       "{\"entries\": [{\"kernel\": \"k\", \"cache_dir\": \"x\", \"stages\":\n{\"ttir\": 5}}]}", kC,
       ErrorCode::kParseError, 2, "expected string for \"ttir\" in entries[0].stages"},
      {"stages_list",
       "{\"entries\": [{\"kernel\": \"k\", \"cache_dir\": \"x\",\n\"stages\": [\"a\"]}]}", kC,
       ErrorCode::kParseError, 2, "expected object for \"stages\""},
      {"points_object",
       "{\"entries\": [{\"kernel\": \"k\", \"cache_dir\": \"x\",\n\"benchmark\": {\"points\": {}}}]}",
       kC, ErrorCode::kParseError, 2, "expected array for \"points\""},
      {"n_regs_string",
       "{\"entries\": [{\"kernel\": \"k\", \"cache_dir\": \"x\",\n\"n_regs\": \"255\"}]}", kC,
       ErrorCode::kParseError, 2, "expected integer for \"n_regs\""},
      {"n_regs_negative",
       "{\"entries\": [{\"kernel\": \"k\", \"cache_dir\": \"x\",\n\"n_regs\": -9223372036854775808}]}",
       kC, ErrorCode::kParseError, 2, "is out of range for \"n_regs\" (0 to 2^48)"},
      {"shared_huge",
       "{\"entries\": [{\"kernel\": \"k\", \"cache_dir\": \"x\",\n\"shared\": 9223372036854775807}]}",
       kC, ErrorCode::kParseError, 2, "9223372036854775807 is out of range for \"shared\""},
      {"source_line_huge",
       "{\"entries\": [{\"kernel\": \"k\", \"cache_dir\": \"x\",\n\"source_line\": 1e12}]}", kC,
       ErrorCode::kParseError, 2, "source_line"},
      {"too_deep", "{\"entries\": [{\"kernel\": \"k\", \"cache_dir\": \"x\", \"constexprs\": {\"a\": "
                   "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
                   "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
                   "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}]}",
       kC, ErrorCode::kParseError, 1, "deep"},
  };
  for (const Hostile& c : cases) {
    SCOPED_TRACE(c.name);
    auto m = parse_manifest(c.text, "manifest.json", c.kind);
    ASSERT_FALSE(m);
    const Status& s = m.status();
    EXPECT_EQ(s.code(), c.code) << s.to_string();
    EXPECT_EQ(s.location().file, "manifest.json") << s.to_string();
    if (c.line) {
      EXPECT_EQ(s.location().line, c.line) << s.to_string();
    }
    EXPECT_NE(s.message().find(c.says), std::string::npos) << s.to_string();
  }
}

TEST(ManifestTest, EntryErrorsPointAtTheField) {
  const char* text =
      "{\"format\": \"ksnap-capture\", \"format_version\": 1, \"entries\": [\n"
      " {\"kernel\": \"k\", \"cache_dir\": \"A\"},\n"
      " {\"kernel\": \"k\",\n"
      "  \"cache_dir\": \"B\",\n"
      "  \"stages\": {\"ttgir\": \"cache/B/k.ttgir\",\n"
      "             \"ttir\": \"cache/B/k.ttir\"}}]}";
  auto m = parse_manifest(text, "m.json");
  ASSERT_TRUE(m) << m.status().to_string();
  ASSERT_EQ(m->entries.size(), 2u);
  EXPECT_FALSE(m->entries[0].has_stages);
  ASSERT_EQ(m->entries[1].stages.size(), 2u);
  EXPECT_EQ(m->entries[1].stages[0].stage, "ttgir");  // sorted by stage name
  EXPECT_EQ(m->entries[1].stages[1].path, "cache/B/k.ttir");
  Status s = m->entry_error(1, "cache_dir", "no such folder", ErrorCode::kNotFound);
  EXPECT_EQ(s.to_string(), "m.json:4:16: not found: manifest entry 1: no such folder");
  s = m->entry_error(1, "stages", "leaves the capture", ErrorCode::kInvalidArgument, "ttir");
  EXPECT_EQ(s.location().line, 6u);
  EXPECT_EQ(s.location().column, 22u);
  // An absent field is located at its entry.
  EXPECT_EQ(m->locate(0, "metadata").line, 2u);
}

TEST(ManifestTest, RecompileReportsHoldTheKey) {
  const char* text =
      "{\"format\": \"ksnap-recompile-report\", \"format_version\": 1,\n"
      " \"failed\": [{\"kernel\": \"k\", \"qualname\": \"m.k\", \"key\": \"[('i32', 'D')]{'num_warps': 4}\",\n"
      "             \"phase\": \"compile\", \"error\": \"Traceback\\nCompilationError: x\"}],\n"
      " \"skipped\": [{\"kernel\": \"j\", \"reason\": \"no recompile record\"}]}";
  auto r = parse_recompile_report(text, "recompile.json");
  ASSERT_TRUE(r) << r.status().to_string();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].variant.signature, "[('i32', 'D')]");
  EXPECT_EQ((*r)[0].reason, "CompilationError: x");
  EXPECT_EQ((*r)[1].phase, "skipped");
  VariantKey v;
  v.kernel = "k";
  v.qualname = "m.k";
  v.key = "[('i32', 'D')]{'num_warps': 4}";
  EXPECT_TRUE(names_variant((*r)[0], v));
  v.qualname = "other.k";
  EXPECT_FALSE(names_variant((*r)[0], v));
  v.qualname.clear();  // unrecorded on one side: the key decides
  EXPECT_TRUE(names_variant((*r)[0], v));
  EXPECT_FALSE(names_variant((*r)[1], v));  // no key recorded: never matches
  auto newer = parse_recompile_report(
      "{\"format\": \"ksnap-recompile-report\",\n\"format_version\": 9}", "recompile.json");
  ASSERT_FALSE(newer);
  EXPECT_EQ(newer.status().code(), ErrorCode::kUnsupported);
  EXPECT_EQ(newer.status().location().line, 2u);
}

}  // namespace
}  // namespace ksnap::capture

// Hostile captures (issue 9): deep JSON, wrong types and paths that try to
// leave the capture folder give a located error, never a crash or a read
// outside the folder. Every input is built here, in a scratch folder.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#include "ksnap/build/build.h"

namespace fs = std::filesystem;

namespace ksnap::build {
namespace {

class HostileCaptureTest : public ::testing::Test {
 public:  // the case tables' lambdas build inputs through these
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "ksnap-hostile-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    top_ = tmpl;
    cap_ = top_ + "/cap";
    fs::create_directories(cap_ + "/cache/ABC");
    fs::create_directories(top_ + "/outside");
    put("cache/ABC/k.ttir", "module {\n}\n");
    std::ofstream(top_ + "/outside/secret.ttir") << "module { secret }\n";
    std::ofstream(top_ + "/outside/k.json") << "{\"num_warps\": 4}\n";
  }
  void TearDown() override { fs::remove_all(top_); }

  void put(const std::string& rel, const std::string& text) {
    fs::create_directories(fs::path(cap_ + "/" + rel).parent_path());
    std::ofstream(cap_ + "/" + rel, std::ios::binary) << text;
  }
  /// A manifest with one entry; `extra` is spliced into the entry object.
  void manifest(const std::string& extra, const std::string& cache_dir = "ABC") {
    put("manifest.json",
        "{\"format\": \"ksnap-capture\", \"format_version\": 1,\n"
        " \"entries\": [\n  {\"kernel\": \"k\",\n   \"cache_dir\": \"" +
            cache_dir + "\"" + extra + "}\n ]\n}\n");
  }

  std::string top_, cap_;
};

struct Case {
  const char* name;
  std::function<void(HostileCaptureTest*)> make;
  ErrorCode code;
  const char* file;  // suffix of the error's file
  uint32_t line;
  const char* says;
};

std::string deep(size_t n) { return std::string(n, '[') + std::string(n, ']'); }

TEST_F(HostileCaptureTest, RejectedWithALocatedError) {
  const Case cases[] = {
      {"deep_constexpr",
       [](auto* t) { t->manifest(",\n \"constexprs\": {\"B\": " + deep(50000) + "}"); },
       ErrorCode::kParseError, "manifest.json", 5, "nested deeper than 100"},
      {"deep_triton_metadata",
       [](auto* t) {
         t->manifest("");
         t->put("cache/ABC/k.json", "{\"num_warps\": 4,\n \"x\": " + deep(50000) + "}");
       },
       ErrorCode::kParseError, "cache/ABC/k.json", 2, "nested deeper"},
      {"format_number",
       [](auto* t) { t->put("manifest.json", "{\"format\": 1, \"entries\": []}"); },
       ErrorCode::kParseError, "manifest.json", 1, "expected string for \"format\", got number"},
      {"kernel_number",
       [](auto* t) { t->put("manifest.json", "{\"entries\": [{\"kernel\": 5}]}"); },
       ErrorCode::kParseError, "manifest.json", 1,
       "expected string for \"kernel\" in entries[0], got number"},
      {"source_line_string", [](auto* t) { t->manifest(",\n \"source_line\": \"12\""); },
       ErrorCode::kParseError, "manifest.json", 5, "expected integer for \"source_line\""},
      {"source_line_out_of_range", [](auto* t) { t->manifest(",\n \"source_line\": 1e300"); },
       ErrorCode::kParseError, "manifest.json", 5, "expected integer"},
      {"n_regs_huge", [](auto* t) { t->manifest(",\n \"n_regs\": 99999999999999999999"); },
       ErrorCode::kParseError, "manifest.json", 5, "expected integer"},
      {"constexprs_array", [](auto* t) { t->manifest(",\n \"constexprs\": [1]"); },
       ErrorCode::kParseError, "manifest.json", 5, "expected object for \"constexprs\""},
      {"stage_number", [](auto* t) { t->manifest(",\n \"stages\": {\"ttir\": 7}"); },
       ErrorCode::kParseError, "manifest.json", 5, "expected string for \"ttir\""},
      {"metadata_shared_string",
       [](auto* t) {
         t->manifest("");
         t->put("cache/ABC/k.json", "{\n\"shared\": \"lots\"}");
       },
       ErrorCode::kParseError, "cache/ABC/k.json", 2, "expected integer for \"shared\""},
      {"metadata_shared_negative",
       [](auto* t) {
         t->manifest("");
         t->put("cache/ABC/k.json", "{\n\"shared\": -1}");
       },
       ErrorCode::kParseError, "cache/ABC/k.json", 2, "-1 is out of range for \"shared\""},
      {"invalid_utf8_in_manifest", [](auto* t) { t->manifest(",\n \"qualname\": \"m.\xff\""); },
       ErrorCode::kParseError, "manifest.json", 5, "invalid JSON"},
      {"stage_traversal",
       [](auto* t) {
         t->manifest(",\n \"stages\": {\"ttir\": \"../../../../../../../../etc/passwd\"}");
       },
       ErrorCode::kInvalidArgument, "manifest.json", 5, "leaves"},
      {"stage_absolute",
       [](auto* t) { t->manifest(",\n \"stages\": {\"ttir\": \"/etc/passwd\"}"); },
       ErrorCode::kInvalidArgument, "manifest.json", 5, "absolute"},
      {"stage_symlink_out",
       [](auto* t) {
         fs::create_symlink(t->top_ + "/outside/secret.ttir", t->cap_ + "/cache/ABC/s.ttir");
         t->manifest(",\n \"stages\": {\"ttir\": \"cache/ABC/s.ttir\"}");
       },
       ErrorCode::kInvalidArgument, "manifest.json", 5, "symbolic link"},
      {"cache_dir_traversal", [](auto* t) { t->manifest("", "../../outside"); },
       ErrorCode::kInvalidArgument, "manifest.json", 4, "not one folder name"},
      {"cache_dir_dotdot", [](auto* t) { t->manifest("", ".."); }, ErrorCode::kInvalidArgument,
       "manifest.json", 4, "not one folder name"},
      {"cache_dir_absolute", [](auto* t) { t->manifest("", t->top_ + "/outside"); },
       ErrorCode::kInvalidArgument, "manifest.json", 4, "not one folder name"},
      {"cache_dir_symlink_out",
       [](auto* t) {
         fs::create_symlink(t->top_ + "/outside", t->cap_ + "/cache/OUT");
         t->manifest("", "OUT");
       },
       ErrorCode::kInvalidArgument, "manifest.json", 4, "symbolic link"},
      {"stage_file_found_by_kernel_is_a_link_out",
       [](auto* t) {
         fs::remove(t->cap_ + "/cache/ABC/k.ttir");
         fs::create_symlink(t->top_ + "/outside/secret.ttir", t->cap_ + "/cache/ABC/k.ttir");
         t->manifest("");
       },
       ErrorCode::kInvalidArgument, "manifest.json", 3, "symbolic link"},
      {"kernel_name_climbs_out",
       [](auto* t) {
         t->put(
             "manifest.json",
             "{\"entries\": [{\"cache_dir\": \"ABC\", \"kernel\": \"../../../outside/secret\"}]}");
       },
       ErrorCode::kInvalidArgument, "manifest.json", 1, "leaves"},
      {"metadata_link_out",
       [](auto* t) {
         fs::create_symlink(t->top_ + "/outside/k.json", t->cap_ + "/cache/ABC/k.json");
         t->manifest("");
       },
       ErrorCode::kInvalidArgument, "manifest.json", 3, "symbolic link"},
      {"metadata_field_traversal",
       [](auto* t) { t->manifest(",\n \"metadata\": \"../../outside/k.json\""); },
       ErrorCode::kInvalidArgument, "manifest.json", 5, "leaves"},
      {"metadata_field_absolute", [](auto* t) { t->manifest(",\n \"metadata\": \"/etc/passwd\""); },
       ErrorCode::kInvalidArgument, "manifest.json", 5, "absolute"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    TearDown();
    SetUp();
    c.make(this);
    auto b = load_build(cap_);
    ASSERT_FALSE(b) << "loaded " << b->variants.size() << " variants";
    const Status& s = b.status();
    EXPECT_EQ(s.code(), c.code) << s.to_string();
    const std::string& file = s.location().file;
    EXPECT_TRUE(file.size() >= std::strlen(c.file) &&
                file.compare(file.size() - std::strlen(c.file), std::string::npos, c.file) == 0)
        << s.to_string();
    EXPECT_EQ(s.location().line, c.line) << s.to_string();
    EXPECT_NE(s.message().find(c.says), std::string::npos) << s.to_string();
    EXPECT_EQ(s.message().find("module { secret }"), std::string::npos)
        << "no content of a file outside the capture: " << s.to_string();
  }
}

TEST_F(HostileCaptureTest, NullFieldsAndLinksInsideAreFine) {
  fs::create_symlink("k.ttir", cap_ + "/cache/ABC/alias.ttgir");
  manifest(
      ",\n \"key\": null, \"qualname\": null, \"source_line\": null, \"n_regs\": null,\n"
      " \"benchmark\": {\"script\": null, \"points\": []},\n"
      " \"stages\": {\"ttir\": \"cache/ABC/k.ttir\", \"ttgir\": \"cache/ABC/alias.ttgir\"}");
  auto b = load_build(cap_);
  ASSERT_TRUE(b) << b.status().to_string();
  ASSERT_EQ(b->variants.size(), 1u);
  EXPECT_EQ(b->variants[0].stages.size(), 2u);
  EXPECT_EQ(b->variants[0].resources.count("n_regs"), 0u);
  EXPECT_EQ(b->variants[0].source_line, -1);
}

TEST_F(HostileCaptureTest, BareTritonCacheIsConfinedToo) {
  struct BareCase {
    const char* name;
    std::function<void(HostileCaptureTest*)> make;
    const char* says;
  };
  const BareCase cases[] = {
      {"hash_folder_link_out",
       [](auto* t) { fs::create_symlink(t->top_ + "/outside", t->cap_ + "/cache/EVIL"); },
       "symbolic link"},
      {"stage_link_out",
       [](auto* t) {
         fs::create_symlink(t->top_ + "/outside/secret.ttir", t->cap_ + "/cache/ABC/k.ttgir");
       },
       "symbolic link"},
      {"metadata_link_out",
       [](auto* t) {
         fs::create_directories(t->cap_ + "/cache/DEF");
         fs::create_symlink(t->top_ + "/outside/k.json", t->cap_ + "/cache/DEF/k.json");
       },
       "symbolic link"},
      {"deep_metadata",
       [](auto* t) { t->put("cache/ABC/k.json", "{\"x\": " + deep(100000) + "}"); },
       "nested deeper"},
  };
  for (const BareCase& c : cases) {
    SCOPED_TRACE(c.name);
    TearDown();
    SetUp();
    put("cache/ABC/k.json", "{\"num_warps\": 4}");
    c.make(this);
    auto b = load_build(cap_);
    ASSERT_FALSE(b);
    EXPECT_NE(b.status().message().find(c.says), std::string::npos) << b.status().to_string();
  }
  TearDown();
  SetUp();
  put("cache/ABC/k.json", "{\"num_warps\": 4}");
  fs::create_symlink(top_ + "/outside/secret.ttir", cap_ + "/cache/loose_file_link");
  auto b = load_build(cap_);
  ASSERT_TRUE(b) << b.status().to_string();  // a link to a file is not a variant folder: skipped
  EXPECT_EQ(b->variants.size(), 1u);
}

}  // namespace
}  // namespace ksnap::build

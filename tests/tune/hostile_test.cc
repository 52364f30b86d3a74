// Hostile input to the tune component (issue 9): a tuning cache with wrong
// types (`"format": 1`), deep JSON, names that are not UTF-8, captures whose
// paths leave the folder. A runtime library must never abort its host: each
// gives a located error (or a correct result), never an exception.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "ksnap/support/file.h"
#include "ksnap/support/json.h"
#include "ksnap/support/text.h"
#include "ksnap/tune/cache.h"
#include "ksnap/tune/capture.h"
#include "ksnap/tune/cpu_backend.h"
#include "ksnap/tune/group.h"
#include "ksnap/tune/replay.h"
#include "ksnap/tune/samples.h"

namespace fs = std::filesystem;

namespace ksnap::tune {
namespace {

std::string deep(size_t n) { return std::string(n, '[') + std::string(n, ']'); }

/// One cache entry's JSON with `field` replaced by `value` (or added).
std::string cache_with(const std::string& field, const std::string& value) {
  json::Value e = {{"group", "00000000000000ff"},
                   {"workload", "7"},
                   {"choice", 1},
                   {"choice_hash", "0a"},
                   {"decision", "winner"},
                   {"median_us", {1.0, 2.0}},
                   {"device",
                    {{"backend", "cpu"},
                     {"name", "x"},
                     {"uuid", "u"},
                     {"cc", {0, 0}},
                     {"sm_count", 1},
                     {"driver", 0},
                     {"cuda", 0},
                     {"library", "l"}}}};
  std::string text =
      "{\"format\": \"ksnap-tune-cache\", \"version\": 1,\n\"entries\": [\n" + e.dump() + "]}\n";
  if (field.empty()) return text;
  size_t at = text.find("\"" + field + "\":");
  if (at == std::string::npos) return text;
  size_t v = at + field.size() + 3;
  size_t end = v;
  for (int depth = 0; end < text.size(); ++end) {
    char c = text[end];
    if (c == '[' || c == '{') ++depth;
    if ((c == ']' || c == '}') && depth-- == 0) break;
    if (c == ',' && depth == 0) break;
  }
  return text.substr(0, v) + value + text.substr(end);
}

TEST(TuneHostile, CacheWithWrongTypesIsALocatedErrorNotAnAbort) {
  struct Case {
    const char* name;
    std::string text;
    ErrorCode code;
    uint32_t line;
    const char* says;
  };
  const Case cases[] = {
      {"format_number", "{\"format\": 1, \"version\": 1, \"entries\": []}", ErrorCode::kParseError,
       1, "expected string for \"format\", got number"},
      {"format_object", "{\n\"format\": {}, \"version\": 1}", ErrorCode::kParseError, 2,
       "expected string for \"format\", got object"},
      {"version_string", "{\"format\": \"ksnap-tune-cache\",\n\"version\": \"1\"}",
       ErrorCode::kParseError, 2, "expected integer for \"version\", got string"},
      {"entries_object", "{\"format\": \"ksnap-tune-cache\", \"version\": 1, \"entries\": {}}",
       ErrorCode::kParseError, 1, "no \"entries\" array"},
      {"group_number", cache_with("group", "255"), ErrorCode::kCorrupt, 3,
       "expected string for \"group\" in entries[0], got number"},
      {"group_not_hex", cache_with("group", "\"xyz\""), ErrorCode::kCorrupt, 3, "hex hash"},
      {"choice_negative", cache_with("choice", "-1"), ErrorCode::kCorrupt, 3, "expected integer"},
      {"choice_float", cache_with("choice", "1.5"), ErrorCode::kCorrupt, 3, "expected integer"},
      {"median_strings", cache_with("median_us", "[\"fast\"]"), ErrorCode::kCorrupt, 3,
       "expected number for item 0 in entries[0].median_us, got string"},
      {"cc_three", cache_with("cc", "[9, 0, 1]"), ErrorCode::kCorrupt, 3, "[major, minor]"},
      {"sm_count_huge", cache_with("sm_count", "1e10"), ErrorCode::kCorrupt, 3, "expected integer"},
      {"sm_count_out_of_int", cache_with("sm_count", "4294967296"), ErrorCode::kCorrupt, 3,
       "expected integer in [-2147483648, 2147483647]"},
      {"device_string", cache_with("device", "\"gpu\""), ErrorCode::kCorrupt, 3,
       "expected object for \"device\""},
      {"deep",
       "{\"format\": \"ksnap-tune-cache\", \"version\": 1, \"entries\": [" + deep(50000) + "]}",
       ErrorCode::kParseError, 1, "nested deeper"},
      {"invalid_utf8", "{\"format\": \"ksnap-tune-cache\\xff\"}", ErrorCode::kParseError, 1,
       "invalid JSON"},
  };
  ASSERT_TRUE(parse_cache(cache_with("", ""), "ok.json")) << cache_with("", "");
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = parse_cache(c.text, "c.json");
    ASSERT_FALSE(r) << c.text;
    EXPECT_EQ(r.status().code(), c.code) << r.status().to_string();
    EXPECT_EQ(r.status().location().file, "c.json");
    EXPECT_EQ(r.status().location().line, c.line) << r.status().to_string();
    EXPECT_NE(r.status().message().find(c.says), std::string::npos) << r.status().to_string();
  }
}

struct Variants {
  Variants(std::vector<std::string> names, std::vector<double> us)
      : clock(std::make_shared<FakeClock>()) {
    std::vector<CpuVariant> vs;
    for (size_t v = 0; v < names.size(); ++v) {
      double m = us[v];
      vs.push_back({names[v], [this, m](const Workload&, const ArgPack&) { clock->advance(m); }});
    }
    backend = std::make_shared<CpuBackend>(std::move(vs), clock);
  }
  std::shared_ptr<FakeClock> clock;
  std::shared_ptr<CpuBackend> backend;
};

TEST(TuneHostile, GroupWithABadCacheFileRunsAndLeavesTheFileAlone) {
  const std::string path = "/tmp/ksnap_tune_hostile_" + std::to_string(::getpid()) + ".json";
  ASSERT_TRUE(write_file_atomic(path, "{\"format\": 1}").is_ok());
  Variants f({"a", "b"}, {300, 100});
  GroupOptions o;
  o.read_env = false;
  o.cache_path = path;
  auto g = Group::create(f.backend, o);
  ASSERT_TRUE(g) << g.status().to_string();
  EXPECT_NE((*g)->report().cache.find("expected string for \"format\""), std::string::npos)
      << (*g)->report().cache;
  for (int i = 0; i < 300 && !(*g)->decision({7}); ++i)
    ASSERT_TRUE((*g)->dispatch({7}, {}).is_ok());
  EXPECT_EQ((*g)->decision({7}), std::optional<size_t>(1));
  // Not a cache this library can read: the decision is not written over it
  // (a newer version's file, another program's JSON); reported, not fatal.
  auto kept = read_text_file(path);
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->view(), "{\"format\": 1}");
  std::remove(path.c_str());
  std::remove((path + ".lock").c_str());
}

TEST(TuneHostile, NamesThatAreNotUtf8ReachJsonAsEscapes) {
  const std::string path = "/tmp/ksnap_tune_utf8_" + std::to_string(::getpid()) + ".json";
  std::remove(path.c_str());
  Variants f({"slow\xff", "fast\xc3("}, {300, 100});
  GroupOptions o;
  o.read_env = false;
  o.cache_path = path;
  o.name = "group\xfe\x1b[2J";
  auto g = Group::create(f.backend, o);
  ASSERT_TRUE(g) << g.status().to_string();
  for (int i = 0; i < 300 && !(*g)->decision({7}); ++i)
    ASSERT_TRUE((*g)->dispatch({7}, {}).is_ok());
  std::string js = (*g)->report().to_json();
  EXPECT_TRUE(is_valid_utf8(js));
  auto parsed = json::parse(js, "report");
  ASSERT_TRUE(parsed) << parsed.status().to_string();
  EXPECT_EQ((*parsed)["group"], "group\\xfe\x1b[2J");
  EXPECT_EQ((*parsed)["workloads"][0]["variants"][0]["name"], "slow\\xff");
  auto text = read_text_file(path);
  ASSERT_TRUE(text);
  EXPECT_TRUE(is_valid_utf8(text->view()));
  auto entries = parse_cache(text->view(), path);
  ASSERT_TRUE(entries) << entries.status().to_string();
  EXPECT_EQ((*entries)[0].choice_name, "fast\\xc3(");
  std::remove(path.c_str());
  std::remove((path + ".lock").c_str());
}

TEST(TuneHostile, SamplesFiles) {
  struct Case {
    const char* name;
    std::string text;
    uint32_t line;
    const char* says;
  };
  const Case cases[] = {
      {"deep_shape", "{\"shapes\": [{\"shape\": " + deep(50000) + ", \"samples_us\": [[1]]}]}", 1,
       "nested deeper than 100"},
      {"sample_string", "{\"shapes\": [{\"samples_us\": [\n[1, \"2\"]]}]}", 2,
       "expected number for item 1 in shapes[0].samples_us[0], got string"},
      {"variant_not_array", "{\"shapes\": [{\"samples_us\": [\n3]}]}", 2,
       "expected array for item 0 in shapes[0].samples_us, got number"},
      {"shape_not_object", "{\"shapes\": [\n7]}", 2, "expected object for item 0 in shapes"},
      {"device_number", "{\"device\": 5, \"shapes\": [{\"samples_us\": [[1]]}]}", 1,
       "expected string for \"device\""},
      {"choice_string", "{\"shapes\": [{\"samples_us\": [[1]],\n \"autotune_choice\": \"0\"}]}", 2,
       "expected integer"},
      {"configs_object", "{\"configs\": {},\n \"shapes\": [{\"samples_us\": [[1]]}]}", 1,
       "expected array for \"configs\""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto s = parse_samples(c.text, "s.json");
    ASSERT_FALSE(s);
    EXPECT_EQ(s.status().code(), ErrorCode::kParseError);
    EXPECT_EQ(s.status().location().line, c.line) << s.status().to_string();
    EXPECT_NE(s.status().message().find(c.says), std::string::npos) << s.status().to_string();
  }
  // A shape deep but within the limit, and odd labels: a correct result whose JSON report parses.
  std::string ok =
      "{\"configs\": [[\"a\\u0000b\"], {\"k\": [[[1]]]}], \"shapes\": [{\"shape\": " + deep(90) +
      ", \"samples_us\": [[2, 2, 2], [1, 1, 1]]}]}";
  auto s = parse_samples(ok, "ok.json");
  ASSERT_TRUE(s) << s.status().to_string();
  ReplayConfig cfg;
  cfg.trials = 20;
  auto r = replay(*s, cfg);
  ASSERT_TRUE(r) << r.status().to_string();
  std::string js = replay_to_json(*r);
  EXPECT_TRUE(json::parse(js, "replay", 200)) << js.substr(0, 400);
}

TEST(TuneHostile, TritonMetadataRangesAndTypes) {
  struct Case {
    const char* name;
    const char* text;
    const char* says;
  };
  const Case cases[] = {
      {"num_warps_wraps_int", "{\"name\": \"k\", \"num_warps\": 4294967300}", "num_warps"},
      {"num_warps_string", "{\"name\": \"k\", \"num_warps\": \"4\"}", "expected integer"},
      {"shared_negative", "{\"name\": \"k\", \"shared\": -1}", "shared"},
      {"cluster_zero", "{\"name\": \"k\", \"cluster_dims\": [0, 1, 1]}", "must be 1 to 16"},
      {"cluster_17", "{\"name\": \"k\", \"cluster_dims\": [1, 17, 1]}", "must be 1 to 16"},
      {"cluster_huge", "{\"name\": \"k\", \"cluster_dims\": [1e30]}", "expected integer"},
      {"name_number", "{\"name\": 3}", "no kernel \"name\""},
      {"arch_list", "{\"name\": \"k\", \"arch\": [90]}", "expected string for \"arch\""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto m = parse_triton_meta(c.text, "k.json");
    ASSERT_FALSE(m);
    EXPECT_NE(m.status().message().find(c.says), std::string::npos) << m.status().to_string();
  }
}

TEST(TuneHostile, CapturePathsStayInside) {
  const std::string top = "/tmp/ksnap_tune_paths_" + std::to_string(::getpid());
  fs::remove_all(top);
  fs::create_directories(top + "/cap/cache/H");
  fs::create_directories(top + "/outside");
  std::ofstream(top + "/outside/k.json") << "{\"name\": \"k\"}";
  std::ofstream(top + "/outside/k.cubin") << "ELF";
  std::ofstream(top + "/cap/cache/H/k.json") << "{\"name\": \"k\"}";
  auto manifest = [&](const std::string& cache_dir) {
    std::ofstream(top + "/cap/manifest.json")
        << "{\"entries\": [{\"kernel\": \"k\", \"cache_dir\": \"" << cache_dir << "\"}]}";
  };
  manifest("../../outside");
  auto r = load_capture_kernel(top + "/cap", "k");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument) << r.status().to_string();
  fs::create_symlink(top + "/outside", top + "/cap/cache/OUT");
  manifest("OUT");
  r = load_capture_kernel(top + "/cap", "k", /*read_cubins=*/false);
  ASSERT_FALSE(r);
  EXPECT_NE(r.status().message().find("symbolic link"), std::string::npos)
      << r.status().to_string();
  manifest("H");
  fs::create_symlink(top + "/outside/k.cubin", top + "/cap/cache/H/k.cubin");
  r = load_capture_kernel(top + "/cap", "k");
  ASSERT_FALSE(r);
  EXPECT_NE(r.status().message().find("symbolic link"), std::string::npos)
      << r.status().to_string();
  EXPECT_TRUE(load_capture_kernel(top + "/cap", "k", /*read_cubins=*/false));
  fs::remove_all(top);
}

}  // namespace
}  // namespace ksnap::tune

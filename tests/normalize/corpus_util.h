// Test helpers for the real Triton corpus (support/corpus_dir.h: the shared
// one, else the bundled example): its builds, their variants paired by the
// truth keys, and file loading. Header-only: tests/CMakeLists.txt compiles
// only *_test.cc files.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "ksnap/ir/lexer.h"
#include "ksnap/normalize/normalize.h"
#include "ksnap/support/file.h"
#include "support/corpus_dir.h"

namespace ksnap::norm::testing {

inline const std::vector<std::string>& corpus_stages() {
  static const std::vector<std::string> kStages = {"ttir", "ttgir", "llir", "ptx"};
  return kStages;
}

namespace detail {

inline nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str(), nullptr, /*allow_exceptions=*/false);
}

/// Python json.dumps(obj, sort_keys=True) for a flat object of scalars.
inline std::string py_dumps(const nlohmann::json& obj) {
  std::string out = "{";
  bool first = true;
  for (auto it = obj.begin(); it != obj.end(); ++it) {  // nlohmann keeps keys sorted
    if (!first) out += ", ";
    first = false;
    out += nlohmann::json(it.key()).dump() + ": " + it.value().dump();
  }
  return out + "}";
}

}  // namespace detail

using ksnap::testing::corpus_dir;

inline std::map<std::string, std::string> load_build(const std::string& build) {
  std::map<std::string, std::string> out;
  std::string root = corpus_dir() + "/" + build;
  nlohmann::json m = detail::read_json(root + "/manifest.json");
  if (m.is_discarded()) return out;
  nlohmann::json build_opts = m.value("options", nlohmann::json::object());
  for (const auto& e : m["entries"]) {
    nlohmann::json opts = e["options"];
    for (auto it = build_opts.begin(); it != build_opts.end(); ++it) opts.erase(it.key());
    std::string kernel = e["kernel"].get<std::string>();
    std::string key = kernel + "|" + detail::py_dumps(e["constexprs"]) + "|" + detail::py_dumps(opts);
    out[key] = root + "/cache/" + e["cache_dir"].get<std::string>() + "/" + kernel;
  }
  return out;
}

inline std::map<std::string, bool> load_truth(const std::string& pair) {
  std::map<std::string, bool> out;
  const nlohmann::json& t = ksnap::testing::corpus_truth();
  if (!t.is_object() || !t.contains("pairs") || !t["pairs"].contains(pair)) return out;
  for (const auto& [key, row] : t["pairs"][pair]["rows"].items()) {
    out[key] = row["changed"].get<bool>();
  }
  return out;
}

inline void split_row_key(const std::string& row, std::string* variant, std::string* stage) {
  size_t bar = row.rfind('|');
  *variant = row.substr(0, bar);
  *stage = row.substr(bar + 1);
}

inline ir::Dialect dialect_of(const std::string& stage) {
  ir::Dialect d = ir::Dialect::kMlir;
  EXPECT_TRUE(ir::dialect_for_stage(stage, &d)) << stage;
  return d;
}

inline TextBuffer read_or_die(const std::string& path) {
  auto buf = read_text_file(path);
  EXPECT_TRUE(buf) << buf.status().to_string();
  return buf ? std::move(*buf) : TextBuffer();
}

inline std::vector<std::string> corpus_files(const std::string& build) {
  std::vector<std::string> out;
  for (const auto& [key, prefix] : load_build(build)) {
    for (const std::string& stage : corpus_stages()) out.push_back(prefix + "." + stage);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace ksnap::norm::testing

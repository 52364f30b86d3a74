// Which real Triton corpus the corpus tests read: the shared one
// (KSNAP_CORPUS_DIR, 19 variants) where it is there, else the subset bundled
// in examples/corpus (KSNAP_EXAMPLE_DIR, 8 of them, the same layout), so that
// a clean clone (CI) runs these tests too. What depends on the corpus (how
// many variants, kernels, changed stages) comes from its truth.json, never
// from constants. Header-only, standard library and nlohmann-json only: every
// test binary may include it.
#pragma once

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace ksnap::testing {

inline bool shared_corpus_present() {
  return std::filesystem::is_regular_file(std::string(KSNAP_CORPUS_DIR) + "/truth.json");
}

/// The shared corpus where present, else the bundled example.
inline std::string corpus_dir() {
  return shared_corpus_present() ? KSNAP_CORPUS_DIR : KSNAP_EXAMPLE_DIR;
}

/// The corpus read, named for messages and figures.
inline std::string corpus_name() {
  return shared_corpus_present() ? "../shared/corpus" : "examples/corpus";
}

/// corpus_dir()'s truth.json (discarded when unreadable: the tests fail).
inline const nlohmann::json& corpus_truth() {
  static const nlohmann::json kTruth = [] {
    std::ifstream in(corpus_dir() + "/truth.json");
    return nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  }();
  return kTruth;
}

/// The variants (kernel|constexprs|options) of truth.json's rows of `pair`,
/// or of those rows marked changed.
inline std::set<std::string> truth_variants(const std::string& pair = "base..noise",
                                            bool changed_only = false) {
  std::set<std::string> out;
  const nlohmann::json& truth = corpus_truth();
  if (!truth.is_object() || !truth.contains("pairs") || !truth["pairs"].contains(pair)) return out;
  for (const auto& [row, value] : truth["pairs"][pair]["rows"].items()) {
    if (!changed_only || value["changed"].get<bool>()) out.insert(row.substr(0, row.rfind('|')));
  }
  return out;
}

/// The kernels of truth_variants(pair, changed_only).
inline std::set<std::string> truth_kernels(const std::string& pair = "base..noise",
                                           bool changed_only = false) {
  std::set<std::string> out;
  for (const std::string& v : truth_variants(pair, changed_only))
    out.insert(v.substr(0, v.find('|')));
  return out;
}

}  // namespace ksnap::testing

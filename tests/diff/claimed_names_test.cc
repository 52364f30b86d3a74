// ClaimedNames, the incremental claimed-name index of the structural diff,
// against the definition it replaces (a rescan of the whole symbol map for
// every unit, kept here as the oracle) on real many-function IR: each
// stage's files of the corpus's 19 variants renamed and concatenated into
// one module per side (BASE: `base`, HEAD: `no_licm`).
#include "diff/claimed_names.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ksnap/build/build.h"
#include "ksnap/support/file.h"

namespace fs = std::filesystem;

namespace ksnap::diff {
namespace {

using norm::Module;

/// The definition before the index (Differ::collect_claimed_names as it was):
/// the names of BASE symbols some HEAD symbol is mapped to; `unit`: only
/// HEAD symbols of module scope or of `head_unit`.
struct Rescan {
  std::unordered_set<std::string> all, unit;
};
Rescan rescan(const Module& base, const Module& head, const std::vector<int32_t>& map,
              int32_t head_unit) {
  Rescan r;
  for (uint32_t h = 0; h < map.size(); ++h) {
    int32_t b = map[h];
    if (b < 0) continue;
    r.all.emplace(base.symbols[b].name);
    int32_t u = head.symbols[h].unit;
    if (u < 0 || u == head_unit) r.unit.emplace(base.symbols[b].name);
  }
  return r;
}

std::string corpus_dir() {
  std::string dir = KSNAP_CORPUS_DIR;
  return fs::exists(dir + "/no_licm/manifest.json") ? dir : KSNAP_EXAMPLE_DIR;
}

/// Every variant's `stage` file of `build`, each with its kernel's name
/// suffixed by the variant's index (so that every function has its own
/// name), concatenated in the build's order.
std::string many_functions(const std::string& build, const std::string& stage) {
  auto b = build::load_build(corpus_dir() + "/" + build);
  EXPECT_TRUE(b) << b.status().to_string();
  if (!b) return "";
  // Variants in a stable order: the builds list them alike, by kernel and
  // constexprs.
  std::map<std::string, const build::Variant*> ordered;
  for (const build::Variant& v : b->variants) {
    std::string key = v.kernel;
    for (const auto& [k, val] : v.constexprs) key += "|" + k + "=" + val;
    ordered.emplace(key, &v);
  }
  std::string out;
  size_t k = 0;
  for (const auto& [key, v] : ordered) {
    for (const build::StageFile& f : v->stages) {
      if (f.stage != stage) continue;
      auto text = read_text_file(f.path);
      EXPECT_TRUE(text) << f.path;
      if (!text) continue;
      std::string t(text->view()), renamed;
      std::string suffixed = v->kernel + "_v" + std::to_string(k);
      for (size_t at = 0;;) {
        size_t hit = t.find(v->kernel, at);
        renamed.append(t, at, hit == std::string::npos ? std::string::npos : hit - at);
        if (hit == std::string::npos) break;
        renamed += suffixed;
        at = hit + v->kernel.size();
      }
      out += renamed;
      out += "\n";
    }
    ++k;
  }
  return out;
}

/// Every name either side spells, and each without its sigil (as the text
/// scan of the diff asks).
std::vector<std::string> all_names(const Module& base, const Module& head) {
  std::unordered_set<std::string> names;
  for (const Module* m : {&base, &head})
    for (const norm::Symbol& s : m->symbols) {
      names.emplace(s.name);
      if (!s.name.empty()) names.emplace(s.name.substr(1));
    }
  return {names.begin(), names.end()};
}

/// How often each query answered yes and no.
struct Answers {
  size_t claimed[2] = {0, 0}, unit_claimed[2] = {0, 0};
};

/// Each query of the index equals the rescan's, for every name of `names`.
void expect_same(const ClaimedNames& index, const Rescan& r, const std::vector<std::string>& names,
                 const std::string& where, Answers* answers) {
  EXPECT_EQ(index.unit_none(), r.unit.empty()) << where;
  for (const std::string& n : names) {
    bool claimed = index.claimed(n), unit_claimed = index.unit_claimed(n);
    ASSERT_EQ(claimed, r.all.count(n) != 0) << where << ": " << n;
    ASSERT_EQ(unit_claimed, r.unit.count(n) != 0) << where << ": " << n;
    ++answers->claimed[claimed];
    ++answers->unit_claimed[unit_claimed];
  }
  EXPECT_FALSE(index.claimed("%no_such_name") || index.unit_claimed("%no_such_name")) << where;
}

/// Drives the index the way the structural diff drives it: module-scope
/// symbols mapped first, then unit by unit (paired by name, BASE order, then
/// HEAD's unpaired units) each HEAD symbol mapped to the BASE symbol of the
/// paired unit with the same class and canonical id; some mappings are then
/// forgotten (re-learning), some re-pointed many-to-one (a repeated
/// computation), some module-scope ones dropped; after each unit the index
/// is compared with the rescan. Then every unit again (the canonical-only
/// second pass) and a BASE-only unit.
void check_stage(const std::string& stage, ir::Dialect dialect) {
  std::string base_text = many_functions("base", stage),
              head_text = many_functions("no_licm", stage);
  ASSERT_FALSE(base_text.empty());
  auto base = norm::normalize(TextBuffer("base." + stage, base_text), dialect);
  auto head = norm::normalize(TextBuffer("head." + stage, head_text), dialect);
  ASSERT_TRUE(base) << base.status().to_string();
  ASSERT_TRUE(head) << head.status().to_string();
  // 19 kernels in the shared corpus; 9 in the bundled example (a clone
  // without ../shared falls back to it).
  const size_t units = corpus_dir() == KSNAP_EXAMPLE_DIR ? 9u : 19u;
  ASSERT_GE(base->units.size(), units) << stage;
  ASSERT_GE(head->units.size(), units) << stage;

  std::vector<std::vector<uint32_t>> base_syms(base->units.size()), head_syms(head->units.size());
  std::vector<uint32_t> base_globals, head_globals;
  for (uint32_t b = 0; b < base->symbols.size(); ++b) {
    int32_t u = base->symbols[b].unit;
    (u < 0 ? base_globals : base_syms[u]).push_back(b);
  }
  for (uint32_t h = 0; h < head->symbols.size(); ++h) {
    int32_t u = head->symbols[h].unit;
    (u < 0 ? head_globals : head_syms[u]).push_back(h);
  }
  auto key = [](const norm::Symbol& s) { return s.canonical * 31 + static_cast<uint64_t>(s.cls); };

  std::vector<int32_t> map(head->symbols.size(), -1);
  ClaimedNames index(*base, *head);
  auto set = [&](uint32_t h, int32_t b) {
    if (map[h] >= 0) index.remove(h, static_cast<uint32_t>(map[h]));
    map[h] = b;
    if (b >= 0) index.add(h, static_cast<uint32_t>(b));
  };
  auto map_alike = [&](const std::vector<uint32_t>& bs, const std::vector<uint32_t>& hs) {
    std::unordered_map<uint64_t, uint32_t> by_key;
    for (uint32_t b : bs) by_key.emplace(key(base->symbols[b]), b);
    std::vector<uint32_t> mapped;
    for (uint32_t h : hs) {
      auto it = by_key.find(key(head->symbols[h]));
      if (it == by_key.end()) continue;
      set(h, static_cast<int32_t>(it->second));
      mapped.push_back(h);
    }
    return mapped;
  };
  std::vector<uint32_t> globals = map_alike(base_globals, head_globals);
  const std::vector<std::string> names = all_names(*base, *head);
  Answers answers;

  std::map<std::string, std::vector<int32_t>> head_by_name;
  for (int32_t j = static_cast<int32_t>(head->units.size()); j-- > 0;)
    head_by_name[head->units[j].name].push_back(j);
  std::vector<bool> head_used(head->units.size(), false);
  std::vector<int32_t> order;
  for (size_t i = 0; i < base->units.size(); ++i) {
    auto it = head_by_name.find(base->units[i].name);
    if (it == head_by_name.end() || it->second.empty()) continue;
    int32_t j = it->second.back();
    it->second.pop_back();
    head_used[j] = true;
    std::vector<uint32_t> mapped = map_alike(base_syms[i], head_syms[j]);
    for (size_t k = 0; k < mapped.size(); ++k) {
      if (k % 5 == 1) set(mapped[k], -1);  // forgotten
      if (k % 7 == 3 && k > 0) set(mapped[k], map[mapped[k - 1]] >= 0 ? map[mapped[k - 1]] : -1);
    }
    if (order.size() == 3)  // module scope changes too
      for (size_t k = 0; k < globals.size(); k += 3) set(globals[k], -1);
    order.push_back(j);
    index.enter_unit(j, map);
    expect_same(index, rescan(*base, *head, map, j), names, stage + " unit " + head->units[j].name,
                &answers);
  }
  for (int32_t j = 0; j < static_cast<int32_t>(head->units.size()); ++j)
    if (!head_used[j]) order.push_back(j);
  for (int32_t j : order) {
    index.enter_unit(j, map);
    expect_same(index, rescan(*base, *head, map, j), names,
                stage + " second pass, unit " + head->units[j].name, &answers);
  }
  index.enter_unit(-2, map);
  expect_same(index, rescan(*base, *head, map, -2), names, stage + " no HEAD unit", &answers);
  // The comparison saw both answers of both queries.
  for (const size_t* seen : {answers.claimed, answers.unit_claimed}) {
    EXPECT_GT(seen[0], 0u) << stage;
    EXPECT_GT(seen[1], 0u) << stage;
  }
}

TEST(ClaimedNames, EqualsRescanOnManyFunctionLlvmIr) { check_stage("llir", ir::Dialect::kLlvm); }
TEST(ClaimedNames, EqualsRescanOnManyFunctionPtx) { check_stage("ptx", ir::Dialect::kPtx); }
TEST(ClaimedNames, EqualsRescanOnManyFunctionTtgir) { check_stage("ttgir", ir::Dialect::kMlir); }

}  // namespace
}  // namespace ksnap::diff

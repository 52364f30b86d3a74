#include "diff/pairing.h"

#include <algorithm>
#include <map>
#include <set>

namespace ksnap::diff {

namespace {

using build::Variant;

std::string exact_key(const Variant& v) {
  return v.kernel + "\x1f" + v.signature + "\x1f" + v.constexprs_text() + "\x1f" +
         v.options_text() + (v.constexprs_known ? "" : "\x1f" + v.cache_dir);
}

std::string constexpr_key(const Variant& v) { return v.kernel + "\x1f" + v.constexprs_text(); }

std::string metadata_key(const Variant& v) {
  std::string k = v.kernel;
  for (const char* o : {"num_warps", "num_stages", "num_ctas", "maxnreg"}) {
    auto it = v.compile_options.find(o);
    k += "\x1f";
    if (it != v.compile_options.end()) k += it->second;
  }
  for (const auto& s : v.stages) k += "\x1f" + s.stage;
  return k;
}

/// Inference (metadata, similarity) may pair two variants only when at least
/// one of them comes from a bare cache: two variants whose constexprs are both
/// known are the same variant only if their constexprs say so (steps 1-2).
bool may_infer(const Variant& b, const Variant& h) {
  return !(b.constexprs_known && h.constexprs_known);
}

bool always(const Variant&, const Variant&) { return true; }

/// Pairs the still-free variants whose `key` is unique on both sides and
/// that `allowed` accepts.
template <typename KeyFn, typename AllowFn>
void pair_unique(const build::Build& base, const build::Build& head, std::vector<int>* bfree,
                 std::vector<int>* hfree, KeyFn key, AllowFn allowed, Pairing kind,
                 std::vector<VariantPair>* out) {
  std::map<std::string, std::vector<int>> bk, hk;
  for (int i : *bfree) bk[key(base.variants[i])].push_back(i);
  for (int j : *hfree) hk[key(head.variants[j])].push_back(j);
  std::set<int> bused, hused;
  for (const auto& [k, bs] : bk) {
    auto it = hk.find(k);
    if (it == hk.end() || bs.size() != 1 || it->second.size() != 1) continue;
    if (!allowed(base.variants[bs[0]], head.variants[it->second[0]])) continue;
    out->push_back({bs[0], it->second[0], kind});
    bused.insert(bs[0]);
    hused.insert(it->second[0]);
  }
  std::erase_if(*bfree, [&](int i) { return bused.count(i) > 0; });
  std::erase_if(*hfree, [&](int j) { return hused.count(j) > 0; });
}

}  // namespace

std::vector<VariantPair> pair_variants(const build::Build& base, const build::Build& head,
                                       SimilarityFn similarity, void* ctx) {
  std::vector<VariantPair> out;
  std::vector<int> bfree, hfree;
  for (int i = 0; i < static_cast<int>(base.variants.size()); ++i) bfree.push_back(i);
  for (int j = 0; j < static_cast<int>(head.variants.size()); ++j) hfree.push_back(j);

  // 1. Exact identity; duplicates (the same variant listed twice) pair in order.
  {
    std::map<std::string, std::vector<int>> hk;
    for (int j : hfree) hk[exact_key(head.variants[j])].push_back(j);
    for (auto& [k, v] : hk) std::reverse(v.begin(), v.end());
    std::vector<int> bleft;
    for (int i : bfree) {
      const Variant& b = base.variants[i];
      auto it = hk.find(exact_key(b));
      if (b.constexprs_known && it != hk.end() && !it->second.empty() &&
          head.variants[it->second.back()].constexprs_known) {
        out.push_back({i, it->second.back(), Pairing::kExact});
        it->second.pop_back();
      } else {
        bleft.push_back(i);
      }
    }
    std::set<int> hleft;
    for (auto& [k, v] : hk)
      for (int j : v) hleft.insert(j);
    bfree = bleft;
    std::erase_if(hfree, [&](int j) { return hleft.count(j) == 0; });
  }
  // 2. Kernel + constexprs (only where both sides know constexprs).
  {
    std::vector<int> bk, hk, brest, hrest;
    for (int i : bfree) (base.variants[i].constexprs_known ? bk : brest).push_back(i);
    for (int j : hfree) (head.variants[j].constexprs_known ? hk : hrest).push_back(j);
    pair_unique(base, head, &bk, &hk, constexpr_key, always, Pairing::kOptionsDiffer, &out);
    bfree = bk;
    bfree.insert(bfree.end(), brest.begin(), brest.end());
    hfree = hk;
    hfree.insert(hfree.end(), hrest.begin(), hrest.end());
  }
  // 3. Metadata, then 4. similarity, for what is left where a side is a bare
  // cache. Between capture folders a leftover is removed or added: never
  // paired with a variant of other constexprs.
  pair_unique(base, head, &bfree, &hfree, metadata_key, may_infer, Pairing::kInferred, &out);
  if (similarity && !bfree.empty() && !hfree.empty()) {
    struct Cand {
      double s;
      int i, j;
    };
    std::vector<Cand> cands;
    for (int i : bfree)
      for (int j : hfree)
        if (base.variants[i].kernel == head.variants[j].kernel &&
            may_infer(base.variants[i], head.variants[j]))
          cands.push_back({similarity(base.variants[i], head.variants[j], ctx), i, j});
    std::stable_sort(cands.begin(), cands.end(),
                     [](const Cand& a, const Cand& b) { return a.s > b.s; });
    std::set<int> bu, hu;
    for (const Cand& c : cands) {
      if (c.s < 0.5 || bu.count(c.i) || hu.count(c.j)) continue;
      out.push_back({c.i, c.j, Pairing::kInferred});
      bu.insert(c.i);
      hu.insert(c.j);
    }
    std::erase_if(bfree, [&](int i) { return bu.count(i) > 0; });
    std::erase_if(hfree, [&](int j) { return hu.count(j) > 0; });
  }
  for (int i : bfree) out.push_back({i, -1, Pairing::kRemoved});
  for (int j : hfree) out.push_back({-1, j, Pairing::kAdded});
  // Report order: BASE's order, added variants after the last of their kernel.
  std::stable_sort(out.begin(), out.end(), [&](const VariantPair& x, const VariantPair& y) {
    auto rank = [&](const VariantPair& p) {
      return p.base >= 0 ? static_cast<long>(p.base) * 2
                         : static_cast<long>(base.variants.size()) * 2 + p.head;
    };
    return rank(x) < rank(y);
  });
  return out;
}

std::vector<OptionChange> option_changes(const build::Variant& b, const build::Variant& h) {
  std::vector<OptionChange> out;
  std::set<std::string> names;
  for (const auto& [k, v] : b.options) names.insert(k);
  for (const auto& [k, v] : h.options) names.insert(k);
  for (const auto& [k, v] : b.compile_options) names.insert(k);
  for (const auto& [k, v] : h.compile_options) names.insert(k);
  auto get = [](const Variant& v, const std::string& k) -> std::string {
    auto it = v.options.find(k);
    if (it != v.options.end()) return it->second;
    auto jt = v.compile_options.find(k);
    return jt != v.compile_options.end() ? jt->second : "";
  };
  for (const std::string& k : names) {
    std::string x = get(b, k), y = get(h, k);
    if (x != y) out.push_back({k, x, y});
  }
  return out;
}

}  // namespace ksnap::diff

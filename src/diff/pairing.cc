#include "ksnap/diff/pairing.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace ksnap::diff {

namespace {

using build::Variant;

/// Identity keys start with the kernel: its name and the source it is
/// defined in (BASE's spelling for both sides, see continued_sources); the
/// rest is the variant's capture::VariantKey (variant_text: signature,
/// constexprs, options; leftover_text: constexprs).
std::string kernel_key(const Variant& v, const std::string& source) {
  return v.kernel + "\x1f" + source;
}

std::string exact_key(const Variant& v, const std::string& source) {
  return kernel_key(v, source) + "\x1f" + capture::variant_text(v) +
         (v.constexprs_known ? "" : "\x1f" + v.cache_dir);
}

std::string constexpr_key(const Variant& v, const std::string& source) {
  return kernel_key(v, source) + "\x1f" + capture::leftover_text(v);
}

std::string metadata_key(const Variant& v, const std::string& source) {
  std::string k = kernel_key(v, source);
  for (const char* o : {"num_warps", "num_stages", "num_ctas", "maxnreg"}) {
    auto it = v.compile_options.find(o);
    k += "\x1f";
    if (it != v.compile_options.end()) k += it->second;
  }
  for (const auto& s : v.stages) k += "\x1f" + s.stage;
  return k;
}

/// Sources (Variant::source()) with their components.
using SourceSet = std::map<std::string, std::vector<std::string>>;

/// Pairs free HEAD sources with free BASE sources where `score(b, h)` (> 0)
/// is the unique best for both; repeated, as accepted pairs free others'
/// choices. Adds HEAD -> BASE to `out`.
template <typename ScoreFn>
void match_mutual_best(std::set<std::string>* bfree, std::set<std::string>* hfree, ScoreFn score,
                       std::map<std::string, std::string>* out) {
  // The unique best candidate of `one` among `cands` (score > 0), else "".
  auto best = [&](const std::string& one, const std::set<std::string>& cands, bool one_is_head) {
    double top = 0;
    size_t ties = 0;
    const std::string* who = nullptr;
    for (const std::string& c : cands) {
      double x = one_is_head ? score(c, one) : score(one, c);
      if (x > top) top = x, ties = 0, who = &c;
      else if (x == top) ++ties;
    }
    return top > 0 && ties == 0 ? *who : std::string();
  };
  for (bool progress = true; progress && !bfree->empty() && !hfree->empty();) {
    progress = false;
    for (const std::string& h : std::set<std::string>(*hfree)) {
      if (bfree->empty()) break;
      std::string b = best(h, *bfree, true);
      if (b.empty() || best(b, *hfree, false) != h) continue;
      (*out)[h] = b;
      bfree->erase(b);
      hfree->erase(h);
      progress = true;
    }
  }
}

/// Matches the sources of two builds as files / modules, whatever kernels
/// they define: equal; then the longest common tail of components; then the
/// most similar set of kernel names defined there (Jaccard >= 1/2), each the
/// unique best for both sides. HEAD source -> BASE source; "" never matches.
std::map<std::string, std::string> match_files(const build::Build& base, const build::Build& head) {
  std::map<std::string, std::set<std::string>> bk, hk;  // source -> kernel names
  SourceSet bparts, hparts;
  for (auto [b, kernels, parts] : {std::tuple{&base, &bk, &bparts}, std::tuple{&head, &hk, &hparts}})
    for (const Variant& v : b->variants) {
      std::string src = v.source();
      if (src.empty()) continue;
      (*kernels)[src].insert(v.kernel);
      if (!parts->count(src)) parts->emplace(src, build::source_components(v));
    }
  std::map<std::string, std::string> out;
  std::set<std::string> bfree, hfree;
  for (const auto& [src, k] : bk) bfree.insert(src);
  for (const auto& [src, k] : hk) {
    if (bfree.erase(src)) out[src] = src;
    else hfree.insert(src);
  }
  match_mutual_best(&bfree, &hfree, [&](const std::string& b, const std::string& h) {
    return static_cast<double>(build::common_source_suffix(bparts.at(b), hparts.at(h)));
  }, &out);
  match_mutual_best(&bfree, &hfree, [&](const std::string& b, const std::string& h) {
    const auto &x = bk.at(b), &y = hk.at(h);
    size_t inter = 0;
    for (const std::string& k : x) inter += y.count(k);
    double j = static_cast<double>(inter) / static_cast<double>(x.size() + y.size() - inter);
    return j >= 0.5 ? j : 0.0;
  }, &out);
  return out;
}

std::map<std::string, SourceSet> sources_by_kernel(const build::Build& b) {
  std::map<std::string, SourceSet> out;
  for (const Variant& v : b.variants) {
    SourceSet& s = out[v.kernel];
    std::string src = v.source();
    if (!s.count(src)) s.emplace(src, build::source_components(v));
  }
  return out;
}

/// Matches the sources of one kernel name: HEAD source -> BASE source.
/// `files` is match_files() of the two builds.
std::map<std::string, std::string> match_sources(const SourceSet& bs, const SourceSet& hs,
                                                 const std::map<std::string, std::string>& files) {
  std::map<std::string, std::string> out;
  std::set<std::string> bfree, hfree;
  for (const auto& [src, parts] : bs) bfree.insert(src);
  for (const auto& [src, parts] : hs) {
    if (bfree.erase(src)) out[src] = src;  // the same source
    else hfree.insert(src);
  }
  // Longest common tail of components among the sources of this kernel name.
  match_mutual_best(&bfree, &hfree, [&](const std::string& b, const std::string& h) {
    return static_cast<double>(build::common_source_suffix(bs.at(b), hs.at(h)));
  }, &out);
  // The files matched as wholes (by tail or by the kernels they define).
  for (const std::string& h : std::set<std::string>(hfree)) {
    auto it = files.find(h);
    if (it == files.end() || !bfree.count(it->second)) continue;
    out[h] = it->second;
    bfree.erase(it->second);
    hfree.erase(h);
  }
  // One source left on each side: the kernel moved (file renamed, module moved).
  if (bfree.size() == 1 && hfree.size() == 1) out[*hfree.begin()] = *bfree.begin();
  return out;
}

/// For each HEAD variant, the BASE source its kernel continues, or its own
/// source when it continues none.
std::vector<std::string> continued_sources(const build::Build& base, const build::Build& head) {
  std::map<std::string, SourceSet> bk = sources_by_kernel(base), hk = sources_by_kernel(head);
  const std::map<std::string, std::string> files = match_files(base, head);
  std::map<std::string, std::map<std::string, std::string>> match;
  for (const auto& [kernel, hs] : hk) {
    auto it = bk.find(kernel);
    if (it != bk.end()) match[kernel] = match_sources(it->second, hs, files);
  }
  std::vector<std::string> out;
  for (const Variant& v : head.variants) {
    std::string src = v.source();
    auto& m = match[v.kernel];
    auto it = m.find(src);
    out.push_back(it != m.end() ? it->second : src);
  }
  return out;
}

/// Both builds and the source every variant's kernel has in BASE's terms.
struct Sides {
  const build::Build& base;
  const build::Build& head;
  std::vector<std::string> bsrc, hsrc;
};

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
void pair_unique(const Sides& s, std::vector<int>* bfree, std::vector<int>* hfree, KeyFn key,
                 AllowFn allowed, Pairing kind, std::vector<VariantPair>* out) {
  const build::Build &base = s.base, &head = s.head;
  std::map<std::string, std::vector<int>> bk, hk;
  for (int i : *bfree) bk[key(base.variants[i], s.bsrc[i])].push_back(i);
  for (int j : *hfree) hk[key(head.variants[j], s.hsrc[j])].push_back(j);
  std::set<int> bused, hused;
  for (const auto& [k, bs] : bk) {
    auto it = hk.find(k);
    if (it == hk.end() || bs.size() != 1 || it->second.size() != 1) continue;
    if (!allowed(base.variants[bs[0]], head.variants[it->second[0]])) continue;
    out->push_back({bs[0], it->second[0], kind, {}});
    bused.insert(bs[0]);
    hused.insert(it->second[0]);
  }
  std::erase_if(*bfree, [&](int i) { return bused.count(i) > 0; });
  std::erase_if(*hfree, [&](int j) { return hused.count(j) > 0; });
}

}  // namespace

std::vector<VariantPair> pair_variants(const build::Build& base, const build::Build& head,
                                       SimilarityFn similarity, void* ctx) {
  Sides sides{base, head, {}, continued_sources(base, head)};
  for (const Variant& v : base.variants) sides.bsrc.push_back(v.source());
  std::vector<VariantPair> out;
  std::vector<int> bfree, hfree;
  for (int i = 0; i < static_cast<int>(base.variants.size()); ++i) bfree.push_back(i);
  for (int j = 0; j < static_cast<int>(head.variants.size()); ++j) hfree.push_back(j);

  // 1. Exact identity; duplicates (the same variant listed twice) pair in order.
  {
    std::map<std::string, std::vector<int>> hk;
    for (int j : hfree) hk[exact_key(head.variants[j], sides.hsrc[j])].push_back(j);
    for (auto& [k, v] : hk) std::reverse(v.begin(), v.end());
    std::vector<int> bleft;
    for (int i : bfree) {
      const Variant& b = base.variants[i];
      auto it = hk.find(exact_key(b, sides.bsrc[i]));
      if (b.constexprs_known && it != hk.end() && !it->second.empty() &&
          head.variants[it->second.back()].constexprs_known) {
        out.push_back({i, it->second.back(), Pairing::kExact, {}});
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
    pair_unique(sides, &bk, &hk, constexpr_key, always, Pairing::kOptionsDiffer, &out);
    bfree = bk;
    bfree.insert(bfree.end(), brest.begin(), brest.end());
    hfree = hk;
    hfree.insert(hfree.end(), hrest.begin(), hrest.end());
  }
  // 3. Metadata, then 4. similarity, for what is left where a side is a bare
  // cache. Between capture folders a leftover is removed or added: never
  // paired with a variant of other constexprs.
  pair_unique(sides, &bfree, &hfree, metadata_key, may_infer, Pairing::kInferred, &out);
  if (similarity && !bfree.empty() && !hfree.empty()) {
    struct Cand {
      double s;
      int i, j;
    };
    std::vector<Cand> cands;
    for (int i : bfree)
      for (int j : hfree)
        if (kernel_key(base.variants[i], sides.bsrc[i]) ==
                kernel_key(head.variants[j], sides.hsrc[j]) &&
            may_infer(base.variants[i], head.variants[j]))
          cands.push_back({similarity(base.variants[i], head.variants[j], ctx), i, j});
    std::stable_sort(cands.begin(), cands.end(),
                     [](const Cand& a, const Cand& b) { return a.s > b.s; });
    std::set<int> bu, hu;
    for (const Cand& c : cands) {
      if (c.s < 0.5 || bu.count(c.i) || hu.count(c.j)) continue;
      out.push_back({c.i, c.j, Pairing::kInferred, {}});
      bu.insert(c.i);
      hu.insert(c.j);
    }
    std::erase_if(bfree, [&](int i) { return bu.count(i) > 0; });
    std::erase_if(hfree, [&](int j) { return hu.count(j) > 0; });
  }
  for (int i : bfree) out.push_back({i, -1, Pairing::kRemoved, {}});
  for (int j : hfree) out.push_back({-1, j, Pairing::kAdded, {}});
  for (VariantPair& p : out) p.source = p.base >= 0 ? sides.bsrc[p.base] : sides.hsrc[p.head];
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

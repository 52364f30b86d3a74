#include "diff/align.h"

#include <algorithm>
#include <unordered_map>

namespace ksnap::diff {

namespace {

struct Aligner {
  const std::vector<uint64_t>& a;
  const std::vector<uint64_t>& b;
  uint64_t dp_limit;
  std::vector<Match> out;
  /// Match only keys unique in both gaps: where a key repeats, which copy
  /// goes with which is left to a coarser level.
  bool unique_only = false;
  AlignLimits* limits = nullptr;  ///< Gaps given up are added here (optional).
  int max_depth = 64;              ///< Rarest-key anchoring depth (AlignLimits::max_depth).

  void run(uint32_t a0, uint32_t a1, uint32_t b0, uint32_t b1, int depth) {
    // Common prefix and suffix (emitted after the middle): positional, so
    // not where only unique keys may match.
    uint32_t sa = a1, sb = b1;
    if (!unique_only) {
      while (a0 < a1 && b0 < b1 && a[a0] == b[b0]) out.emplace_back(a0++, b0++);
      while (a0 < sa && b0 < sb && a[sa - 1] == b[sb - 1]) --sa, --sb;
    }
    if (a0 < sa && b0 < sb) middle(a0, sa, b0, sb, depth);
    for (uint32_t i = 0; sa + i < a1; ++i) out.emplace_back(sa + i, sb + i);
  }

  void middle(uint32_t a0, uint32_t a1, uint32_t b0, uint32_t b1, int depth) {
    // Unique-in-both anchors.
    struct Count {
      uint32_t na = 0, nb = 0, ia = 0, ib = 0;
    };
    std::unordered_map<uint64_t, Count> counts;
    counts.reserve((a1 - a0) + (b1 - b0));
    for (uint32_t i = a0; i < a1; ++i) {
      Count& c = counts[a[i]];
      ++c.na;
      c.ia = i;
    }
    for (uint32_t j = b0; j < b1; ++j) {
      auto it = counts.find(b[j]);
      if (it == counts.end()) continue;
      ++it->second.nb;
      it->second.ib = j;
    }
    std::vector<Match> cand;
    for (uint32_t i = a0; i < a1; ++i) {
      const Count& c = counts[a[i]];
      if (c.na == 1 && c.nb == 1) cand.emplace_back(i, c.ib);
    }
    if (!cand.empty() && depth < 64) {
      // Longest increasing subsequence on b index (cand is sorted by a index).
      std::vector<uint32_t> tails, tail_idx, prev(cand.size(), UINT32_MAX);
      for (uint32_t k = 0; k < cand.size(); ++k) {
        uint32_t v = cand[k].second;
        auto pos = std::lower_bound(tails.begin(), tails.end(), v) - tails.begin();
        if (pos == static_cast<long>(tails.size())) {
          tails.push_back(v);
          tail_idx.push_back(k);
        } else {
          tails[pos] = v;
          tail_idx[pos] = k;
        }
        prev[k] = pos > 0 ? tail_idx[pos - 1] : UINT32_MAX;
      }
      std::vector<Match> anchors;
      for (uint32_t k = tail_idx.back(); k != UINT32_MAX; k = prev[k]) anchors.push_back(cand[k]);
      std::reverse(anchors.begin(), anchors.end());
      uint32_t pa = a0, pb = b0;
      for (const Match& m : anchors) {
        run(pa, m.first, pb, m.second, depth + 1);
        out.push_back(m);
        pa = m.first + 1;
        pb = m.second + 1;
      }
      run(pa, a1, pb, b1, depth + 1);
      return;
    }
    if (unique_only) return;
    uint64_t n = a1 - a0, m = b1 - b0;
    if (n * m <= dp_limit || depth >= max_depth) {
      if (n * m <= dp_limit) {
        lcs(a0, a1, b0, b1);
      } else if (limits && std::any_of(counts.begin(), counts.end(), [](const auto& kc) {
                   return kc.second.nb > 0;
                 })) {  // too big and too deep, with keys in common: left unmatched, said so
        ++limits->gaps;
        limits->a_items += n;
        limits->b_items += m;
      }
      return;
    }
    // Too big for an exact LCS: anchor on the rarest key present on both sides
    // (as histogram diff does), pairing its occurrences in order.
    uint64_t best = 0;
    uint32_t best_n = UINT32_MAX;
    for (const auto& [k, c] : counts)
      if (c.nb > 0 && c.na + c.nb < best_n) {
        best_n = c.na + c.nb;
        best = k;
      }
    if (best_n == UINT32_MAX) return;  // nothing in common
    std::vector<uint32_t> ia, ib;
    for (uint32_t i = a0; i < a1; ++i)
      if (a[i] == best) ia.push_back(i);
    for (uint32_t j = b0; j < b1; ++j)
      if (b[j] == best) ib.push_back(j);
    uint32_t pa = a0, pb = b0;
    for (size_t k = 0; k < ia.size() && k < ib.size(); ++k) {
      run(pa, ia[k], pb, ib[k], depth + 1);
      out.emplace_back(ia[k], ib[k]);
      pa = ia[k] + 1;
      pb = ib[k] + 1;
    }
    run(pa, a1, pb, b1, depth + 1);
  }

  void lcs(uint32_t a0, uint32_t a1, uint32_t b0, uint32_t b1) {
    const uint32_t n = a1 - a0, m = b1 - b0;
    // len[i][j] = LCS of a[a0+i..a1) and b[b0+j..b1).
    std::vector<uint32_t> len(static_cast<size_t>(n + 1) * (m + 1), 0);
    auto at = [&](uint32_t i, uint32_t j) -> uint32_t& {
      return len[static_cast<size_t>(i) * (m + 1) + j];
    };
    for (uint32_t i = n; i-- > 0;)
      for (uint32_t j = m; j-- > 0;)
        at(i, j) = a[a0 + i] == b[b0 + j] ? at(i + 1, j + 1) + 1
                                          : std::max(at(i + 1, j), at(i, j + 1));
    uint32_t i = 0, j = 0;
    while (i < n && j < m) {
      if (a[a0 + i] == b[b0 + j]) {
        out.emplace_back(a0 + i, b0 + j);
        ++i, ++j;
      } else if (at(i + 1, j) >= at(i, j + 1)) {
        ++i;
      } else {
        ++j;
      }
    }
  }
};

}  // namespace

std::vector<Match> align(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b,
                         uint64_t dp_cell_limit, AlignLimits* limits) {
  Aligner al{a, b, dp_cell_limit, {}};
  al.limits = limits;
  if (limits) al.max_depth = limits->max_depth;
  al.out.reserve(std::min(a.size(), b.size()));
  al.run(0, static_cast<uint32_t>(a.size()), 0, static_cast<uint32_t>(b.size()), 0);
  return std::move(al.out);
}

namespace {
std::vector<Match> align_unique(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  Aligner al{a, b, 0, {}, true};
  al.run(0, static_cast<uint32_t>(a.size()), 0, static_cast<uint32_t>(b.size()), 0);
  return std::move(al.out);
}
}  // namespace

std::vector<Match> align_levels(const std::vector<std::vector<uint64_t>>& a,
                                const std::vector<std::vector<uint64_t>>& b,
                                uint64_t dp_cell_limit, std::vector<bool>* positional,
                                AlignLimits* limits) {
  if (positional) positional->clear();
  if (a.empty() || b.empty()) return {};
  const size_t levels = std::min(a.size(), b.size());
  std::vector<Match> m =
      levels == 1 ? align(a[0], b[0], dp_cell_limit, limits) : align_unique(a[0], b[0]);
  if (positional) positional->assign(m.size(), levels == 1);
  std::vector<uint64_t> sa, sb;
  for (size_t level = 1; level < levels; ++level) {
    const bool last = level + 1 == levels;
    std::vector<Match> out;
    std::vector<bool> out_pos;
    out.reserve(m.size());
    uint32_t pa = 0, pb = 0;
    const uint32_t na = static_cast<uint32_t>(a[level].size());
    const uint32_t nb = static_cast<uint32_t>(b[level].size());
    for (size_t k = 0; k <= m.size(); ++k) {
      uint32_t ea = k < m.size() ? m[k].first : na;
      uint32_t eb = k < m.size() ? m[k].second : nb;
      if (ea > pa && eb > pb) {
        sa.assign(a[level].begin() + pa, a[level].begin() + ea);
        sb.assign(b[level].begin() + pb, b[level].begin() + eb);
        std::vector<Match> sub = last ? align(sa, sb, dp_cell_limit, limits) : align_unique(sa, sb);
        for (const Match& g : sub) {
          out.emplace_back(pa + g.first, pb + g.second);
          if (positional) out_pos.push_back(last);
        }
      }
      if (k < m.size()) {
        out.push_back(m[k]);
        if (positional) out_pos.push_back((*positional)[k]);
      }
      pa = ea + 1;
      pb = eb + 1;
    }
    m = std::move(out);
    if (positional) positional->swap(out_pos);
  }
  return m;
}

}  // namespace ksnap::diff

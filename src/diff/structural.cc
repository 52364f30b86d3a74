// Structural diff; the worked example is in include/ksnap/diff/structural.h.
//
// Per pair of units (functions paired by name, module level first):
//   1. order-free lines (alias / metadata / attribute-group definitions)
//      whose canonical text has an equal on the other side are set aside:
//      renumbered or reordered definitions never show;
//   2. the other lines align by neighbourhood keys (line_keys.h), then each
//      gap by shape;
//   3. symbol correspondences are learned from the aligned lines (defs vote
//      strongly, uses weakly), then from moved and edited lines;
//   4. the lines re-align on shape + corresponding symbols: a line is
//      unchanged when it is the same op on the same (corresponding) operands;
//      exact correspondences first, then with a repeated computation standing
//      for its first one (a value computed twice is used by either copy).
// A unit pair equal line by line skips steps 2-4: its symbols are mapped
// position by position, which is what those steps would map (the alignment
// of equal keys is the diagonal); where that is not certain it takes them.
// Module-scope symbols whose canonical ids are equal correspond from the
// start. Should every line find a counterpart while the canonical texts
// differ, the units are diffed again on canonical keys, so that a change is
// never reported without lines.
#include "ksnap/diff/structural.h"

#include <algorithm>
#include <unordered_map>

#include "diff/align.h"
#include "diff/claimed_names.h"
#include "diff/hunk_builder.h"
#include "diff/line_keys.h"
#include "diff/respell.h"
#include "ksnap/support/hash.h"

namespace ksnap::diff {

namespace {

using norm::Line;
using norm::Module;
using norm::Unit;

constexpr uint64_t kUnmappedTag = uint64_t{1} << 40;
constexpr uint64_t kGlobalTag = uint64_t{1} << 63;
constexpr int kConeSteps = 4;  // neighbourhood depth of the alignment keys

class Differ {
 public:
  Differ(const Module& base, const Module& head, const StructuralOptions& opts, StageDiff* out)
      : base_(base), head_(head), opts_(opts), out_(out), claimed_(base, head) {
    map_.assign(head.symbols.size(), -1);
    taken_.assign(base.symbols.size(), false);
    rep_.assign(base.symbols.size(), -1);
    base_multi_def_ = multi_defs(base);
    head_multi_def_ = multi_defs(head);
  }

  static std::vector<bool> multi_defs(const Module& m) {
    std::vector<uint8_t> defs(m.symbols.size(), 0);
    for (const Unit& u : m.units)
      for (const Line& l : u.lines)
        for (const auto& s : l.symbols)
          if (s.is_def && defs[s.id] < 2) ++defs[s.id];
    std::vector<bool> out(m.symbols.size());
    for (size_t i = 0; i < defs.size(); ++i) out[i] = defs[i] > 1;
    return out;
  }

  void run() {
    premap_globals();
    diff_units();
    if (hunks_.changes() == 0 && base_.hash != head_.hash) {
      // Every line found a counterpart, yet the canonical texts differ: show
      // the lines whose canonical text has no equal.
      canonical_only_ = true;
      out_->hunks.clear();
      out_->lines_added = out_->lines_removed = 0;
      gave_up_.clear();
      diff_units();
    }
    out_->change_signature = hunks_.signature();
    if (!gave_up_.empty() && out_->fallback.empty()) out_->fallback = gave_up_text();
  }

  const std::vector<int32_t>& symbol_map() const { return map_; }

 private:
  /// "the line alignment left 1 gap unaligned in `k` (2100 BASE x 2050 HEAD
  /// lines, no line unique to both sides to anchor on within its limits):
  /// shown there as removed and added lines".
  std::string gave_up_text() const {
    AlignLimits all;
    std::string units;
    for (size_t i = 0; i < gave_up_.size(); ++i) {
      const AlignLimits& l = gave_up_[i].second;
      all.gaps += l.gaps;
      all.a_items += l.a_items;
      all.b_items += l.b_items;
      if (i < 3) units += std::string(i ? ", `" : "`") + gave_up_[i].first + "`";
    }
    if (gave_up_.size() > 3) units += " and " + std::to_string(gave_up_.size() - 3) + " more units";
    return "the line alignment left " + std::to_string(all.gaps) + " gap" +
           (all.gaps == 1 ? "" : "s") + " unaligned in " + units + " (" +
           std::to_string(all.a_items) + " BASE x " + std::to_string(all.b_items) +
           " HEAD lines with no line unique to both sides to anchor on, over the alignment's "
           "limits): shown there as removed and added lines";
  }

  /// Pairs units by name; the module-level unit ("") first so that aliases
  /// and metadata are mapped before functions use them.
  void diff_units() {
    // Units of one name pair in order (a module may repeat a name).
    std::unordered_map<std::string, std::vector<size_t>> head_by_name;
    for (size_t j = head_.units.size(); j-- > 0;) head_by_name[head_.units[j].name].push_back(j);
    std::vector<bool> head_used(head_.units.size(), false);
    for (const Unit& b : base_.units) {
      auto it = head_by_name.find(b.name);
      if (it != head_by_name.end() && !it->second.empty()) {
        size_t j = it->second.back();
        it->second.pop_back();
        head_used[j] = true;
        diff_unit(&b, &head_.units[j]);
      } else {
        diff_unit(&b, nullptr);
      }
    }
    for (size_t j = 0; j < head_.units.size(); ++j)
      if (!head_used[j]) diff_unit(nullptr, &head_.units[j]);
  }

  /// Module-scope symbols (aliases, metadata, attribute groups) with equal
  /// canonical ids are the same thing on both sides, whatever their names.
  void premap_globals() {
    std::unordered_map<uint64_t, std::vector<uint32_t>> by_canonical;
    for (uint32_t b = base_.symbols.size(); b-- > 0;) {
      const norm::Symbol& s = base_.symbols[b];
      if (s.unit < 0) by_canonical[s.canonical ^ static_cast<uint64_t>(s.cls)].push_back(b);
    }
    for (uint32_t h = 0; h < head_.symbols.size(); ++h) {
      const norm::Symbol& s = head_.symbols[h];
      if (s.unit >= 0) continue;
      auto it = by_canonical.find(s.canonical ^ static_cast<uint64_t>(s.cls));
      if (it == by_canonical.end() || it->second.empty()) continue;
      uint32_t b = it->second.back();
      it->second.pop_back();
      set_map(h, static_cast<int32_t>(b));
      taken_[b] = true;
    }
  }

  // ---- symbol correspondence -------------------------------------------
  /// HEAD symbol `h` shown as BASE symbol `b` (-1: none); every change of
  /// map_ goes through here so that claimed_ follows it.
  void set_map(uint32_t h, int32_t b) {
    if (map_[h] >= 0) claimed_.remove(h, static_cast<uint32_t>(map_[h]));
    map_[h] = b;
    if (b >= 0) claimed_.add(h, static_cast<uint32_t>(b));
  }

  /// `positional`: the lines were paired only because equal shapes came in
  /// the same order (not by a neighbourhood unique on both sides), so their
  /// definitions vote less than any use: in a run of values built alike (two
  /// loop counters, two equal `and`s) that lost one line, the definitions
  /// after the gap pair with the wrong neighbours, while the values' uses,
  /// elsewhere, still pair with their own.
  void vote(const Line& bl, const Line& hl, bool same_shape, bool positional = false) {
    const auto& bs = bl.symbols;
    const auto& hs = hl.symbols;
    if (same_shape) {
      const uint32_t def_weight = positional ? 1 : 16;
      size_t n = std::min(bs.size(), hs.size());
      for (size_t k = 0; k < n; ++k)
        add_vote(bs[k].id, hs[k].id, bs[k].is_def && hs[k].is_def ? def_weight : 2);
      return;
    }
    // Edited line: its defs still correspond, in order.
    size_t i = 0, j = 0;
    while (true) {
      while (i < bs.size() && !bs[i].is_def) ++i;
      while (j < hs.size() && !hs[j].is_def) ++j;
      if (i >= bs.size() || j >= hs.size()) break;
      add_vote(bs[i].id, hs[j].id, 8);
      ++i, ++j;
    }
  }

  void add_vote(uint32_t b, uint32_t h, uint32_t w) {
    if (base_.symbols[b].cls != head_.symbols[h].cls) return;
    uint64_t key = (uint64_t{h} << 32) | b;
    auto [it, fresh] = votes_.emplace(key, 0);
    if (fresh) vote_order_.push_back(key);
    it->second += w;
  }

  void resolve_votes() {
    std::vector<std::pair<uint32_t, size_t>> cands;  // (votes, order index)
    cands.reserve(vote_order_.size());
    for (size_t k = 0; k < vote_order_.size(); ++k) cands.emplace_back(votes_[vote_order_[k]], k);
    std::stable_sort(cands.begin(), cands.end(),
                     [](const auto& x, const auto& y) { return x.first > y.first; });
    for (const auto& [v, k] : cands) {
      uint64_t key = vote_order_[k];
      uint32_t h = static_cast<uint32_t>(key >> 32), b = static_cast<uint32_t>(key);
      if (map_[h] >= 0 || taken_[b]) continue;
      set_map(h, static_cast<int32_t>(b));
      taken_[b] = true;
      assigned_.push_back(h);
    }
    votes_.clear();
    vote_order_.clear();
  }

  /// Forgets the assignments and duplicate mappings made since `mark` and
  /// `dup_mark` (this unit's, to re-learn them); earlier units' stay.
  void unassign_from(size_t mark, size_t dup_mark) {
    for (size_t k = mark; k < assigned_.size(); ++k) {
      uint32_t h = assigned_[k];
      taken_[map_[h]] = false;
      set_map(h, -1);
    }
    assigned_.resize(mark);
    for (size_t k = dup_mark; k < dup_assigned_.size(); ++k) set_map(dup_assigned_[k], -1);
    dup_assigned_.resize(dup_mark);
  }

  /// BASE symbol standing for `b`: a value computed twice by the same op on the
  /// same operands is represented by its first computation; a module-scope
  /// symbol by its canonical id (two aliases of equal definition are one).
  /// `exact`: the symbol itself, not its representative.
  uint64_t base_sym(uint32_t b, bool exact = false) const {
    const norm::Symbol& s = base_.symbols[b];
    if (s.unit < 0) return kGlobalTag | (s.canonical >> 2);
    return rep_[b] >= 0 && !exact ? static_cast<uint64_t>(rep_[b]) : b;
  }
  uint64_t head_sym(uint32_t h, bool exact = false) const {
    int32_t b = map_[h];
    if (b >= 0) return base_sym(static_cast<uint32_t>(b), exact);
    const norm::Symbol& s = head_.symbols[h];
    return s.unit < 0 ? kGlobalTag | (s.canonical >> 2) : kUnmappedTag | h;
  }
  static int single_def(const Line& l) {
    int def = -1;
    for (size_t k = 0; k < l.symbols.size(); ++k)
      if (l.symbols[k].is_def) {
        if (def >= 0) return -1;
        def = static_cast<int>(k);
      }
    return def;
  }

  /// Finds BASE values computed more than once (same op, same operands) and
  /// lets the first stand for the others: hoisting or sinking a computation
  /// into several places is then one change per copy, not a change of every use.
  void compute_base_reps(const LineSeq& B) {
    std::unordered_map<uint64_t, uint32_t> first;
    for (const Line* l : B) {
      int d = single_def(*l);
      // A PTX register written more than once is one register, not a value.
      if (d < 0 || base_multi_def_[l->symbols[d].id]) continue;
      uint64_t k = use_key(*l, false);
      auto [it, fresh] = first.emplace(k, l->symbols[d].id);
      if (!fresh && it->second != l->symbols[d].id)
        rep_[l->symbols[d].id] = static_cast<int32_t>(base_sym(it->second));
    }
  }

  /// Maps each still-unmapped HEAD value that repeats a BASE computation
  /// (same op, operands that correspond) to that BASE value — many to one.
  void map_duplicates(const LineSeq& B, const LineSeq& H) {
    std::unordered_map<uint64_t, uint32_t> by_key;
    for (const Line* l : B) {
      int d = single_def(*l);
      if (d >= 0 && !base_multi_def_[l->symbols[d].id])
        by_key.emplace(use_key(*l, false), l->symbols[d].id);
    }
    for (const Line* l : H) {
      int d = single_def(*l);
      if (d < 0 || head_multi_def_[l->symbols[d].id]) continue;
      uint32_t h = l->symbols[d].id;
      if (map_[h] >= 0) continue;
      // Values only: a block label has no operands, so all would look alike.
      if (head_.symbols[h].cls != norm::SymbolClass::kValue) continue;
      auto it = by_key.find(use_key(*l, true));
      if (it == by_key.end() || base_.symbols[it->second].cls != head_.symbols[h].cls) continue;
      set_map(h, static_cast<int32_t>(it->second));
      dup_assigned_.push_back(h);
    }
  }

  // ---- keys ----------------------------------------------------------------
  static uint64_t shape_key(const Line& l) { return hash64(l.shape); }

  /// A line's shape and the BASE symbols it names (`exact`: themselves, else
  /// their representatives): equal keys on both sides = an unchanged line.
  uint64_t base_key(const Line& l, bool exact) const {
    Hasher h;
    h.update(l.shape);
    for (const auto& s : l.symbols) h.update_u64(base_sym(s.id, exact));
    return h.digest();
  }
  uint64_t head_key(const Line& l, bool exact) const {
    Hasher h;
    h.update(l.shape);
    for (const auto& s : l.symbols) h.update_u64(head_sym(s.id, exact));
    return h.digest();
  }
  /// base_key / head_key of every line: level 0 exact, level 1 not.
  std::vector<std::vector<uint64_t>> resolved_keys(const LineSeq& lines, bool head) const {
    std::vector<std::vector<uint64_t>> out(2);
    for (bool exact : {true, false}) {
      std::vector<uint64_t>& v = out[exact ? 0 : 1];
      v.reserve(lines.size());
      for (const Line* l : lines) v.push_back(head ? head_key(*l, exact) : base_key(*l, exact));
    }
    return out;
  }
  static uint64_t op_key(const Line& l) {
    if (!l.op.empty()) return hash64(l.op, 1);
    std::string_view s = l.shape;
    return hash64(s.substr(0, s.find(' ')), 2);
  }

  /// Key of a line's shape and the BASE symbols its uses refer to (defs
  /// skipped): equal keys on a BASE and a HEAD line = the same op on the same
  /// operands, wherever it moved.
  uint64_t use_key(const Line& l, bool head) const {
    Hasher h;
    h.update(l.shape);
    for (const auto& s : l.symbols) {
      if (s.is_def) continue;
      h.update_u64(head ? head_sym(s.id) : base_sym(s.id));
    }
    return h.digest();
  }

  /// Pairs still-free lines anywhere in the unit whose keys are equal, in
  /// order, voting on their symbols.
  template <typename KeyB, typename KeyH>
  void pair_free(const LineSeq& B, const LineSeq& H, std::vector<bool>* bm, std::vector<bool>* hm,
                 KeyB kb, KeyH kh) {
    std::unordered_map<uint64_t, std::vector<uint32_t>> free_base;
    for (uint32_t i = B.size(); i-- > 0;)
      if (!(*bm)[i]) free_base[kb(*B[i])].push_back(i);
    for (uint32_t j = 0; j < H.size(); ++j) {
      if ((*hm)[j]) continue;
      auto it = free_base.find(kh(*H[j]));
      if (it == free_base.end() || it->second.empty()) continue;
      uint32_t i = it->second.back();
      it->second.pop_back();
      (*bm)[i] = (*hm)[j] = true;
      vote(*B[i], *H[j], true);
    }
  }

  /// The gaps [b0,b1) x [h0,h1) between the matches of `m`, in order.
  static std::vector<std::pair<Match, Match>> gaps_of(const std::vector<Match>& m, uint32_t nb,
                                                      uint32_t nh) {
    std::vector<std::pair<Match, Match>> gaps;
    uint32_t pb = 0, ph = 0;
    for (size_t k = 0; k <= m.size(); ++k) {
      uint32_t eb = k < m.size() ? m[k].first : nb;
      uint32_t eh = k < m.size() ? m[k].second : nh;
      if (eb > pb || eh > ph) gaps.push_back({{pb, eb}, {ph, eh}});
      pb = eb + 1;
      ph = eh + 1;
    }
    return gaps;
  }

  /// Learns symbol correspondences from aligned lines plus, in the gaps, moved
  /// lines (identical shape elsewhere) and edited lines (same op in place).
  /// Fills edit_pairs_ (gap pairs used for word highlights).
  void learn(const LineSeq& B, const LineSeq& H, const std::vector<Match>& m,
             const std::vector<bool>& positional) {
    std::vector<bool> bm(B.size(), false), hm(H.size(), false);
    for (size_t k = 0; k < m.size(); ++k) {
      const Match& p = m[k];
      bm[p.first] = hm[p.second] = true;
      vote(*B[p.first], *H[p.second], B[p.first]->shape == H[p.second]->shape,
           k < positional.size() && positional[k]);
    }
    resolve_votes();
    edit_pairs_.clear();
    auto gaps = gaps_of(m, static_cast<uint32_t>(B.size()), static_cast<uint32_t>(H.size()));
    // Moves of the same op on the same operands, anywhere; repeated, since each
    // round maps the defs that later moved lines use.
    for (int round = 0; round < 3; ++round) {
      pair_free(
          B, H, &bm, &hm, [&](const Line& l) { return use_key(l, false); },
          [&](const Line& l) { return use_key(l, true); });
      resolve_votes();
    }
    // Same shape inside one gap: an edit of operands only.
    for (const auto& g : gaps) pair_in_gap(B, H, g, &bm, &hm, /*by_shape=*/true);
    resolve_votes();
    // Moves: identical shapes anywhere else.
    pair_free(
        B, H, &bm, &hm, [](const Line& l) { return shape_key(l); },
        [](const Line& l) { return shape_key(l); });
    resolve_votes();
    // Same op inside one gap: an edited op.
    for (const auto& g : gaps) pair_in_gap(B, H, g, &bm, &hm, /*by_shape=*/false);
    resolve_votes();
  }

  void pair_in_gap(const LineSeq& B, const LineSeq& H, const std::pair<Match, Match>& g,
                   std::vector<bool>* bm, std::vector<bool>* hm, bool by_shape) {
    std::vector<uint32_t> bi, hj;
    std::vector<uint64_t> bk, hk;
    for (uint32_t i = g.first.first; i < g.first.second; ++i)
      if (!(*bm)[i]) {
        bi.push_back(i);
        bk.push_back(by_shape ? shape_key(*B[i]) : op_key(*B[i]));
      }
    for (uint32_t j = g.second.first; j < g.second.second; ++j)
      if (!(*hm)[j]) {
        hj.push_back(j);
        hk.push_back(by_shape ? shape_key(*H[j]) : op_key(*H[j]));
      }
    if (bi.empty() || hj.empty()) return;
    for (const Match& p : align(bk, hk, 1u << 20)) {
      uint32_t i = bi[p.first], j = hj[p.second];
      (*bm)[i] = (*hm)[j] = true;
      vote(*B[i], *H[j], by_shape);
      edit_pairs_.emplace_back(i, j);
    }
  }

  // ---- one unit ------------------------------------------------------------
  /// The lines that take part: order-free lines whose canonical text has an
  /// equal on the other side (a renumbered or reordered definition) are left
  /// out of both.
  void visible_lines(const Unit* B, const Unit* H, LineSeq* sb, LineSeq* sh) const {
    std::vector<bool> hide_b(B ? B->lines.size() : 0, false);
    std::vector<bool> hide_h(H ? H->lines.size() : 0, false);
    if (B && H) {
      std::unordered_map<uint64_t, std::vector<uint32_t>> by_key;
      for (uint32_t i = B->lines.size(); i-- > 0;)
        if (B->lines[i].order_free) by_key[canonical_key(base_, B->lines[i])].push_back(i);
      for (uint32_t j = 0; j < H->lines.size(); ++j) {
        if (!H->lines[j].order_free) continue;
        auto it = by_key.find(canonical_key(head_, H->lines[j]));
        if (it == by_key.end() || it->second.empty()) continue;
        hide_b[it->second.back()] = hide_h[j] = true;
        it->second.pop_back();
      }
    }
    if (B)
      for (uint32_t i = 0; i < B->lines.size(); ++i)
        if (!hide_b[i]) sb->push_back(&B->lines[i]);
    if (H)
      for (uint32_t j = 0; j < H->lines.size(); ++j)
        if (!hide_h[j]) sh->push_back(&H->lines[j]);
  }

  /// Whether `b` and `h` are equal line by line: same shape, same symbols by
  /// class, canonical id and role. (Equal unit hashes say so too, but a hash
  /// is no proof, and the mapping relies on it.) With `learn`, one walk also
  /// maps the symbols as the alignment would: every line pairs with the line
  /// at its position (the alignment of equal key sequences is the diagonal),
  /// and each pair of symbols at one position is mapped unless the HEAD
  /// symbol is mapped or the BASE one taken already. Returns false, changing
  /// nothing, where the lines differ or the mapping is not certain to be what
  /// the alignment and votes would do: a unit's own symbol mapped or taken
  /// before, outside its unit, or paired with two counterparts; a value left
  /// unmapped (map_duplicates would look for it).
  bool equal_by_position(const Unit* B, const Unit* H, const LineSeq& b, const LineSeq& h,
                         bool learn) {
    if (b.size() != h.size()) return false;
    const int32_t bu = static_cast<int32_t>(B - base_.units.data());
    const int32_t hu = static_cast<int32_t>(H - head_.units.data());
    if (pos_b_of_h_.size() != head_.symbols.size()) {
      pos_b_of_h_.assign(head_.symbols.size(), -1);
      pos_h_of_b_.assign(base_.symbols.size(), -1);
    }
    pos_pairs_.clear();
    bool ok = true;
    for (size_t i = 0; ok && i < b.size(); ++i) {
      const Line& bl = *b[i];
      const Line& hl = *h[i];
      if (bl.symbols.size() != hl.symbols.size() || bl.shape != hl.shape) {
        ok = false;
        break;
      }
      for (size_t k = 0; k < bl.symbols.size(); ++k) {
        const norm::SymbolRef& rb = bl.symbols[k];
        const norm::SymbolRef& rh = hl.symbols[k];
        const norm::Symbol& sb = base_.symbols[rb.id];
        const norm::Symbol& sh = head_.symbols[rh.id];
        if (rb.is_def != rh.is_def || sb.cls != sh.cls || sb.canonical != sh.canonical ||
            (sb.unit < 0) != (sh.unit < 0)) {
          ok = false;
          break;
        }
        if (!learn) continue;
        const bool free = map_[rh.id] < 0 && !taken_[rb.id];
        if (sb.unit >= 0 && (sb.unit != bu || sh.unit != hu || !free)) {
          ok = false;
          break;
        }
        if (!free) continue;  // a module-scope symbol mapped already: the votes skip it too
        int32_t& b_of_h = pos_b_of_h_[rh.id];
        int32_t& h_of_b = pos_h_of_b_[rb.id];
        if (b_of_h < 0 && h_of_b < 0) {
          b_of_h = static_cast<int32_t>(rb.id);
          h_of_b = static_cast<int32_t>(rh.id);
          pos_pairs_.emplace_back(rh.id, rb.id);
        } else if (b_of_h != static_cast<int32_t>(rb.id) ||
                   h_of_b != static_cast<int32_t>(rh.id)) {
          ok = false;
          break;
        }
      }
    }
    if (ok && learn) {
      for (const Line* l : h) {
        int d = single_def(*l);
        if (d < 0) continue;
        uint32_t hid = l->symbols[d].id;
        if (map_[hid] < 0 && pos_b_of_h_[hid] < 0 && !head_multi_def_[hid] &&
            head_.symbols[hid].cls == norm::SymbolClass::kValue) {
          ok = false;
          break;
        }
      }
    }
    for (const auto& [hid, bid] : pos_pairs_) {
      pos_b_of_h_[hid] = pos_h_of_b_[bid] = -1;
      if (!ok) continue;
      set_map(hid, static_cast<int32_t>(bid));
      taken_[bid] = true;
      assigned_.push_back(hid);
    }
    return ok;
  }

  void diff_unit(const Unit* B, const Unit* H) {
    edit_pairs_.clear();  // they index this unit's lines, never the previous unit's
    LineSeq b, h;
    visible_lines(B, H, &b, &h);
    // Equal units: nothing to show, only their symbols to map.
    // (The canonical-only pass learns nothing: it only needs them equal.)
    if (B && H && opts_.equal_units_by_position && B->hash == H->hash &&
        equal_by_position(B, H, b, h, /*learn=*/!canonical_only_))
      return;
    std::vector<Match> m;
    AlignLimits limits;  // of the alignment that is shown
    limits.max_depth = opts_.align_depth;
    if (B && H && canonical_only_) {
      std::vector<uint64_t> kb, kh;
      for (const Line* l : b) kb.push_back(canonical_key(base_, *l));
      for (const Line* l : h) kh.push_back(canonical_key(head_, *l));
      m = align(kb, kh, opts_.align_cells, &limits);
    } else if (B && H) {
      // Keys to align the unit by, finest first (line_keys.h): no printed
      // name takes part, not even as a hint (registers renumbered by one
      // added instruction would pair the wrong lines).
      ConeKeys cb(base_, b, kConeSteps), ch(head_, h, kConeSteps);
      int whole = std::max(cb.whole_steps(), ch.whole_steps());
      std::vector<bool> positional;
      AlignLimits scratch;  // only the last alignment is shown
      scratch.max_depth = opts_.align_depth;
      m = align_levels(cb.keys(whole), ch.keys(whole),
                       opts_.align_cells, &positional, &scratch);
      size_t mark = assigned_.size(), dup_mark = dup_assigned_.size();
      compute_base_reps(b);
      learn(b, h, m, positional);
      map_duplicates(b, h);
      // Two levels: exact correspondences first (unique keys only), then
      // keys where a repeated computation stands for its first one. The
      // first level keeps what the neighbourhood alignment told apart: in a
      // run of copies of one value (`mov.b32 %r91, %r75` ... `%r76, %r75`)
      // every line has the same second-level key, and aligning by it alone
      // pairs the run by position and shifts the registers by one.
      std::vector<std::vector<uint64_t>> rb = resolved_keys(b, false);
      for (int iter = 0; iter < 2; ++iter) {
        std::vector<std::vector<uint64_t>> rh = resolved_keys(h, true);
        m = align_levels(rb, rh, opts_.align_cells, &positional, iter == 1 ? &limits : &scratch);
        if (iter == 0) {
          // Re-learn the unit's own symbols from the better alignment.
          unassign_from(mark, dup_mark);
          learn(b, h, m, positional);
          map_duplicates(b, h);
        } else {
          match_order_free(b, h, rb[1], rh[1], m);
          learn_gaps_only(b, h, m);
        }
      }
    }
    const std::string& name = B && (!B->name.empty() || !H) ? B->name : H->name;
    if (limits.any()) gave_up_.emplace_back(name.empty() ? "(module)" : name, limits);
    // The names shown for this unit's symbols and module scope's (a
    // function's names are its own).
    claimed_.enter_unit(H ? static_cast<int32_t>(H - head_.units.data()) : -2, map_);
    hunks_.emit(name, b, h, m, hidden_, edit_pairs_);
    hidden_.clear();
  }

  /// Order-free lines have no place: two left unmatched by the alignment
  /// whose keys are equal (the same definition, moved) are matched.
  void match_order_free(const LineSeq& B, const LineSeq& H, const std::vector<uint64_t>& rb,
                        const std::vector<uint64_t>& rh, const std::vector<Match>& m) {
    std::vector<bool> bm(B.size(), false), hm(H.size(), false);
    for (const Match& p : m) bm[p.first] = hm[p.second] = true;
    std::unordered_map<uint64_t, std::vector<uint32_t>> free_base;
    for (uint32_t i = B.size(); i-- > 0;)
      if (!bm[i] && B[i]->order_free) free_base[rb[i]].push_back(i);
    if (free_base.empty()) return;
    for (uint32_t j = 0; j < H.size(); ++j) {
      if (hm[j] || !H[j]->order_free) continue;
      auto it = free_base.find(rh[j]);
      if (it == free_base.end() || it->second.empty()) continue;
      hidden_.emplace_back(it->second.back(), j);
      it->second.pop_back();
    }
  }

  /// Recomputes edit_pairs_ for the final alignment without changing the map.
  void learn_gaps_only(const LineSeq& B, const LineSeq& H, const std::vector<Match>& m) {
    std::vector<bool> bm(B.size(), false), hm(H.size(), false);
    for (const Match& p : m) bm[p.first] = hm[p.second] = true;
    for (const auto& [i, j] : hidden_) bm[i] = hm[j] = true;
    edit_pairs_.clear();
    for (const auto& g :
         gaps_of(m, static_cast<uint32_t>(B.size()), static_cast<uint32_t>(H.size()))) {
      auto [pb, eb] = g.first;
      auto [ph, eh] = g.second;
      if (eb <= pb || eh <= ph) continue;
      pair_in_gap(B, H, g, &bm, &hm, true);
      pair_in_gap(B, H, g, &bm, &hm, false);
      // What is left in the gap pairs up in order, for word highlights only
      // (an op replaced by another: fma.rn.f32 -> mul.rn.f32).
      std::vector<uint32_t> bl, hl;
      for (uint32_t i = pb; i < eb; ++i)
        if (!bm[i]) bl.push_back(i);
      for (uint32_t j = ph; j < eh; ++j)
        if (!hm[j]) hl.push_back(j);
      for (size_t k = 0; k < bl.size() && k < hl.size(); ++k)
        edit_pairs_.emplace_back(bl[k], hl[k]);
    }
    votes_.clear();
    vote_order_.clear();
  }

  const Module& base_;
  const Module& head_;
  StructuralOptions opts_;
  /// Units whose shown alignment left gaps unaligned, with what it left.
  std::vector<std::pair<std::string, AlignLimits>> gave_up_;
  StageDiff* out_;
  std::vector<int32_t> map_;  // head symbol -> base symbol
  std::vector<bool> taken_;   // base symbol already mapped
  std::vector<uint32_t> assigned_;
  std::vector<uint32_t> dup_assigned_;  // many-to-one mappings (map_duplicates)
  std::vector<int32_t> rep_;            // base symbol -> its representative, -1 = itself
  std::unordered_map<uint64_t, uint32_t> votes_;
  std::vector<uint64_t> vote_order_;
  std::vector<std::pair<uint32_t, uint32_t>> edit_pairs_;
  std::vector<std::pair<uint32_t, uint32_t>> hidden_;  // order-free lines matched out of place
  /// equal_by_position's scratch: the pairs it found, each side's counterpart
  /// (-1 between calls).
  std::vector<std::pair<uint32_t, uint32_t>> pos_pairs_;
  std::vector<int32_t> pos_b_of_h_, pos_h_of_b_;
  bool canonical_only_ = false;
  /// Symbols defined on more than one line (PTX registers written twice):
  /// two equal computations into such a register are not one value.
  std::vector<bool> base_multi_def_, head_multi_def_;
  /// Names of BASE symbols that some HEAD symbol is shown as: a HEAD symbol
  /// without counterpart must not borrow one of these (it would read as that
  /// other symbol). Names of unclaimed BASE symbols stay free to reuse.
  ClaimedNames claimed_;
  /// Prints HEAD's lines by map_ and claimed_ as they stand; cuts hunks.
  HeadSpeller speller_{base_, head_, map_, claimed_};
  HunkBuilder hunks_{speller_, opts_.kept_context, out_};
};

/// Empty when every symbol reference of `m` is in range (true of every
/// Module that norm::normalize builds); else what is wrong.
std::string check_module(const Module& m) {
  for (const Unit& u : m.units)
    for (const Line& l : u.lines)
      for (const norm::SymbolRef& r : l.symbols) {
        if (r.id >= m.symbols.size())
          return "line " + std::to_string(l.line_no) + " names symbol " + std::to_string(r.id) +
                 " of " + std::to_string(m.symbols.size());
        if (r.offset > l.display.size() || r.length > l.display.size() - r.offset ||
            r.shape_offset > l.shape.size() || r.shape_length > l.shape.size() - r.shape_offset)
          return "line " + std::to_string(l.line_no) + " has a symbol outside its text";
      }
  return {};
}

}  // namespace

void structural_diff(const norm::Module& base, const norm::Module& head,
                     const StructuralOptions& opts, StageDiff* out,
                     std::vector<int32_t>* symbol_map) {
  if (symbol_map) symbol_map->clear();
  for (const auto* side : {&base, &head}) {
    std::string bad = check_module(*side);
    if (!bad.empty()) {
      out->fallback = std::string(side == &base ? "BASE" : "HEAD") + " " + side->file + ": " + bad +
                      "; no structural diff, compared by normalized hash";
      return;
    }
  }
  Differ differ(base, head, opts, out);
  differ.run();
  if (symbol_map) *symbol_map = differ.symbol_map();
}

}  // namespace ksnap::diff

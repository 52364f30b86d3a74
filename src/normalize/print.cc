// The normalizer's printer: the canonical text (the thing that is hashed)
// and each line's display text, from what the two passes decided.
//
// Worked example (LLVM IR): the line `  %8 = shl i32 %7, 8, !dbg !8` has
// the shape `%_ = shl i32 %_ , 8` with occurrences [%8 def, %7 use];
// canonical() prints `%v1 = shl i32 %v0 , 8` (the masks replaced by the
// symbols' canonical names); display_of() prints the source without the
// dropped `, !dbg !8`: `%8 = shl i32 %7, 8`. Lines marked order-free
// (module-level definitions whose order means nothing: LLVM declarations and
// constants, MLIR aliases, PTX `.const` data) are printed sorted.

#include "ksnap/support/memory.h"
#include "normalize/engine.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "ksnap/support/hash.h"
#include "normalize/canonical.h"

namespace ksnap::norm::detail {

namespace {
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }
}  // namespace

void Engine::append_line(TextSink& out, const LineRec& l) const {
  // Room for the shape, the newline and every occurrence's printed name
  // (at most sizeof(SymRec::printed) each); a name too long for `printed`
  // (rare) is printed on its own and room made again after it.
  constexpr size_t kName = sizeof(SymRec::printed);
  const char* shape = shape_.data();
  uint32_t pos = l.shape_begin;
  char* w = out.room(l.shape_end - pos + 1 + size_t{l.occ_end - l.occ_begin} * kName);
  for (uint32_t k = l.occ_begin; k < l.occ_end; ++k) {
    const Occ& o = occs_[k];
    copy_small(w, shape + pos, o.shape_off - pos);
    w += o.shape_off - pos;
    const SymRec& s = syms_[o.sym];
    if (s.printed_len) {
      copy_small(w, s.printed, s.printed_len);
      w += s.printed_len;
    } else {
      std::string name;
      append_canonical_name(name, s.cls, s.mask, s.canonical);
      out.commit(w);
      w = out.room(name.size() + l.shape_end - o.shape_off + 1 + size_t{l.occ_end - k} * kName);
      std::memcpy(w, name.data(), name.size());
      w += name.size();
    }
    pos = o.shape_off + o.mask_len;
  }
  copy_small(w, shape + pos, l.shape_end - pos);
  w += l.shape_end - pos;
  *w++ = '\n';
  out.commit(w);
}

void Engine::append_unit(TextSink& out, uint32_t unit, Hasher* sink) const {
  constexpr size_t kFlushBytes = 64 * 1024;
  std::vector<std::string> order_free;
  TextSink one;
  for (uint32_t i : unit_lines_[unit]) {
    const LineRec& l = lines_[i];
    if (l.order_free) {
      one.clear();
      append_line(one, l);
      order_free.emplace_back(one.view());
    } else {
      append_line(out, l);
      if (sink && out.size() >= kFlushBytes) {
        sink->update(out.view());
        out.clear();
      }
    }
  }
  std::sort(order_free.begin(), order_free.end());
  for (const std::string& s : order_free) out.append(s);
}

uint64_t Engine::canonical_hash() const {
  Hasher h;
  TextSink buf;
  for (uint32_t u = 0; u < units_.size(); ++u) append_unit(buf, u, &h);
  h.update(buf.view());
  return h.digest();
}

Engine::Hashes Engine::unit_hashes() const {
  Hashes out;
  out.units.reserve(units_.size());
  Hasher all;
  TextSink text;
  for (uint32_t u = 0; u < units_.size(); ++u) {
    text.clear();
    append_unit(text, u);
    out.units.push_back(hash64(text.view()));
    all.update(text.view());
  }
  out.module = all.digest();
  return out;
}

std::string Engine::canonical() const {
  TextSink out;
  out.room(shape_len_ + shape_len_ / 8 + 16);
  for (uint32_t u = 0; u < units_.size(); ++u) append_unit(out, u);
  return std::string(out.view());
}

void Engine::display_of(const LineRec& l, std::string* out_p, std::vector<uint32_t>* occ_disp,
                        uint32_t* op_disp, uint32_t* callee_disp) const {
  std::string& out = *out_p;
  out.clear();
  uint32_t k = l.occ_begin;
  // Where the op and the callee land, when they lie in a copied part (kNone:
  // not there; the caller then copies them on their own).
  *op_disp = *callee_disp = kNone;
  auto copy = [&](uint32_t from, uint32_t to) {
    for (; k < l.occ_end && occs_[k].src_off < to; ++k) {
      uint32_t o = occs_[k].src_off;
      occ_disp->push_back(static_cast<uint32_t>(out.size() + (o >= from ? o - from : 0)));
    }
    if (l.op_len && l.op_off >= from && l.op_off + l.op_len <= to)
      *op_disp = static_cast<uint32_t>(out.size() + (l.op_off - from));
    if (l.callee_len && l.callee_off >= from && l.callee_off + l.callee_len <= to)
      *callee_disp = static_cast<uint32_t>(out.size() + (l.callee_off - from));
    out.append(base_ + from, to - from);
  };
  uint32_t pos = l.src_begin;
  for (uint32_t d = l.drop_begin; d < l.drop_end; ++d) {
    uint32_t from = std::max(drops_[d].from, pos);
    uint32_t to = std::min(drops_[d].to, l.src_end);
    if (from >= to) continue;
    copy(pos, from);
    while (!out.empty() && is_space(out.back())) out.pop_back();
    pos = to;
  }
  copy(pos, l.src_end);
  while (k < l.occ_end) {  // cannot happen for well-formed handlers; keep 1:1
    occ_disp->push_back(static_cast<uint32_t>(out.size()));
    ++k;
  }
  while (!out.empty() && is_space(out.back())) out.pop_back();
  size_t lead = 0;
  while (lead < out.size() && is_space(out[lead])) ++lead;
  if (lead) {
    out.erase(0, lead);
    for (uint32_t& o : *occ_disp) o = o >= lead ? static_cast<uint32_t>(o - lead) : 0;
    for (uint32_t* o : {op_disp, callee_disp})
      if (*o != kNone) *o = *o >= lead ? static_cast<uint32_t>(*o - lead) : kNone;
  }
}

Module Engine::build_module(const Hashes& hashes) const {
  Module m;
  m.dialect = dialect_;
  m.file = text_.name();
  m.input_bytes = text_.size();
  m.resources = resources_;
  if (fallback_symbols_)
    m.fallback = std::to_string(fallback_symbols_) +
                 (fallback_symbols_ == 1 ? " global symbol" : " global symbols") +
                 " named by spelling, not by definition (" + fallback_why_ + "; first: " +
                 fallback_first_ + "): renaming one shows as a change";
  // Exact room first, so that nothing grows: the texts are at most the kept
  // lines' source, shape, op and callee bytes plus the names; the references
  // one per occurrence. (The module's views depend on `refs` never moving.)
  // One walk over the kept lines: their sizes, and the symbols they name
  // numbered in order of first reference.
  size_t text_bytes = 0, ref_count = 0;
  std::vector<uint32_t> sym_ids(syms_.size(), kNone);
  size_t name_bytes = 0, sym_count = 0;
  for (uint32_t u = 0; u < units_.size(); ++u)
    for (uint32_t i : unit_lines_[u]) {
      const LineRec& l = lines_[i];
      text_bytes += size_t{l.src_end - l.src_begin} + (l.shape_end - l.shape_begin) + l.op_len +
                    l.callee_len;
      ref_count += l.occ_end - l.occ_begin;
      for (uint32_t k = l.occ_begin; k < l.occ_end; ++k) {
        uint32_t& id = sym_ids[occs_[k].sym];
        if (id != kNone) continue;
        id = static_cast<uint32_t>(sym_count++);
        name_bytes += syms_[occs_[k].sym].name.size();
      }
    }
  m.text.reserve(text_bytes + name_bytes);
  m.refs.reserve(ref_count);
  advise_huge_pages(m.refs.data(), m.refs.capacity() * sizeof(SymbolRef));
  m.symbols.resize(sym_count);
  advise_huge_pages(m.symbols.data(), m.symbols.capacity() * sizeof(Symbol));
  for (uint32_t s = 0; s < syms_.size(); ++s) {
    if (sym_ids[s] == kNone) continue;
    const SymRec& r = syms_[s];
    Symbol& sym = m.symbols[sym_ids[s]];
    sym.name = m.text.add(r.name);
    sym.cls = r.cls;
    sym.unit = r.unit == kNone ? -1 : static_cast<int32_t>(r.unit);
    sym.canonical = r.canonical;
  }
  m.units.resize(units_.size());
  std::vector<uint32_t> disp;
  std::string display;
  for (uint32_t u = 0; u < units_.size(); ++u) {
    Unit& unit = m.units[u];
    unit.name = std::string(units_[u].name);
    unit.lines.resize(unit_lines_[u].size());
    size_t n = 0;
    for (uint32_t i : unit_lines_[u]) {
      const LineRec& l = lines_[i];
      Line& line = unit.lines[n++];
      line.line_no = l.line_no;
      line.depth = l.depth;
      line.py_line = l.py_line;
      line.order_free = l.order_free;
      line.shape = m.text.add(std::string_view(shape_.data() + l.shape_begin,
                                               l.shape_end - l.shape_begin));
      disp.clear();
      uint32_t op_at, callee_at;
      display_of(l, &display, &disp, &op_at, &callee_at);
      line.display = m.text.add(display);
      // The op and callee are mostly words of the display: viewed there
      // (checked), else copied.
      auto word = [&](uint32_t at, uint32_t off, uint32_t len) {
        const std::string_view src(base_ + off, len);
        if (at != kNone && at <= line.display.size() && line.display.substr(at, len) == src)
          return line.display.substr(at, len);
        return m.text.add(src);
      };
      line.op = word(op_at, l.op_off, l.op_len);
      line.callee = word(callee_at, l.callee_off, l.callee_len);
      const size_t first_ref = m.refs.size();
      for (uint32_t k = l.occ_begin; k < l.occ_end; ++k) {
        const Occ& o = occs_[k];
        SymbolRef r;
        r.id = sym_ids[o.sym];
        r.offset = disp[k - l.occ_begin];
        r.length = std::min<uint32_t>(o.src_len, static_cast<uint32_t>(line.display.size()) -
                                                     std::min<uint32_t>(r.offset, line.display.size()));
        r.is_def = o.is_def;
        r.shape_offset = o.shape_off - l.shape_begin;
        r.shape_length = o.mask_len;
        m.refs.push_back(r);
      }
      line.symbols = std::span<const SymbolRef>(m.refs.data() + first_ref, m.refs.size() - first_ref);
    }
    unit.hash = hashes.units[u];
  }
  m.hash = hashes.module;
  return m;
}

}  // namespace ksnap::norm::detail
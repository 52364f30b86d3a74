// Canonical text of a Module, and counts over its lines.
//
// Worked example: a unit with lines (shape, symbols)
//   "%_ = arith.addi %_ , %_ : tensor < 256xi32 , #blocked >"  [%v2, %v1, %v0, #a..]
// prints as
//   "%v2 = arith.addi %v1 , %v0 : tensor < 256xi32 , #a1f0c... >\n"
// Order-free lines (alias / metadata definitions) follow the unit's other
// lines, sorted by their printed text.
#include "ksnap/support/memory.h"
#include "normalize/canonical.h"

#include <algorithm>
#include <charconv>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ksnap::norm {
namespace detail {

void append_canonical_name(std::string& out, SymbolClass cls, std::string_view mask,
                           uint64_t canonical) {
  static constexpr char kHex[] = "0123456789abcdef";
  auto hex = [&](char a, char b) {
    char buf[18];
    buf[0] = a;
    buf[1] = b;
    for (int i = 0; i < 16; ++i) buf[2 + i] = kHex[(canonical >> (60 - 4 * i)) & 0xF];
    out.append(buf, 18);
  };
  switch (cls) {
    case SymbolClass::kValue:
    case SymbolClass::kBlock: {
      if (mask == "%_") {
        out += "%v";
      } else if (mask == "^") {
        out += "^b";
      } else {
        out.append(mask.data(), mask.size());
      }
      char buf[24];
      auto r = std::to_chars(buf, buf + sizeof buf, canonical);
      out.append(buf, r.ptr);
      return;
    }
    case SymbolClass::kAlias:
      hex(mask.empty() ? '#' : mask[0], 'a');
      return;
    case SymbolClass::kMetadata:
      hex('!', 'm');
      return;
    case SymbolClass::kAttrGroup:
      hex('#', 'g');
      return;
    case SymbolClass::kGlobal:
      hex('@', 'c');
      return;
  }
}

}  // namespace detail

std::string canonical_name(const Symbol& s, std::string_view mask) {
  std::string out;
  detail::append_canonical_name(out, s.cls, mask, s.canonical);
  return out;
}

namespace {

void append_line(std::string& out, const Module& m, const Line& l) {
  size_t pos = 0;
  for (const SymbolRef& r : l.symbols) {
    if (r.shape_offset < pos || r.shape_offset + r.shape_length > l.shape.size()) continue;
    out.append(l.shape, pos, r.shape_offset - pos);
    const Symbol& s = m.symbols[r.id];
    detail::append_canonical_name(out, s.cls,
                                  std::string_view(l.shape).substr(r.shape_offset, r.shape_length),
                                  s.canonical);
    pos = r.shape_offset + r.shape_length;
  }
  out.append(l.shape, pos, std::string::npos);
  out.push_back('\n');
}

}  // namespace

std::string canonical_unit_text(const Module& m, const Unit& u) {
  std::string out;
  std::vector<std::string> order_free;
  for (const Line& l : u.lines) {
    if (l.order_free) {
      order_free.emplace_back();
      append_line(order_free.back(), m, l);
    } else {
      append_line(out, m, l);
    }
  }
  std::sort(order_free.begin(), order_free.end());
  for (const std::string& s : order_free) out += s;
  return out;
}

std::string canonical_text(const Module& m) {
  std::string out;
  out.reserve(m.input_bytes);  // about the input's size: no copies while it grows
  advise_huge_pages(out.data(), out.capacity());
  for (const Unit& u : m.units) out += canonical_unit_text(m, u);
  return out;
}

namespace {

/// Counted by view in a hash table (a few hundred distinct names over
/// millions of lines), then copied into the ordered map once per name.
template <typename Field>
std::map<std::string, int64_t> count_lines(const Module& m, Field field) {
  std::unordered_map<std::string_view, int64_t> by_view;
  for (const Unit& u : m.units) {
    for (const Line& l : u.lines) {
      std::string_view key = l.*field;
      if (!key.empty()) ++by_view[key];
    }
  }
  std::map<std::string, int64_t> counts;
  for (const auto& [key, n] : by_view) counts.emplace(std::string(key), n);
  return counts;
}

}  // namespace

std::map<std::string, int64_t> op_counts(const Module& m) { return count_lines(m, &Line::op); }

std::map<std::string, int64_t> call_counts(const Module& m) {
  return count_lines(m, &Line::callee);
}

}  // namespace ksnap::norm

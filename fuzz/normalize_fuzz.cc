// libFuzzer target for the normalizer. The first byte picks the dialect
// (byte % 6: MLIR, LLVM, PTX, AMDGCN, SPIR-V, SASS) and which rules are off
// (byte / 6, one bit per rule); the rest
// is the text. Checks: normalize() and normalized_hash() agree (same hash,
// or the same error line), errors are kParseError with a line, and every
// Module invariant holds (symbol offsets inside display and shape, ids
// inside symbols, hash == hash of canonical_text()). LLVM IR is also
// normalized without Lexer::fold_type_lists(), which must change nothing.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "ksnap/normalize/normalize.h"
#include "ksnap/support/hash.h"
#include "normalize/engine.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ksnap;
  if (size == 0) return 0;
  ir::Dialect d = static_cast<ir::Dialect>(data[0] % 6);
  unsigned off = data[0] / 6;
  norm::NormalizeOptions o;
  o.rename_values = !(off & 1);
  o.rename_blocks = !(off & 2);
  o.rename_aliases = !(off & 4);
  o.drop_locations = !(off & 8);
  o.rename_metadata = !(off & 16);
  o.drop_comments = !(off & 32);
  o.max_line_bytes = 4096;
  TextBuffer buf("fuzz", std::string(reinterpret_cast<const char*>(data + 1), size - 1));
  auto m = norm::normalize(buf, d, o);
  auto h = norm::normalized_hash(buf, d, o);
  if (m.has_value() != h.has_value()) abort();
  if (!m) {
    const Status& s = m.status();
    if (s.code() != ErrorCode::kParseError || s.location().line == 0) abort();
    if (h.status().location().line != s.location().line) abort();
    if (d == ir::Dialect::kLlvm) {
      norm::detail::set_fold_type_lists(false);
      auto plain = norm::normalize(buf, d, o);
      norm::detail::set_fold_type_lists(true);
      if (plain || plain.status().to_string() != s.to_string()) abort();
    }
    return 0;
  }
  if (m->hash != *h) abort();
  if (d == ir::Dialect::kLlvm) {
    norm::detail::set_fold_type_lists(false);
    auto plain = norm::normalize(buf, d, o);
    norm::detail::set_fold_type_lists(true);
    if (!plain || plain->hash != m->hash) abort();
    if (norm::canonical_text(*plain) != norm::canonical_text(*m)) abort();
  }
  if (hash64(norm::canonical_text(*m)) != m->hash) abort();
  for (const norm::Unit& u : m->units) {
    for (const norm::Line& l : u.lines) {
      if (l.shape.empty()) abort();
      for (const norm::SymbolRef& r : l.symbols) {
        if (r.id >= m->symbols.size()) abort();
        if (r.offset + r.length > l.display.size()) abort();
        if (r.shape_offset + r.shape_length > l.shape.size()) abort();
      }
    }
  }
  (void)norm::op_counts(*m);
  return 0;
}

// Small helpers for normalizer unit tests: normalize a string, collect the
// shapes / displays of all lines in canonical order.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ksnap/normalize/normalize.h"
#include "ksnap/support/file.h"

namespace ksnap::norm::testing {

inline Module norm_ok(const std::string& text, ir::Dialect d, const NormalizeOptions& o = {}) {
  TextBuffer buf("t.ir", text);
  auto m = normalize(buf, d, o);
  EXPECT_TRUE(m) << m.status().to_string();
  if (!m) return Module{};
  auto h = normalized_hash(buf, d, o);
  EXPECT_TRUE(h);
  if (h) {
    EXPECT_EQ(*h, m->hash) << "fast path and Module disagree";
  }
  return std::move(*m);
}

/// normalized_hash() gives what normalize() gives for `text`, good or bad:
/// the same hash, or the same error at the same place. `where` names the
/// case in a failure.
inline void expect_hash_path_agrees(const std::string& text, ir::Dialect d,
                                    const std::string& where) {
  TextBuffer buf("k.ir", text);
  auto full = normalize(buf, d);
  auto fast = normalized_hash(buf, d);
  ASSERT_EQ(full.has_value(), fast.has_value()) << where;
  if (full) {
    EXPECT_EQ(full->hash, *fast) << where;
  } else {
    EXPECT_EQ(full.status().to_string(), fast.status().to_string()) << where;
  }
}

inline uint64_t hash_ok(const std::string& text, ir::Dialect d, const NormalizeOptions& o = {}) {
  return norm_ok(text, d, o).hash;
}

/// Every line of every unit, in unit order.
inline std::vector<const Line*> all_lines(const Module& m) {
  std::vector<const Line*> out;
  for (const Unit& u : m.units) {
    for (const Line& l : u.lines) out.push_back(&l);
  }
  return out;
}

inline std::vector<std::string> shapes(const Module& m) {
  std::vector<std::string> out;
  for (const Line* l : all_lines(m)) out.emplace_back(l->shape);
  return out;
}

inline std::string joined_shapes(const Module& m) {
  std::string out;
  for (const Line* l : all_lines(m)) {
    out += l->shape;
    out += "\n";
  }
  return out;
}

inline std::vector<std::string> displays(const Module& m) {
  std::vector<std::string> out;
  for (const Line* l : all_lines(m)) out.emplace_back(l->display);
  return out;
}

/// The first line whose display contains `needle` (nullptr when none).
inline const Line* find_line(const Module& m, const std::string& needle) {
  for (const Line* l : all_lines(m)) {
    if (l->display.find(needle) != std::string::npos) return l;
  }
  return nullptr;
}

/// Symbol occurrences of a line as "display-text=mask" strings.
inline std::vector<std::string> symbol_texts(const Line& l) {
  std::vector<std::string> out;
  for (const SymbolRef& r : l.symbols) {
    out.push_back(std::string(l.display.substr(r.offset, r.length)) + "=" +
                  std::string(l.shape.substr(r.shape_offset, r.shape_length)) +
                  (r.is_def ? "!" : ""));
  }
  return out;
}

}  // namespace ksnap::norm::testing

// A small bounds-checked MessagePack reader for the AMDGPU code-object
// metadata note (NT_AMDGPU_METADATA, code object v3-v5). It decodes a whole
// document into a tree; nesting deeper than kMaxDepth, lengths past the end
// and more elements than bytes left are errors with the byte offset, never a
// crash or a huge allocation. Floats and extension types are read and kept
// as kOther (the metadata has none that ksnap uses).
//
//   auto doc = binary::msgpack::parse(note.desc);
//   const Value* kernels = doc->find("amdhsa.kernels");
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ksnap/support/status.h"

namespace ksnap::binary::msgpack {

inline constexpr int kMaxDepth = 32;

struct Value {
  enum class Kind : uint8_t { kNil, kBool, kInt, kString, kArray, kMap, kOther };
  Kind kind = Kind::kNil;
  int64_t integer = 0;       ///< kInt and kBool; unsigned values above INT64_MAX are kOther.
  std::string text;          ///< kString (str and bin).
  std::vector<Value> items;  ///< kArray: elements; kMap: key, value, key, value, ...

  /// For a map: the value of the string key `key`, or null.
  const Value* find(std::string_view key) const;
  /// For a map: the integer at `key`, when it is one.
  bool integer_at(std::string_view key, int64_t* out) const;
  /// For a map: the string at `key`, when it is one.
  bool string_at(std::string_view key, std::string* out) const;
};

/// Decodes one document that fills `bytes`. Errors carry the byte offset in
/// their message (the caller adds the file).
Expected<Value> parse(std::string_view bytes);

}  // namespace ksnap::binary::msgpack

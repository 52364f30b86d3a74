// Texts a source has seen before, by the hash of their bytes: what lets a
// diff against a recorded commit skip normalizing a HEAD file whose exact
// bytes some earlier record already normalized.
//
//   // HEAD's llir is byte-for-byte what commit C (not the one diffed) had:
//   std::optional<uint64_t> h = known->normalized_hash(hash128_hex(text), "llvm");
//   // h == the hash norm::normalized_hash(text, kLlvm) would compute
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ksnap::build {

/// Normalized hashes of raw texts, under default rules and this ksnap's
/// norm::kHashVersion. The history store implements it (table raw_norm: every
/// text any record read); Build::known_texts hands it to the diff engine.
/// Thread-safe: the engine calls it from its workers.
class KnownTexts {
 public:
  virtual ~KnownTexts() = default;
  /// The normalized hash of the text whose XXH3-128 is `raw_hash` (32 hex
  /// digits), lexed by ir::Dialect `dialect` (its dialect_name: "mlir",
  /// "llvm", ...); nullopt when this text is unknown or a lookup fails (the
  /// caller then normalizes the text itself, so a failure costs time only).
  virtual std::optional<uint64_t> normalized_hash(std::string_view raw_hash,
                                                  std::string_view dialect) const = 0;
};

}  // namespace ksnap::build

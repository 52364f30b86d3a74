// Internal: zstd frames for stored blobs and records, read back under hard
// limits (docs/hostile-input.md, "History store: damaged blobs, ...").
//
//   std::string z = compress(text, 12);
//   DecodeBudget budget(LoadOptions{}.max_text_bytes);
//   Expected<std::string> back = decompress(z, text.size(), "blob n:mlir:1f2e...", &budget);
//
// A store row is untrusted: its stored size may be negative or huge and its
// frame may lie about (or omit) its content size. decompress() allocates
// nothing before the frame has shown, by its block headers, that it can hold
// the stored size, and never writes past it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ksnap/support/status.h"

namespace ksnap::store {

/// The largest text one frame may hold: what `record` reads from a capture
/// (ReadOptions::max_bytes, 4 GiB). A stored size above it is damage.
inline constexpr int64_t kMaxStoredBytes = int64_t{1} << 32;

/// Bytes a series of decompressions may produce together. Not thread-safe:
/// one per reading operation.
class DecodeBudget {
 public:
  explicit DecodeBudget(uint64_t bytes) : total_(bytes), left_(bytes) {}
  /// Takes `n` bytes; false (nothing taken) when fewer are left.
  bool take(uint64_t n);
  uint64_t left() const { return left_; }
  uint64_t total() const { return total_; }

 private:
  uint64_t total_, left_;
};

/// One zstd frame of `data` at `level` (1..22; clamped).
std::string compress(std::string_view data, int level);

/// Decompresses one frame that must hold exactly `stored_size` bytes, taking
/// them from `budget` when given. Errors (kCorrupt, the message starts with
/// `what`): a stored size outside [0, kMaxStoredBytes], not one whole zstd
/// frame, a frame that holds more or fewer bytes; kUnsupported: over the
/// budget; kInternal: out of memory. Never throws.
Expected<std::string> decompress(std::string_view frame, int64_t stored_size,
                                 const std::string& what, DecodeBudget* budget = nullptr);

/// decompress() of a blob row, whose text must then hash (XXH3-128) to
/// `raw_hash` — and, for an "r:" id, the id must be that hash. Errors name
/// `id` (kCorrupt when the hash differs).
Expected<std::string> decode_blob(const std::string& id, const std::string& raw_hash,
                                  int64_t raw_size, std::string_view frame,
                                  DecodeBudget* budget = nullptr);

}  // namespace ksnap::store

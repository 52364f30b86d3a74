// Internal: zstd frames for stored blobs and records.
//
//   std::string z = compress(text, 12);
//   Expected<std::string> back = decompress(z, text.size(), "blob n:mlir:1f2e...");
#pragma once

#include <string>
#include <string_view>

#include "ksnap/support/status.h"

namespace ksnap::store {

/// One zstd frame of `data` at `level` (1..22; clamped).
std::string compress(std::string_view data, int level);

/// Decompresses one frame that must hold exactly `expected_size` bytes.
/// Errors (kCorrupt, naming `what`): not a zstd frame, truncated, wrong size.
Expected<std::string> decompress(std::string_view frame, size_t expected_size,
                                 const std::string& what);

}  // namespace ksnap::store

// zstd frames built by hand for the damaged-store tests (also used by
// tests/cli/hostile_store_cli_test.cc): frames that declare no content size,
// as a writer other than ksnap's compress() may make them, and frames whose
// few bytes expand a lot (RLE blocks). Format: RFC 8878.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

namespace ksnap::store::testing {

/// A frame header without a content size (FCS flag 0, not single-segment)
/// and a 128 KiB window.
inline std::string frame_header_without_size() {
  return std::string("\x28\xb5\x2f\xfd", 4) + std::string("\x00", 1) + "\x38";
}

/// A 3-byte block header: last flag, type (0 raw, 1 RLE), size.
inline std::string block_header(bool last, int type, uint32_t size) {
  uint32_t h = (last ? 1u : 0u) | (static_cast<uint32_t>(type) << 1) | (size << 3);
  return std::string{static_cast<char>(h & 0xff), static_cast<char>((h >> 8) & 0xff),
                     static_cast<char>((h >> 16) & 0xff)};
}

/// One frame holding `text` in raw blocks, without a content size.
inline std::string frame_without_size(const std::string& text) {
  std::string f = frame_header_without_size();
  constexpr size_t kBlock = 128 * 1024;
  size_t at = 0;
  do {
    size_t n = std::min(kBlock, text.size() - at);
    f += block_header(at + n == text.size(), 0, static_cast<uint32_t>(n));
    f += text.substr(at, n);
    at += n;
  } while (at < text.size());
  return f;
}

/// One frame of `blocks` RLE blocks of 128 KiB of `c` each, without a
/// content size: 4 bytes per block expand to 131072.
inline std::string rle_frame(size_t blocks, char c) {
  std::string f = frame_header_without_size();
  for (size_t i = 0; i < blocks; ++i) {
    f += block_header(i + 1 == blocks, 1, 128 * 1024);
    f += c;
  }
  return f;
}

}  // namespace ksnap::store::testing

#include "store/codec.h"

#include <zstd.h>

#include <algorithm>

namespace ksnap::store {

std::string compress(std::string_view data, int level) {
  level = std::clamp(level, 1, ZSTD_maxCLevel());
  std::string out(ZSTD_compressBound(data.size()), '\0');
  size_t n = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), level);
  // ZSTD_compress only fails for a too-small destination, which compressBound rules out.
  out.resize(ZSTD_isError(n) ? 0 : n);
  return out;
}

Expected<std::string> decompress(std::string_view frame, size_t expected_size,
                                 const std::string& what) {
  unsigned long long declared = ZSTD_getFrameContentSize(frame.data(), frame.size());
  if (declared == ZSTD_CONTENTSIZE_ERROR)
    return make_error(ErrorCode::kCorrupt, what + ": not a zstd frame");
  if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != expected_size)
    return make_error(ErrorCode::kCorrupt, what + ": frame holds " + std::to_string(declared) +
                                               " bytes, expected " + std::to_string(expected_size));
  std::string out(expected_size, '\0');
  size_t n = ZSTD_decompress(out.data(), out.size(), frame.data(), frame.size());
  if (ZSTD_isError(n)) return make_error(ErrorCode::kCorrupt, what + ": " + ZSTD_getErrorName(n));
  if (n != expected_size)
    return make_error(ErrorCode::kCorrupt, what + ": decompressed to " + std::to_string(n) +
                                               " bytes, expected " + std::to_string(expected_size));
  return out;
}

}  // namespace ksnap::store

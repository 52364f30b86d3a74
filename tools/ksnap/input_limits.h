// What one `ksnap` run may read (docs/hostile-input.md, "Command-line paths
// and the tuning cache"): each input file at most KSNAP_MAX_FILE_BYTES, all
// of them together at most KSNAP_MAX_INPUT_BYTES. Sizes are bytes, or a
// number with K, M, G or T (powers of 1024):
//
//   KSNAP_MAX_FILE_BYTES=64M KSNAP_MAX_INPUT_BYTES=2G ksnap diff base/ head/
#pragma once

#include <cstdint>
#include <string>

#include "ksnap/support/status.h"

namespace ksnap::cli {

inline constexpr uint64_t kDefaultMaxFileBytes = uint64_t{1} << 30;    // 1 GiB
inline constexpr uint64_t kDefaultMaxInputBytes = uint64_t{32} << 30;  // 32 GiB

/// "4096", "64K", "2G" → bytes. Errors: kInvalidArgument naming `what`.
Expected<uint64_t> parse_byte_size(const std::string& text, const std::string& what);

/// Sets support's InputLimits from the environment (or the defaults above).
/// Errors: a variable that is not a size.
Status apply_input_limits();

}  // namespace ksnap::cli

// Helpers shared by the libFuzzer targets.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace ksnap::fuzz {

/// The input split at NUL bytes into at most `n` parts (the last part keeps
/// any further NULs); missing parts are empty.
inline std::vector<std::string> split_parts(const uint8_t* data, size_t size, size_t n) {
  std::vector<std::string> parts(n);
  std::string_view in(reinterpret_cast<const char*>(data), size);
  for (size_t i = 0; i < n; ++i) {
    size_t nul = i + 1 < n ? in.find('\0') : std::string_view::npos;
    parts[i] = std::string(in.substr(0, nul));
    if (nul == std::string_view::npos) break;
    in.remove_prefix(nul + 1);
  }
  return parts;
}

/// Fails the run (libFuzzer records the input) when `ok` is false.
inline void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace ksnap::fuzz

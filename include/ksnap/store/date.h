// Commit dates as the store keeps them: Unix seconds (UTC).
//
//   parse_date("1733011200")                 -> 1733011200
//   parse_date("2024-12-01")                 -> 1733011200
//   parse_date("2024-12-01T10:30:00+02:00")  -> 1733041800
//   format_date(1733011200)                  -> "2024-12-01"
#pragma once

#include <cstdint>
#include <string>

#include "ksnap/support/status.h"

namespace ksnap::store {

/// Unix seconds, or ISO 8601 `YYYY-MM-DD[(T| )HH:MM[:SS]][Z|±HH[:]MM]` (no
/// zone = UTC). Errors: kInvalidArgument naming the text.
Expected<int64_t> parse_date(const std::string& text);

/// `YYYY-MM-DD` in UTC; "----------" for 0 (unknown).
std::string format_date(int64_t unix_seconds);

}  // namespace ksnap::store

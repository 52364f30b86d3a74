// ksnap perf: strict number parsing for result files.
//
// Worked example:
//
//   parse_number(" 31.104 ")      -> 31.104
//   parse_number("3e1x")          -> nullopt   (trailing junk)
//   parse_sample_list("1.5 2;3")  -> {1.5, 2, 3}
//   parse_sample_list("1.5 abc")  -> error "sample 2 ('abc') is not a number"
//
// Locale independent (std::from_chars). Only finite values are accepted.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "ksnap/support/status.h"

namespace ksnap::perf {

/// The finite number spelled by `text` (surrounding blanks allowed), else nullopt.
std::optional<double> parse_number(std::string_view text);

/// True for "", "nan", "NaN", "none", "null": pandas' spelling of a missing value.
bool is_missing_value(std::string_view text);

/// Splits on spaces, tabs, ';' and ',' and parses every token. Error
/// (kParseError, no location: the caller adds file:line) names the first bad
/// token and its 1-based position.
Expected<std::vector<double>> parse_sample_list(std::string_view text);

}  // namespace ksnap::perf

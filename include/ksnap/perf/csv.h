// ksnap perf: a small RFC 4180 CSV tokenizer for benchmark result files.
//
// Worked example:
//
//   M,N,"line, quoted"          -> row 1: {"M", "N", "line, quoted"}
//   512,512,"say ""hi"""        -> row 2: {"512", "512", "say \"hi\""}
//
// Fields are split on commas; a field that starts with `"` runs to the next
// unpaired `"` and may contain commas, `""` (a literal quote) and newlines.
// CRLF and LF both end a row. Every row remembers the 1-based line it starts
// on so that later stages can report `file:line` errors. Blank lines are
// skipped; with `comments` set, so are lines whose first byte is `#`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ksnap/support/file.h"
#include "ksnap/support/status.h"

namespace ksnap::perf {

/// One CSV record and the line it starts on.
struct CsvRow {
  uint32_t line = 0;
  std::vector<std::string> fields;
};

struct CsvOptions {
  /// Skip lines whose first byte is '#'.
  bool comments = false;
  /// Strip spaces and tabs around unquoted fields.
  bool trim = true;
};

/// Splits `buf` into rows. Errors (kParseError, with file:line:col): an
/// unterminated quoted field, or bytes after a closing quote other than a
/// comma or the end of the row.
Expected<std::vector<CsvRow>> parse_csv(const TextBuffer& buf, const CsvOptions& opts = {});

}  // namespace ksnap::perf

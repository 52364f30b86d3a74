// Word-level highlights inside a changed line.
//
// Worked example:
//   old "%5 = arith.muli %3, %c256_i32 : i32"
//   new "%5 = arith.muli %3, %c512_i32 : i32"
//   -> old span covers "%c256_i32", new span covers "%c512_i32".
// Words are maximal runs of identifier characters [A-Za-z0-9_.%#$@!^-]; every
// other non-space character is a word of its own; spaces separate.
#pragma once

#include <string_view>
#include <vector>

#include "ksnap/diff/result.h"

namespace ksnap::diff {

/// Spans of `old_text` and `new_text` not shared by a word-level LCS. Lines of
/// more than `max_words` words are highlighted whole.
void word_highlights(std::string_view old_text, std::string_view new_text,
                     std::vector<Span>* old_spans, std::vector<Span>* new_spans,
                     size_t max_words = 512);

}  // namespace ksnap::diff

// Internal: the JSON text of a report (docs/diff-json.md), optionally with
// lexer token runs per diff line for the HTML page's data island.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "ksnap/render/render.h"

namespace ksnap::render {

/// The report as JSON. With `tokens`, each diff line of a stage the lexer
/// knows also carries "tokens": html_tokens.h runs_text of its text (class
/// letter + UTF-16 length per run).
std::string write_json(const report::Report& rep, bool tokens);
/// The same text handed to `write` in pieces of about `chunk` bytes (cut
/// between variants, groups and the other list items): the whole is never
/// held. Stops writing at the first error of `write` and returns it.
Status write_json_to(const report::Report& rep, bool tokens,
                     const std::function<Status(std::string_view)>& write, size_t chunk);

}  // namespace ksnap::render

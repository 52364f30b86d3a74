// Internal: the JSON text of a report (docs/diff-json.md), optionally with
// lexer token runs per diff line for the HTML page's data island.
#pragma once

#include <string>

#include "ksnap/render/render.h"

namespace ksnap::render {

/// The report as JSON. With `tokens`, each diff line of a stage the lexer
/// knows also carries "tokens": html_tokens.h runs_text of its text (class
/// letter + UTF-16 length per run).
std::string write_json(const report::Report& rep, bool tokens);

}  // namespace ksnap::render

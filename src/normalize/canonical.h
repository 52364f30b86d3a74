// Canonical spelling of renamed symbols, shared by the fast hash path
// (engine.cc) and by canonical_text(Module) (canonical.cc), so that both print
// the very same bytes.
//
//   value  mask "%_"       canonical 3        -> "%v3"
//   PTX    mask "%rd"      canonical 3        -> "%rd3"
//   block  mask "^"        canonical 2        -> "^b2"     ("$L" -> "$L2")
//   alias  mask "#blocked" canonical 0xab..   -> "#a00000000000000ab"
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ksnap/normalize/normalize.h"

namespace ksnap::norm::detail {

void append_canonical_name(std::string& out, SymbolClass cls, std::string_view mask,
                           uint64_t canonical);

}  // namespace ksnap::norm::detail

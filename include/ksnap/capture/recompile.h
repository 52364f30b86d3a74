// ksnap capture: recompile.json, the variants `ksnap recompile` was asked to
// rebuild into a capture and could not (docs/recompile.md). A diff reports
// such a variant as not rebuilt, never as removed.
//
// This header is C++17 and depends on the standard library and
// support/status.h only.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ksnap/capture/variant_key.h"
#include "ksnap/support/status.h"

namespace ksnap::capture {

/// Highest recompile report format_version this ksnap reads.
inline constexpr int kRecompileReportVersion = 1;

/// A variant a recompile failed or skipped. It has no stage files.
struct NotRebuilt {
  /// Its identity as recorded: kernel, qualname (when recorded) and the JIT
  /// key (with its signature); no constexprs or options.
  VariantKey variant;
  std::string phase;   ///< "compile", "timeout", "source", ... ("skipped" for skipped variants).
  std::string reason;  ///< The last line of the error, or why it was skipped.
};

/// Reads a capture's `recompile.json`: its failed and skipped variants.
/// Errors are located in `path`: not JSON, another "format", a
/// format_version this ksnap does not read, an item without "kernel".
Expected<std::vector<NotRebuilt>> read_recompile_report(const std::string& path);
/// The same for a report's text; errors are located in `name`.
Expected<std::vector<NotRebuilt>> parse_recompile_report(std::string_view text,
                                                         const std::string& name);

/// True when `n` names the variant `v` (of the capture the recompile read):
/// same kernel and the same, recorded, JIT key (the key spells the
/// specialization, constexpr values and explicit options), and the same
/// qualname where both record one.
bool names_variant(const NotRebuilt& n, const VariantKey& v);

}  // namespace ksnap::capture

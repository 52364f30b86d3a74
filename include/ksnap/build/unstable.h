// Compiler nondeterminism: the variant-stages whose IR differed between two
// compiles of the same build in different processes (docs/capture-format.md,
// "unstable.json"). `ksnap check-determinism A B` and `ksnap capture
// --repeat N` produce an UnstableReport; a capture keeps it as unstable.json
// beside manifest.json, load_capture marks the variants it names
// (Variant::unstable_stages), and the diff reports their changes as unstable.
//
//   KSNAP_ASSIGN_OR_RETURN(UnstableReport u, read_unstable("ci/cap/unstable.json"));
//   size_t n = mark_unstable(u, UnstableMatch::kIdentity, &other_build);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ksnap/build/build.h"
#include "ksnap/support/status.h"

namespace ksnap::build {

/// Highest unstable.json format_version this ksnap reads (and the one it writes).
inline constexpr int kUnstableFormatVersion = 1;

struct UnstableStage {
  std::string stage;
  /// Lines that differed between the two compiles, after normalization.
  uint32_t lines_added = 0, lines_removed = 0;
};

/// A variant with at least one unstable stage. `variant` holds its identity
/// (kernel, qualname, source_file, key, signature, constexprs, options,
/// cache_dir) and no stage files.
struct UnstableVariant {
  Variant variant;
  std::vector<UnstableStage> stages;  ///< Pipeline order.
};

/// A variant only one of the compared builds compiled.
struct UnpairedVariant {
  size_t run = 0;  ///< Index into UnstableReport::runs.
  Variant variant;
};

struct UnstableReport {
  /// The compared builds as given (paths), the reference first.
  std::vector<std::string> runs;
  uint32_t variants_compared = 0;  ///< Variants present in every run.
  uint32_t stages_compared = 0;    ///< Their text stages compared.
  std::vector<UnstableVariant> variants;
  std::vector<UnpairedVariant> unpaired;

  /// Number of unstable variant-stages.
  size_t stage_count() const;
};

/// Reads an unstable.json. Errors name the file and line: not JSON, another
/// `format`, a newer `format_version`, an entry without `kernel` or `stages`.
Expected<UnstableReport> read_unstable(const std::string& path);

/// Same, for text already read; `name` names it in errors (a file, or the
/// history store row it came from).
Expected<UnstableReport> parse_unstable(std::string_view text, const std::string& name);

/// The report as unstable.json text (format "ksnap-unstable", version 1),
/// indented one space per level, or on one line with `compact`.
std::string unstable_json(const UnstableReport& r, bool compact = false);

/// How mark_unstable finds a report's variants in a build.
enum class UnstableMatch : uint8_t {
  /// The report was made of this very capture: kernel, source and cache folder.
  kSameCapture,
  /// Any build: kernel, id, signature and compatible sources
  /// (same_variant_identity). For --unstable-from and the history store.
  kIdentity,
};

/// Adds the report's unstable stages to the unstable_stages of every variant
/// of `b` it names (kept sorted and unique); returns how many variant-stages
/// were newly marked.
size_t mark_unstable(const UnstableReport& r, UnstableMatch how, Build* b);

/// True when `a` and `b` may be the same variant of the same kernel in two
/// builds: equal kernel, id() and signature, and sources that are equal,
/// unknown on a side, or share a trailing component (docs/capture-format.md,
/// "Variant identity").
bool same_variant_identity(const Variant& a, const Variant& b);

}  // namespace ksnap::build

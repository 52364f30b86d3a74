// ksnap builds: the set of compiled kernel variants that one compiler build
// produced, with the IR files of every stage.
//
// A build is loaded from
//   - a capture folder: `manifest.json` beside Triton's `cache/` (the ksnap
//     capture format, docs/capture-format.md), or
//   - a bare Triton cache folder (TRITON_CACHE_DIR): variants are found from
//     each `<hash>/<kernel>.json` metadata file and its stage files; such
//     variants have no constexprs and are paired by metadata and similarity.
// Other sources (the history store) construct Build values directly with
// in-memory stage texts.
//
//   Expected<Build> b = load_build("../shared/corpus/base");
//   for (const Variant& v : b->variants) std::cout << v.id() << "\n";
//   // add_kernel|{"BLOCK_SIZE": 256}|{"num_warps": 4}
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ksnap/build/known_texts.h"
#include "ksnap/build/option_map.h"
#include "ksnap/capture/manifest.h"
#include "ksnap/capture/recompile.h"
#include "ksnap/capture/variant_key.h"
#include "ksnap/support/file.h"
#include "ksnap/support/status.h"

namespace ksnap::build {

/// The IR stages ksnap knows, in pipeline order. `source` is Triton's
/// pre-optimization TTIR (diffed only when asked for); `sass` is the SASS
/// text a capture writes beside each cubin when nvdisasm/cuobjdump is at hand.
inline constexpr const char* kKnownStages[] = {"source", "ttir",   "ttgir", "llir",
                                               "ptx",    "amdgcn", "spv",   "sass"};
/// Binary artifacts kept and compared by hash and size, never parsed as text:
/// CUDA cubin, AMD hsaco, Intel zebin and binary SPIR-V. An `spv` stage file
/// whose content is binary (Intel's XPU backend writes binary SPIR-V) is one
/// too; binary bytes in any other text stage stay an input error.
inline constexpr const char* kBinaryStages[] = {"cubin", "hsaco", "zebin", "spvbin"};

/// Index of `stage` in kKnownStages, or -1.
int stage_rank(const std::string& stage);

/// True when the file starts like a binary (ELF, SPIR-V magic in either byte
/// order) or has a NUL byte in its first 4 KiB. Unreadable files are not
/// binary (reading them as text reports the error).
bool looks_binary(const std::string& path);

/// One stage's IR of one variant: a file on disk or text held in memory.
struct StageFile {
  std::string stage;                        ///< "ttir", "ttgir", "llir", "ptx", ...
  std::string path;                         ///< File path (for messages even when `text` is set).
  std::shared_ptr<const std::string> text;  ///< In-memory contents, or null.
  /// The normalized hash of the text with default options under the
  /// current norm::kHashVersion, when its source already knows it (the
  /// history store keeps it for every text it records); the diff then
  /// compares by it instead of normalizing the text again. Empty = unknown.
  std::optional<uint64_t> normalized_hash;
  /// XXH3-128 (hex) of the bytes the stage file had when it was captured,
  /// when its source knows it and `text` may be other bytes (a recorded
  /// commit's text is the first recorded text of its normalized form). A
  /// file with these bytes is this stage, under any rules. "" = unknown.
  std::string raw_hash;
};

/// Reads a stage's text (from memory or disk), rejecting binary junk.
Expected<TextBuffer> read_stage(const StageFile& f);

/// What `Variant::source()` names (capture/variant_key.h).
using SourceKind = capture::SourceKind;

/// One compiled variant of one kernel. Its identity — kernel, qualname,
/// source_file, key, signature, constexprs, options, constexprs_known, and
/// source(), id() — is its capture::VariantKey (docs/capture-format.md,
/// "Variant identity"); the rest is what the build holds of it.
struct Variant : capture::VariantKey {
  /// The identity alone (for matching, keys, labels).
  const capture::VariantKey& identity() const { return *this; }
  /// Every compile option the compiler recorded (from `<kernel>.json`):
  /// num_warps, num_stages, enable_fp_fusion, arch, ... (JSON value text).
  /// Loaded builds share equal option maps between their variants
  /// (share_equal_options).
  OptionMap compile_options;
  std::string cache_dir;            ///< Folder name under cache/ (never used for pairing).
  std::vector<StageFile> stages;    ///< Text stages present, pipeline order.
  std::vector<StageFile> binaries;  ///< cubin / hsaco / zebin / binary spv, by stage name.
  /// Resource figures: n_regs, n_spills, shared (bytes), ...
  std::map<std::string, int64_t> resources;
  int32_t source_line = -1;  ///< Line of the kernel's `def` in source_file.
  /// Benchmark attribution recorded by the capture plugin: the script and
  /// the benchmark-point labels that launched this variant.
  std::string benchmark_script;
  std::vector<std::string> benchmark_points;

  /// Stages whose text is known to differ between two compiles of this very
  /// variant (compiler nondeterminism): from the capture's unstable.json
  /// (docs/capture-format.md) or the history store. Sorted, unique.
  std::vector<std::string> unstable_stages;

  /// True when `stage` is in `unstable_stages`.
  bool unstable(const std::string& stage) const;
  /// The stage file for `stage`, or null.
  const StageFile* stage(const std::string& stage) const;
  /// The binary artifact for `stage` ("cubin", "spv", ...), or null.
  const StageFile* binary(const std::string& stage) const;
  /// An `spv` stage file whose content is binary moves to `binaries` (stage
  /// name kept).
  void move_binary_stages();
};

enum class BuildKind : uint8_t { kCapture, kTritonCache, kMemory };

/// A variant that `ksnap recompile` was asked to rebuild into this build and
/// could not: read from the capture's `recompile.json` (capture/recompile.h).
using NotRebuilt = capture::NotRebuilt;

struct Build {
  std::string root;  ///< Path it was loaded from.
  std::string name;  ///< `build` field of the manifest, else the folder name.
  BuildKind kind = BuildKind::kCapture;
  int format_version = 0;  ///< 0 = manifest without a `format` field.
  std::string triton_version;
  std::string arch;
  std::vector<Variant> variants;
  /// Variants a recompile into this capture failed or skipped (recompile.json).
  std::vector<NotRebuilt> not_rebuilt;
  /// Texts this build's source has seen in any build, not only this one
  /// (the history store: every text recorded); null for a folder. The diff
  /// engine asks it about the other side's bytes before normalizing them.
  std::shared_ptr<const KnownTexts> known_texts;
};

// Identity helpers, defined once in capture/variant_key.h and used here
// under their build names: source_components, common_source_suffix,
// source_tail, kernel_labels (with KernelSource), json_object_text.
using capture::common_source_suffix;
using capture::json_object_text;
using capture::kernel_labels;
using capture::KernelSource;
using capture::parse_recompile_report;
using capture::read_recompile_report;
using capture::source_components;
using capture::source_tail;

/// Highest capture format_version this ksnap reads.
using capture::kCaptureFormatVersion;

/// Makes the variants of `b` whose compile options are equal share one
/// map (OptionMap::share_equal). The loaders call it; a caller that builds a
/// Build by hand may.
void share_equal_options(Build* b);

/// Loads a capture folder or a bare Triton cache folder. Errors name the file
/// and, for manifests, the line: a manifest that is not JSON, has the wrong
/// `format`, an entry without `kernel`, or names a cache folder or stage file
/// that does not exist.
Expected<Build> load_build(const std::string& path);

/// Same, for a folder known to be a capture / a Triton cache.
Expected<Build> load_capture(const std::string& dir);
Expected<Build> load_triton_cache(const std::string& dir);

}  // namespace ksnap::build

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
#include <string>
#include <string_view>
#include <vector>

#include "ksnap/support/file.h"
#include "ksnap/support/status.h"

namespace ksnap::build {

/// The IR stages ksnap knows, in pipeline order. `source` is Triton's
/// pre-optimization TTIR (diffed only when asked for); `sass` is the SASS
/// text a capture writes beside each cubin when nvdisasm/cuobjdump is at hand.
inline constexpr const char* kKnownStages[] = {"source", "ttir", "ttgir", "llir",
                                               "ptx",    "amdgcn", "spv", "sass"};
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
  std::string stage;  ///< "ttir", "ttgir", "llir", "ptx", ...
  std::string path;   ///< File path (for messages even when `text` is set).
  std::shared_ptr<const std::string> text;  ///< In-memory contents, or null.
};

/// Reads a stage's text (from memory or disk), rejecting binary junk.
Expected<TextBuffer> read_stage(const StageFile& f);

/// What `Variant::source()` names.
enum class SourceKind : uint8_t {
  kUnknown,  ///< Nothing recorded (corpus manifests, bare caches): "".
  kModule,   ///< An importable module: the qualname, `pkg.mod.kernel`.
  kFile,     ///< A script run as `__main__` (or no qualname): its source file.
};

/// One compiled variant of one kernel.
struct Variant {
  std::string kernel;     ///< Function name, "matmul_kernel".
  std::string qualname;   ///< module.function when known.
  std::string key;        ///< Triton's JIT specialization key, verbatim ("" if unknown).
  std::string signature;  ///< Argument specialization: the key's leading [...] list.
  /// Constexpr values and explicitly passed compile options, name -> JSON
  /// value text (e.g. "256", "false", "\"ieee\"").
  std::map<std::string, std::string> constexprs;
  std::map<std::string, std::string> options;
  bool constexprs_known = true;  ///< False for bare-cache variants.
  /// Every compile option the compiler recorded (from `<kernel>.json`):
  /// num_warps, num_stages, enable_fp_fusion, arch, ... (JSON value text).
  std::map<std::string, std::string> compile_options;
  std::string cache_dir;  ///< Folder name under cache/ (never used for pairing).
  std::vector<StageFile> stages;    ///< Text stages present, pipeline order.
  std::vector<StageFile> binaries;  ///< cubin / hsaco / zebin / binary spv, by stage name.
  /// Resource figures: n_regs, n_spills, shared (bytes), ...
  std::map<std::string, int64_t> resources;
  std::string source_file;  ///< Python source path, when recorded.
  int32_t source_line = -1;
  /// Benchmark attribution recorded by the capture plugin: the script and
  /// the benchmark-point labels that launched this variant.
  std::string benchmark_script;
  std::vector<std::string> benchmark_points;

  /// Stages whose text is known to differ between two compiles of this very
  /// variant (compiler nondeterminism): from the capture's unstable.json
  /// (docs/capture-format.md) or the history store. Sorted, unique.
  std::vector<std::string> unstable_stages;

  /// `kernel|{"A": 1, "B": 2}|{"num_warps": 4}` — JSON objects with sorted
  /// keys, Python json.dumps spacing. With `source()` and `signature` it is
  /// the identity ksnap pairs on (docs/capture-format.md, "Variant identity").
  std::string id() const;
  /// Where the kernel is defined: the qualname when its module is not
  /// `__main__` (`suite_kernels.matmul_kernel`: stable when the checkout
  /// moves); else the source file as recorded (`/ci/w/bench/a.py`: a script
  /// run as `__main__`, compared across builds by path suffix); else the
  /// qualname (`__main__.k`); else "" (unknown).
  std::string source() const;
  SourceKind source_kind() const;
  /// True when `stage` is in `unstable_stages`.
  bool unstable(const std::string& stage) const;
  std::string constexprs_text() const;
  std::string options_text() const;
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
/// could not (a compile error, a timeout, a refused source): read from the
/// capture's `recompile.json` (docs/recompile.md). It has no stage files, so
/// the diff reports it as not rebuilt, never as removed.
struct NotRebuilt {
  std::string kernel;
  std::string qualname;  ///< module.function when recorded.
  std::string key;       ///< Triton's JIT key: with kernel and qualname, the identity matched.
  std::string phase;     ///< "compile", "timeout", "source", ... ("skipped" for skipped variants).
  std::string reason;    ///< The last line of the error, or why it was skipped.
};

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
};

/// Reads a capture's `recompile.json` (written by `ksnap recompile`): its
/// failed and skipped variants. Errors are located in `path`.
Expected<std::vector<NotRebuilt>> read_recompile_report(const std::string& path);
/// The same for a report's text; errors are located in `name`.
Expected<std::vector<NotRebuilt>> parse_recompile_report(std::string_view text,
                                                         const std::string& name);

/// The source of `v` as a path of names, for comparing where two kernels
/// are defined across builds: module components without the kernel name
/// (`pkg.mod.k` -> {pkg, mod}) or path components with `.py` dropped from
/// the file name (`/ci/w/pkg/mod.py` -> {ci, w, pkg, mod}); a module and the
/// file it was loaded from share their trailing components. Empty = unknown.
std::vector<std::string> source_components(const Variant& v);

/// Number of trailing source components `a` and `b` share.
size_t common_source_suffix(const std::vector<std::string>& a, const std::vector<std::string>& b);

/// The last `n` components of a source as written (`bench/a.py`,
/// `pkg.mod`); the whole source when it has fewer. For labels that tell
/// apart kernels of one name.
std::string source_tail(const Variant& v, size_t n);

/// Labels for kernels that share a name: for each (kernel, source) of
/// `kernels` whose kernel name is defined in two or more sources,
/// "kernel (tail)" with the shortest source_tail that tells the sources
/// apart (the whole source at worst, "source unknown" when empty). Kernels
/// defined in one source are absent: their label is the name itself.
/// Example: matmul_kernel in /ci/a/bench.py and /ci/b/bench.py ->
/// "matmul_kernel (a/bench.py)", "matmul_kernel (b/bench.py)".
struct KernelSource {
  std::string kernel;
  std::string source;              ///< As Variant::source() spells it ("" = unknown).
  const Variant* variant = nullptr;  ///< One variant defined there (its source kind).
};
std::map<std::pair<std::string, std::string>, std::string> kernel_labels(
    const std::vector<KernelSource>& kernels);

/// Highest capture format_version this ksnap reads.
inline constexpr int kCaptureFormatVersion = 1;

/// Loads a capture folder or a bare Triton cache folder. Errors name the file
/// and, for manifests, the line: a manifest that is not JSON, has the wrong
/// `format`, an entry without `kernel`, or names a cache folder or stage file
/// that does not exist.
Expected<Build> load_build(const std::string& path);

/// Same, for a folder known to be a capture / a Triton cache.
Expected<Build> load_capture(const std::string& dir);
Expected<Build> load_triton_cache(const std::string& dir);

/// Formats a JSON object of `name -> json text` with sorted keys and Python's
/// json.dumps separators: {"A": 1, "B": true}.
std::string json_object_text(const std::map<std::string, std::string>& kv);

}  // namespace ksnap::build

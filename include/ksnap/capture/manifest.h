// ksnap capture: the one reader of a capture folder's files
// (docs/capture-format.md): manifest.json and its shards manifest.d/*.json
// into typed entries, with the format and its version checked and every
// error located (file, line, column). unstable.json and recompile.json have
// their own readers (ksnap/capture/recompile.h, ksnap/build/unstable.h),
// which take identities through the same VariantKey.
//
//   capture/manifest.json   {"format": "ksnap-capture", "format_version": 1,
//                            "entries": [{"kernel": "matmul_kernel",
//                              "qualname": "__main__.matmul_kernel",
//                              "source_file": "/ci/a/03-matmul.py",
//                              "key": "[('*fp16', 'D')]{'num_warps': 8}",
//                              "constexprs": {"BLOCK_SIZE_M": 128},
//                              "options": {"num_warps": 8}, "cache_dir": "MXSB...",
//                              "stages": {"ttir": "cache/MXSB.../matmul_kernel.ttir"}}]}
//
//   Expected<Manifest> m = read_manifest("capture");
//   m->entries[0].key.source()    == "/ci/a/03-matmul.py"
//   m->entries[0].key.signature   == "[('*fp16', 'D')]"
//   m->entries[0].key.constexprs  == {{"BLOCK_SIZE_M", "128"}}
//
// The reader checks what the manifest says, not the files it names: build
// (load_capture) and tune resolve cache folders and stage paths through a
// PathGuard and report a bad one with Manifest::entry_error, located at the
// field that named it. Manifests are untrusted (docs/hostile-input.md).
//
// This header is C++17 and depends on the standard library and
// support/status.h only: the tune runtime includes it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ksnap/capture/variant_key.h"
#include "ksnap/support/status.h"

namespace ksnap::capture {

/// Highest capture format_version this ksnap reads.
inline constexpr int kCaptureFormatVersion = 1;

/// One stage file an entry names: stage name -> path relative to the capture.
struct StagePath {
  std::string stage;
  std::string path;
};

/// One manifest entry: one compiled variant.
struct ManifestEntry {
  VariantKey key;         ///< kernel, qualname, source_file, key/signature, constexprs, options.
  std::string cache_dir;  ///< One folder name under cache/ (checked).
  int32_t source_line = -1;
  /// False when the entry has no "stages" object (corpus manifests: readers
  /// find `<cache_dir>/<kernel>.<stage>` themselves).
  bool has_stages = false;
  std::vector<StagePath> stages;  ///< As listed, sorted by stage name.
  std::string metadata;           ///< "metadata": Triton's `<kernel>.json`, relative ("" if absent).
  /// Benchmark attribution: the script and the point labels (a point that is
  /// not a string is its python_json text).
  std::string benchmark_script;
  std::vector<std::string> benchmark_points;
  /// n_regs, n_spills, shared, n_max_threads when recorded (not null).
  std::map<std::string, int64_t> resources;
};

/// Which file a manifest is.
enum class ManifestKind : uint8_t {
  kCapture,  ///< manifest.json: "format" "ksnap-capture", or absent (version 0).
  kShard,    ///< manifest.d/<host>-<pid>.json: "format" "ksnap-capture-shard".
};

struct ManifestText;  // The parsed document, kept for locating errors.

class Manifest {
 public:
  std::string file;  ///< The path (or name) it was read from.
  ManifestKind kind = ManifestKind::kCapture;
  int format_version = 0;  ///< 0 = a manifest without a "format" field.
  std::string build;       ///< "build" ("" when absent).
  std::string triton_version;
  std::string arch;
  std::string source_path;
  std::vector<ManifestEntry> entries;

  /// Where entry `index`'s `field` ("cache_dir", "kernel", "metadata",
  /// "stages") is written; with `stage`, the path of that stage under
  /// "stages". The entry's own location when the field is absent.
  SourceLocation locate(size_t index, std::string_view field, std::string_view stage = {}) const;
  /// `code` "manifest entry <index>: <what>", located as by locate().
  Status entry_error(size_t index, std::string_view field, const std::string& what,
                     ErrorCode code = ErrorCode::kParseError, std::string_view stage = {}) const;

 private:
  friend Expected<Manifest> parse_manifest(std::string text, std::string name, ManifestKind kind);
  std::shared_ptr<const ManifestText> text_;
};

/// Parses manifest text (`name` names it in errors). Errors: kParseError
/// (not JSON, not an object, no "entries" array, a field of the wrong type,
/// an entry without "kernel" or "cache_dir"), kUnsupported (another
/// "format", a format_version this ksnap does not read), kInvalidArgument
/// (a "cache_dir" that is not one folder name) — each located.
Expected<Manifest> parse_manifest(std::string text, std::string name,
                                  ManifestKind kind = ManifestKind::kCapture);

/// Reads `<dir>/manifest.json`.
Expected<Manifest> read_manifest(const std::string& dir);

/// Reads every shard `<dir>/manifest.d/*.json`, in file name order; none
/// (or no manifest.d) gives an empty vector.
Expected<std::vector<Manifest>> read_shards(const std::string& dir);

/// The path of the optional file `name` (unstable.json, recompile.json) of
/// the capture `dir`, "" when it does not exist; an error when it leads out
/// of the folder or is not a regular file.
Expected<std::string> optional_capture_file(const std::string& dir, const std::string& name);

}  // namespace ksnap::capture

// ksnap capture: the identity of a compiled kernel variant — the one
// definition every reader of a capture (build, diff, tune, unstable.json,
// recompile.json) matches variants by (docs/capture-format.md, "Variant
// identity").
//
// Worked example. Two tutorial scripts both define `matmul_kernel` and run
// as `__main__`; a suite module defines a third:
//   {kernel "matmul_kernel", qualname "__main__.matmul_kernel",
//    source_file "/ci/a/tutorials/03-matmul.py"}
//     source() = "/ci/a/tutorials/03-matmul.py" (kFile), components {ci, a, tutorials, 03-matmul}
//   {kernel "matmul_kernel", qualname "__main__.matmul_kernel", source_file "/ci/a/bench/mm.py"}
//     source() = "/ci/a/bench/mm.py" (kFile): same name, another kernel
//   {kernel "matmul_kernel", qualname "suite_kernels.matmul_kernel"}
//     source() = "suite_kernels.matmul_kernel" (kModule), components {suite_kernels}
// same_kernel() is false for every two of them: three kernels, three autotune
// groups, three diff rows. Within one kernel, same_variant() compares the
// argument specialization (`signature`), constexprs and explicit options;
// a variant left over is matched by kernel + constexprs (same_leftover()).
//
// This header is C++17 and depends on the standard library only: the tune
// runtime includes it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ksnap::capture {

/// What `VariantKey::source()` names.
enum class SourceKind : uint8_t {
  kUnknown,  ///< Nothing recorded (corpus manifests, bare caches): "".
  kModule,   ///< An importable module: the qualname, `pkg.mod.kernel`.
  kFile,     ///< A script run as `__main__` (or no qualname): its source file.
};

/// The identity of one compiled variant of one kernel, as a capture records
/// it: the kernel (name + where it is defined) and how it was specialized.
/// Values of constexprs and options are JSON text spelled as Python's
/// json.dumps(sort_keys=True) would ("256", "false", "\"ieee\"", "1.0").
struct VariantKey {
  std::string kernel;       ///< Function name, "matmul_kernel".
  std::string qualname;     ///< module.function when known.
  std::string source_file;  ///< Python source path, when recorded.
  /// Triton's JIT specialization key, verbatim ("" if unknown). Recorded,
  /// not compared: `signature` is the part of it the identity uses.
  std::string key;
  std::string signature;  ///< Argument specialization: the key's leading [...] list.
  std::map<std::string, std::string> constexprs;
  std::map<std::string, std::string> options;  ///< Explicitly passed compile options.
  bool constexprs_known = true;                ///< False for bare-cache variants.

  /// Where the kernel is defined: the qualname when its module is not
  /// `__main__` (`suite_kernels.matmul_kernel`: stable when the checkout
  /// moves); else the source file as recorded (`/ci/w/bench/a.py`); else
  /// the qualname (`__main__.k`); else "" (unknown).
  std::string source() const;
  SourceKind source_kind() const;
  /// `{"A": 1, "B": 2}`: sorted keys, Python json.dumps spacing.
  std::string constexprs_text() const;
  std::string options_text() const;
  /// `kernel|{"A": 1}|{"num_warps": 4}`: the name ksnap shows and hashes
  /// for a variant (with source() and signature, the identity).
  std::string id() const;
  /// `{A=1, B=2} [num_warps=4]`: how reports and `ksnap log` show the
  /// specialization (specialization_label of constexprs and options).
  std::string label() const;
};

/// `{A=1, B=2} [num_warps=4]`, `{A=1}`, `[num_warps=4]` or "": constexprs in
/// braces, explicit options in brackets, `name=value` with the values' JSON
/// text. The one spelling of a variant's specialization for people.
std::string specialization_label(const std::map<std::string, std::string>& constexprs,
                                 const std::map<std::string, std::string>& options);

/// The signature part of a JIT key: its leading `[...]` list (the whole key
/// when it has no `]{`): `[('*fp16', 'D')]{'num_warps': 4}` -> `[('*fp16', 'D')]`.
std::string signature_of_key(const std::string& jit_key);

/// Same kernel within one capture: equal name and equal source().
bool same_kernel(const VariantKey& a, const VariantKey& b);
/// Same variant within one capture: same_kernel, equal signature,
/// constexprs and explicit options (rule 2 of "Variant identity", exact).
bool same_variant(const VariantKey& a, const VariantKey& b);
/// The leftover rule: same_kernel and equal constexprs (options may differ).
bool same_leftover(const VariantKey& a, const VariantKey& b);

/// Text keys for maps and hashing, with fields separated by \x1f:
/// kernel_text = kernel + source; variant_text = signature + constexprs +
/// options; leftover_text = constexprs. Equal texts <=> the rules above.
std::string kernel_text(const VariantKey& k);
std::string variant_text(const VariantKey& k);
std::string leftover_text(const VariantKey& k);

/// The source of `k` as a path of names, for comparing where two kernels
/// are defined across builds: module components without the kernel name
/// (`pkg.mod.k` -> {pkg, mod}) or path components with `.py` dropped from
/// the file name (`/ci/w/pkg/mod.py` -> {ci, w, pkg, mod}); a module and the
/// file it was loaded from share their trailing components. Empty = unknown.
std::vector<std::string> source_components(const VariantKey& k);

/// Number of trailing source components `a` and `b` share.
size_t common_source_suffix(const std::vector<std::string>& a, const std::vector<std::string>& b);

/// Sources that may be the same across two builds: equal, unknown on a
/// side, or sharing a trailing component.
bool compatible_sources(const VariantKey& a, const VariantKey& b);

/// The last `n` components of a source as written (`bench/a.py`,
/// `pkg.mod`); the whole source when it has fewer. For labels that tell
/// apart kernels of one name.
std::string source_tail(const VariantKey& k, size_t n);

/// True when `tail` names the source of `k`: the whole source, or trailing
/// components of it spelled as source_tail spells them (`a.py`,
/// `bench/a.py`, `suite_kernels`). An empty `tail` names every source.
bool source_has_tail(const VariantKey& k, const std::string& tail);

/// Labels for kernels that share a name: for each (kernel, source) of
/// `kernels` whose kernel name is defined in two or more sources,
/// "kernel (tail)" with the shortest source_tail that tells the sources
/// apart (the whole source at worst, "source unknown" when empty). Kernels
/// defined in one source are absent: their label is the name itself.
/// Example: matmul_kernel in /ci/a/bench.py and /ci/b/bench.py ->
/// "matmul_kernel (a/bench.py)", "matmul_kernel (b/bench.py)".
struct KernelSource {
  std::string kernel;
  std::string source;                  ///< As VariantKey::source() spells it ("" = unknown).
  const VariantKey* variant = nullptr;  ///< One variant defined there (its source kind).
};
std::map<std::pair<std::string, std::string>, std::string> kernel_labels(
    const std::vector<KernelSource>& kernels);
/// The tails kernel_labels shows, without the kernel name: (kernel, source)
/// -> "a/bench.py", for kernels whose name has two or more sources.
std::map<std::pair<std::string, std::string>, std::string> kernel_source_tails(
    const std::vector<KernelSource>& kernels);

/// Formats a JSON object of `name -> json text` with sorted keys and Python's
/// json.dumps separators: {"A": 1, "B": true}.
std::string json_object_text(const std::map<std::string, std::string>& kv);

}  // namespace ksnap::capture

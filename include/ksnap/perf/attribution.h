// ksnap perf: attribute benchmark points to the kernel variants they ran.
//
// Independent of the diff engine: the caller adapts its diff result into
// `VariantInfo` (one per compiled variant, with its IR status) and gets back,
// per point, which variants it exercised and so whether its IR changed.
//
// Worked example — variants from the capture:
//
//   v1  matmul_kernel {BLOCK_M=128}  script bench/matmul.py
//       points ["matmul-performance[K=512,M=512,N=512,line=Triton]"]   IR changed
//   v2  matmul_kernel {BLOCK_M=64}   script bench/matmul.py  points []  IR unchanged
//   v3  softmax_kernel {BLOCK=1024}  script bench/softmax.py points []  IR unchanged
//
//   point matmul-performance[K=512,M=512,N=512,line=Triton]  -> rule point-label, {v1}, IR changed
//   point matmul-performance[K=1024,M=1024,N=1024,line=Triton]
//         (script /ci/repo/bench/matmul.py)                  -> rule script+kernel, {v1, v2}
//                                                              ("matmul" is a token of the
//                                                              name), IR changed
//   point softmax[N=4096,line=Triton] (script bench/softmax.py)
//                                                            -> rule script+kernel, {v3}
//                                                              (only kernel of that script)
//   point layernorm[N=4096]  (no script)                     -> unattributed, IR unknown
//
// Recorded labels come in two spellings: ksnap's `name[k=v,...]`
// (format_point_label), or the capture plugin's JSON object of labels,
// `{"K": 512, "M": 512, "N": 512, "provider": "triton"}` (no benchmark name;
// perf_report's line appears as line_arg = line *value*, where the CSV has
// `line` = line *name*).
//
// Rules, first that yields variants wins:
//  1. point label: a ksnap label matches when it has the point's benchmark
//     name and each of its params equals the point's (it may name a subset
//     of them, e.g. only the x values). A plugin label (no name) matches when
//     the keys it shares with the point — at least one — carry the same
//     values (text compared case-insensitively), and, when the point has a
//     `line` param the label lacks, one of the label's other values equals
//     the line name case-insensitively (provider=triton ~ line=Triton).
//     Other label keys the point lacks (test ids, autotune keys) are ignored;
//  2. script + kernel: the point's script equals the variant's (or one path
//     ends with "/" + the other), and the kernel matches — the point names it
//     (`kernel`), or the kernel's name tokens without "kernel" (matmul_kernel
//     -> {matmul}) all occur among the benchmark name's tokens, or the script
//     launched only one kernel name. Point params that are also constexprs of
//     a variant (BLOCK_SIZE=1024) must agree;
//  3. otherwise unattributed: the verdict relies on performance only.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ksnap/capture/variant_key.h"
#include "ksnap/perf/bench_results.h"

namespace ksnap::perf {

/// IR status of one compiled variant between base and head.
enum class IrStatus : uint8_t { kUnchanged, kChanged, kAdded, kRemoved };

/// "unchanged", "changed", "added", "removed".
const char* ir_status_name(IrStatus s);

/// One compiled kernel variant as the capture recorded it.
struct VariantInfo {
  /// The variant's identity (capture/variant_key.h): attribution reads its
  /// kernel name and constexprs; verdicts name the variant by key.id().
  capture::VariantKey key;
  std::string bench_script;               ///< "" when the capture saw none
  std::vector<std::string> bench_points;  ///< format_point_label labels, may be empty
  IrStatus ir_status = IrStatus::kUnchanged;
};

enum class MatchRule : uint8_t { kPointLabel, kScriptAndKernel, kUnattributed };

/// "point-label", "script+kernel", "unattributed".
const char* match_rule_name(MatchRule r);

/// IR status of a benchmark point: changed when any attributed variant's IR
/// changed (or the variant was added/removed), unchanged when none did,
/// unknown when the point is unattributed.
enum class PointIr : uint8_t { kChanged, kUnchanged, kUnknown };

/// "changed", "unchanged", "unknown".
const char* point_ir_name(PointIr s);

struct Attribution {
  MatchRule rule = MatchRule::kUnattributed;
  std::vector<size_t> variants;  ///< indices into the variants given
  PointIr ir = PointIr::kUnknown;
  std::string note;  ///< why unattributed, when there is something to say
};

/// True when the two script paths name the same file: equal after dropping
/// a leading "./", or one ends with "/" + the other.
bool same_script(std::string_view a, std::string_view b);

/// Attributes points to variants (see the rules above). Prepares the
/// variants' labels once; `variants` must outlive the object.
class Attributor {
 public:
  explicit Attributor(std::span<const VariantInfo> variants);
  Attribution attribute(const BenchPointId& point) const;

 private:
  struct Label {
    bool has_name = false;
    std::string name;
    ParamList params;
  };
  struct Prepared {
    std::vector<Label> labels;
    std::vector<std::string> raw_labels;  ///< labels that do not parse: exact text match
    ParamList constexprs;
    std::vector<std::string> kernel_tokens;
  };
  static bool label_matches(const Label& label, const BenchPointId& point);

  std::span<const VariantInfo> variants_;
  std::vector<Prepared> prepared_;
};

/// Convenience: one Attribution per point, in order.
std::vector<Attribution> attribute_points(std::span<const BenchPointId> points,
                                          std::span<const VariantInfo> variants);

}  // namespace ksnap::perf

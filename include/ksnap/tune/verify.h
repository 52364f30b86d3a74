// ksnap tune: verified variants — a variant may win a workload only if its
// output on the tuning input matches the default variant's.
//
// With GroupOptions::verify.enabled, before the race of a workload starts,
// the group runs the default variant and then every other variant once on the
// same input (ahead of time: the synthetic or the caller's arguments of
// tune(); online: synthetic arguments made from the layout, at the workload's
// first call outside a graph capture), reads every output and in-out buffer
// back, and compares element by element. A variant whose output differs is
// excluded from that workload's race — it is never timed there and can never
// be chosen — and the report, the commit event and stderr say why.
//
// Comparison, as torch.allclose: |got - ref| <= atol + rtol * |ref| per
// element; NaN matches only NaN, an infinity only the same infinity; integer
// and byte buffers must be equal. Worked example (f16, atol 1e-2, rtol 1e-2):
//   ref 1.000, got 1.015   |d| = 0.015 <= 0.01 + 0.01*1.0 = 0.020  -> match
//   ref 1.000, got 1.030   |d| = 0.030 >  0.020                    -> mismatch
//   ref 0.000, got 0.009   |d| = 0.009 <= 0.01                     -> match
// Different tile shapes and split-K reorder a reduction, so floating-point
// outputs of correct variants differ in the last bits: the default
// tolerances (default_tolerance) allow that and no more.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>

#include "ksnap/tune/args.h"

namespace ksnap::tune {

struct Tolerance {
  double atol = 0;
  double rtol = 0;
};

/// The default tolerance per element type: f16 1e-2/1e-2, bf16 3e-2/3e-2,
/// f32 1e-4/1e-4, f64 1e-9/1e-9; integers and bytes exact.
Tolerance default_tolerance(ElementType t);
/// "f16", "bf16", "f32", ..., "bytes", "unspecified".
const char* element_name(ElementType t);
/// Bytes per element (1 for bytes; 0 for unspecified).
size_t element_size(ElementType t);

struct VerifyOptions {
  /// Off by default: verification costs one launch of every variant and a
  /// read-back per new workload.
  bool enabled = false;
  /// Overrides default_tolerance for an element type.
  std::map<ElementType, Tolerance> tolerance;
  /// The tolerance verification uses for `t`.
  Tolerance tolerance_for(ElementType t) const;
};

/// The first element where two outputs differ, and how many differ.
struct Mismatch {
  size_t index = 0;       ///< element index of the first mismatch
  double expected = 0;    ///< the reference (default variant) value
  double actual = 0;      ///< this variant's value
  size_t count = 0;       ///< elements that differ
  size_t elements = 0;    ///< elements compared
  /// "element 17 of 4096: 3.5 where the default gives 1.25 (12 elements differ;
  /// f16 atol 0.01 rtol 0.01)"
  std::string to_string(ElementType t, Tolerance tol) const;
};

/// Compares `bytes` bytes of two outputs of element type `t` (not
/// kUnspecified); a trailing partial element is compared bytewise.
/// nullopt when they match.
std::optional<Mismatch> compare_outputs(ElementType t, const void* expected, const void* actual,
                                        size_t bytes, Tolerance tol);

}  // namespace ksnap::tune

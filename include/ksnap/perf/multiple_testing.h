// ksnap perf: p-value adjustment for testing many benchmark points at once.
//
// Worked example, p = {0.01, 0.04, 0.03, 0.005} (m = 4):
//
//   Holm (step-down, controls the family-wise error rate):
//     sorted 0.005 0.01 0.03 0.04 -> x4 x3 x2 x1 -> 0.02 0.03 0.06 0.04
//     running max                                 -> 0.02 0.03 0.06 0.06
//     back in input order: {0.03, 0.06, 0.06, 0.02}
//   Benjamini–Hochberg (step-up, controls the false discovery rate):
//     sorted 0.005 0.01 0.03 0.04 -> x4/1 x4/2 x4/3 x4/4 -> 0.02 0.02 0.04 0.04
//     running min from the top                            -> 0.02 0.02 0.04 0.04
//     back in input order: {0.02, 0.04, 0.04, 0.02}
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace ksnap::perf {

enum class Correction : uint8_t { kNone, kHolm, kBenjaminiHochberg };

/// "none", "holm", "bh".
const char* correction_name(Correction c);

/// Adjusted p-values in input order, each in [0, 1]. NaN inputs stay NaN and
/// do not count towards m.
std::vector<double> adjust_p_values(std::span<const double> p, Correction c);

}  // namespace ksnap::perf

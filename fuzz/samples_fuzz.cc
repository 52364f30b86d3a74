// libFuzzer target for `tune replay` samples files (tune/samples.h).
// Checks: parsing never crashes; on success every workload has one sample
// list per variant name, every sample is positive and finite, and medians
// are within each variant's samples.
#include <cmath>
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "ksnap/tune/samples.h"

using ksnap::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto s = ksnap::tune::parse_samples(text, "samples.json");
  if (!s) {
    check(s.status().code() == ksnap::ErrorCode::kParseError);
    return 0;
  }
  check(!s->workloads.empty());
  for (const auto& w : s->workloads) {
    check(w.samples.size() == s->variant_names.size());
    check(w.true_median.size() == w.samples.size());
    for (size_t v = 0; v < w.samples.size(); ++v) {
      check(!w.samples[v].empty());
      double lo = INFINITY, hi = 0;
      for (double x : w.samples[v]) {
        check(x > 0 && std::isfinite(x));
        lo = std::min(lo, x);
        hi = std::max(hi, x);
      }
      check(w.true_median[v] >= lo && w.true_median[v] <= hi);
    }
    if (w.reference_choice) check(*w.reference_choice < w.samples.size());
  }
  return 0;
}

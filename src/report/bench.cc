#include "ksnap/report/bench.h"

namespace ksnap::report {

std::vector<perf::VariantInfo> variant_infos(const diff::DiffResult& r) {
  std::vector<perf::VariantInfo> out;
  out.reserve(r.variants.size());
  for (const auto& v : r.variants) {
    perf::VariantInfo info;
    info.key = v.key;
    info.bench_script = v.benchmark_script;
    info.bench_points = v.benchmark_points;
    switch (v.pairing) {
      case diff::Pairing::kAdded:
        info.ir_status = perf::IrStatus::kAdded;
        break;
      case diff::Pairing::kRemoved:
      case diff::Pairing::kNotRebuilt:  // no HEAD variant to attribute a timing to
        info.ir_status = perf::IrStatus::kRemoved;
        break;
      default:
        info.ir_status = v.changed() ? perf::IrStatus::kChanged : perf::IrStatus::kUnchanged;
    }
    out.push_back(std::move(info));
  }
  return out;
}

perf::VerdictReport bench_verdicts(const diff::DiffResult& r, const perf::BenchResults& base,
                                   const perf::BenchResults& head,
                                   const perf::CompareOptions& opts) {
  std::vector<perf::VariantInfo> infos = variant_infos(r);
  return perf::make_verdicts(base, head, infos, opts);
}

}  // namespace ksnap::report

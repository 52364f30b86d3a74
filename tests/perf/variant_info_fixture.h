// Test fixture: a perf::VariantInfo spelled in one call.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ksnap/perf/attribution.h"

namespace ksnap::perf {

/// A variant of `kernel` with these constexprs (JSON text), launched by
/// `script` under these benchmark point labels.
inline VariantInfo info(std::string kernel, std::map<std::string, std::string> constexprs,
                        std::string script, std::vector<std::string> points, IrStatus ir) {
  VariantInfo v;
  v.key.kernel = std::move(kernel);
  v.key.constexprs = std::move(constexprs);
  v.bench_script = std::move(script);
  v.bench_points = std::move(points);
  v.ir_status = ir;
  return v;
}

}  // namespace ksnap::perf

#include "perf/json_param.h"

#include <cstdio>

#include "ksnap/perf/bench_results.h"

namespace ksnap::perf {

std::string json_param_text(const json::Value& v) {
  if (v.is_string()) return v.get_ref<const std::string&>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_unsigned()) return std::to_string(v.get<uint64_t>());
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number_float()) {
    char buf[40];
    std::snprintf(buf, sizeof(buf), "%.17g", v.get<double>());
    return normalize_param_value(buf);
  }
  if (v.is_null()) return "none";
  return "";
}

}  // namespace ksnap::perf

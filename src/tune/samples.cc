#include "ksnap/tune/samples.h"

#include "ksnap/support/file.h"
#include "ksnap/tune/stats.h"
#include "tune/json_util.h"

namespace ksnap::tune {

namespace {

std::string shape_label(const nlohmann::json& shape) {
  std::string out;
  for (const auto& d : shape) {
    if (!out.empty()) out += "x";
    out += d.is_number_integer() ? std::to_string(d.get<long long>()) : d.dump();
  }
  return out;
}

}  // namespace

Expected<RecordedSamples> parse_samples(std::string_view text, const std::string& name) {
  KSNAP_ASSIGN_OR_RETURN(nlohmann::json j, detail::parse_json(text, name));
  auto fail = [&](std::string_view needle, const std::string& what) {
    return detail::json_error(text, name, needle, what);
  };
  if (!j.is_object() || !j.contains("shapes") || !j["shapes"].is_array() || j["shapes"].empty())
    return fail("", "samples file needs a non-empty \"shapes\" array");
  RecordedSamples out;
  out.source = name;
  if (j.contains("device") && j["device"].is_string()) out.device = j["device"];
  size_t n_variants = 0;
  for (const auto& s : j["shapes"]) {
    RecordedWorkload w;
    if (!s.is_object() || !s.contains("samples_us") || !s["samples_us"].is_array())
      return fail("\"shapes\"", "every shape needs a \"samples_us\" array of arrays");
    w.label = s.contains("shape") ? shape_label(s["shape"])
                                  : "workload" + std::to_string(out.workloads.size());
    std::string where = s.contains("shape") ? s["shape"].dump() : "\"samples_us\"";
    for (const auto& v : s["samples_us"]) {
      if (!v.is_array() || v.empty())
        return fail("\"samples_us\"", "shape " + w.label + ": a variant has no samples");
      std::vector<double> xs;
      xs.reserve(v.size());
      for (const auto& x : v) {
        if (!x.is_number() || !(x.get<double>() > 0))
          return fail("\"samples_us\"",
                      "shape " + w.label + ": samples must be positive numbers, got " + x.dump());
        xs.push_back(x.get<double>());
      }
      w.true_median.push_back(median(xs));
      w.samples.push_back(std::move(xs));
    }
    if (w.samples.empty()) return fail("\"samples_us\"", "shape " + w.label + " has no variants");
    if (n_variants == 0) n_variants = w.samples.size();
    if (w.samples.size() != n_variants)
      return fail("\"samples_us\"", "shape " + w.label + " has " + std::to_string(w.samples.size()) +
                                        " variants, the first shape " + std::to_string(n_variants));
    if (s.contains("autotune_first_call_s") && s["autotune_first_call_s"].is_number())
      w.reference_tuning_s = s["autotune_first_call_s"].get<double>();
    if (s.contains("autotune_choice")) {
      const auto& c = s["autotune_choice"];
      const auto& c0 = c.is_array() && !c.empty() ? c[0] : c;
      if (c0.is_number_unsigned() && c0.get<size_t>() < n_variants) w.reference_choice = c0.get<size_t>();
    }
    out.workloads.push_back(std::move(w));
  }
  const nlohmann::json* configs = j.contains("configs") ? &j["configs"] : nullptr;
  for (size_t i = 0; i < n_variants; ++i) {
    std::string label = "v" + std::to_string(i);
    if (configs && configs->is_array() && i < configs->size()) label += " " + (*configs)[i].dump();
    out.variant_names.push_back(label);
  }
  return out;
}

Expected<RecordedSamples> load_samples(const std::string& path) {
  KSNAP_ASSIGN_OR_RETURN(TextBuffer text, read_text_file(path));
  return parse_samples(text.view(), path);
}

}  // namespace ksnap::tune

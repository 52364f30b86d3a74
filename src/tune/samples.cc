#include "ksnap/tune/samples.h"

#include "ksnap/support/file.h"
#include "ksnap/support/json.h"
#include "ksnap/tune/stats.h"

namespace ksnap::tune {

namespace {

/// "512x512x512" for an array of integers; other values as JSON text.
std::string shape_label(const json::Value& shape) {
  if (!shape.is_array()) return json::dump(shape);
  std::string out;
  for (const auto& d : shape) {
    if (!out.empty()) out += "x";
    out += json::dump(d);
  }
  return out;
}

/// One shape's samples; `n_variants` is the first shape's count (0 before it).
Status read_workload(const json::Node& s, size_t index, size_t n_variants, RecordedWorkload* w) {
  using json::Need;
  KSNAP_RETURN_IF_ERROR(s.expect_object(Need::kRequired));
  json::Node samples = s["samples_us"];
  KSNAP_RETURN_IF_ERROR(samples.expect_array(Need::kRequired));
  w->label =
      s["shape"].present() ? shape_label(s["shape"].value()) : "workload" + std::to_string(index);
  for (size_t v = 0; v < samples.size(); ++v) {
    json::Node times = samples[v];
    KSNAP_RETURN_IF_ERROR(times.expect_array(Need::kRequired));
    if (times.size() == 0) return times.error("shape " + w->label + ": a variant has no samples");
    std::vector<double> xs;
    xs.reserve(times.size());
    for (size_t k = 0; k < times.size(); ++k) {
      double x = 0;
      KSNAP_RETURN_IF_ERROR(times[k].read(&x, Need::kRequired));
      if (!(x > 0))
        return times[k].error("shape " + w->label + ": samples must be positive numbers, got " +
                              json::dump(times[k].value()));
      xs.push_back(x);
    }
    w->true_median.push_back(median(xs));
    w->samples.push_back(std::move(xs));
  }
  if (w->samples.empty()) return samples.error("shape " + w->label + " has no variants");
  if (n_variants != 0 && w->samples.size() != n_variants)
    return samples.error("shape " + w->label + " has " + std::to_string(w->samples.size()) +
                         " variants, the first shape " + std::to_string(n_variants));
  json::Node tuning = s["autotune_first_call_s"];
  double tuning_s = 0;
  KSNAP_RETURN_IF_ERROR(tuning.read(&tuning_s));
  if (tuning.present() && !tuning.value().is_null()) w->reference_tuning_s = tuning_s;
  json::Node choice = s["autotune_choice"];
  if (choice.is_array()) choice = choice[0];
  uint64_t c = 0;
  KSNAP_RETURN_IF_ERROR(choice.read(&c));
  if (choice.present() && !choice.value().is_null() && c < w->samples.size())
    w->reference_choice = static_cast<size_t>(c);
  return Status::ok();
}

}  // namespace

Expected<RecordedSamples> parse_samples(std::string_view text, const std::string& name) {
  KSNAP_ASSIGN_OR_RETURN(json::Document doc, json::Document::parse(text, name));
  json::Node root = doc.root();
  json::Node shapes = root["shapes"];
  if (!shapes.is_array() || shapes.size() == 0)
    return root.error("samples file needs a non-empty \"shapes\" array");
  RecordedSamples out;
  out.source = name;
  KSNAP_RETURN_IF_ERROR(root["device"].read(&out.device));
  size_t n_variants = 0;
  for (size_t i = 0; i < shapes.size(); ++i) {
    RecordedWorkload w;
    KSNAP_RETURN_IF_ERROR(read_workload(shapes[i], i, n_variants, &w));
    n_variants = w.samples.size();
    out.workloads.push_back(std::move(w));
  }
  json::Node configs = root["configs"];
  KSNAP_RETURN_IF_ERROR(configs.expect_array());
  for (size_t i = 0; i < n_variants; ++i) {
    std::string label = std::string("v").append(std::to_string(i));
    if (i < configs.size()) label.append(" ").append(json::dump(configs[i].value()));
    out.variant_names.push_back(label);
  }
  return out;
}

Expected<RecordedSamples> load_samples(const std::string& path) {
  KSNAP_ASSIGN_OR_RETURN(TextBuffer text, read_text_file(path));
  return parse_samples(text.view(), path);
}

}  // namespace ksnap::tune

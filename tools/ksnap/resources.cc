#include "resources.h"

#include "ksnap/build/resources.h"

namespace ksnap::cli {

void add_resources(const build::Variant& v, nlohmann::json* out) {
  build::VariantResources r = build::variant_resources(v);
  if (!r.error.empty()) (*out)["resource_error"] = r.error;
  if (r.occupancy)
    (*out)["occupancy"] = {{"value", r.occupancy->value},
                           {"unit", r.occupancy->unit},
                           {"limited_by", r.occupancy->limited_by},
                           {"target", r.target}};
  nlohmann::json figures = nlohmann::json::object(), sources = nlohmann::json::object();
  for (const auto& [name, n] : r.figures) figures[name] = n;
  for (const auto& [name, s] : r.sources) sources[name] = s;
  (*out)["resources"] = std::move(figures);
  (*out)["resource_sources"] = std::move(sources);
}

}  // namespace ksnap::cli

#include "resources.h"

#include "ksnap/binary/occupancy.h"
#include "ksnap/binary/resources.h"
#include "ksnap/support/file.h"

namespace ksnap::cli {
namespace {

/// A compile option that is a JSON integer ("4"), or `otherwise`.
int64_t option_int(const build::Variant& v, const char* name, int64_t otherwise) {
  auto it = v.compile_options.find(name);
  if (it == v.compile_options.end()) return otherwise;
  int64_t n = 0;
  for (char c : it->second) {
    if (c < '0' || c > '9' || n > (int64_t{1} << 40)) return otherwise;
    n = n * 10 + (c - '0');
  }
  return it->second.empty() ? otherwise : n;
}

}  // namespace

void add_resources(const build::Variant& v, nlohmann::json* out) {
  nlohmann::json figures = nlohmann::json::object(), sources = nlohmann::json::object();
  for (const auto& [name, n] : v.resources) {
    figures[name] = n;
    sources[name] = "launch";
  }
  const build::StageFile* bin = v.binary("cubin");
  if (!bin) bin = v.binary("hsaco");
  if (bin) {
    auto bytes = read_binary_file(bin->path);
    auto r = bytes ? binary::read_kernel_resources(*bytes, v.kernel, bin->path)
                   : Expected<binary::KernelResources>(bytes.status());
    if (!r) {
      (*out)["resource_error"] = r.status().to_string();
    } else {
      for (const auto& [name, n] : r->figures) {
        if (figures.contains(name)) continue;  // a launch figure of that name wins
        figures[name] = n;
        sources[name] = "binary";
      }
      for (const auto& [name, value] :
           {std::pair{"n_regs", r->n_regs}, {"n_spills", r->n_spills}}) {
        if (figures.contains(name) || !value) continue;
        figures[name] = *value;
        sources[name] = "binary";
      }
      const binary::TargetLimits* t = binary::target_limits(r->target);
      if (t) {
        const int64_t warps = option_int(v, "num_warps", -1);
        const int64_t threads = warps > 0 ? warps * t->wave_size : -1;
        auto shared = v.resources.find("shared");
        auto o =
            binary::occupancy(*r, *t, threads, shared == v.resources.end() ? 0 : shared->second);
        if (o)
          (*out)["occupancy"] = {{"value", o->value},
                                 {"unit", o->unit},
                                 {"limited_by", o->limited_by},
                                 {"target", r->target}};
      }
    }
  }
  (*out)["resources"] = std::move(figures);
  (*out)["resource_sources"] = std::move(sources);
}

}  // namespace ksnap::cli

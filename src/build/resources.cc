#include "ksnap/build/resources.h"

#include "ksnap/binary/resources.h"
#include "ksnap/support/file.h"

namespace ksnap::build {
namespace {

/// A compile option that is a JSON integer ("4"), or `otherwise`.
int64_t option_int(const Variant& v, const char* name, int64_t otherwise) {
  auto it = v.compile_options.find(name);
  if (it == v.compile_options.end() || it->second.empty()) return otherwise;
  int64_t n = 0;
  for (char c : it->second) {
    if (c < '0' || c > '9' || n > (int64_t{1} << 40)) return otherwise;
    n = n * 10 + (c - '0');
  }
  return n;
}

}  // namespace

VariantResources variant_resources(const Variant& v) { return variant_resources(v, v.resources); }

VariantResources variant_resources(const Variant& v,
                                   const std::map<std::string, int64_t>& launch) {
  VariantResources out;
  for (const auto& [name, n] : launch) {
    out.figures[name] = n;
    out.sources[name] = "launch";
  }
  const StageFile* bin = v.binary("cubin");
  if (!bin) bin = v.binary("hsaco");
  if (!bin) return out;
  auto bytes = read_binary_file(bin->path);
  auto r = bytes ? binary::read_kernel_resources(*bytes, v.kernel, bin->path)
                 : Expected<binary::KernelResources>(bytes.status());
  if (!r) {
    out.error = r.status().to_string();
    return out;
  }
  out.target = r->target;
  for (const auto& [name, n] : r->figures) {
    if (out.figures.count(name)) continue;  // a launch figure of that name wins
    out.figures[name] = n;
    out.sources[name] = "binary";
  }
  for (const auto& [name, value] :
       {std::pair{"n_regs", r->n_regs}, std::pair{"n_spills", r->n_spills}}) {
    if (out.figures.count(name) || !value) continue;
    out.figures[name] = *value;
    out.sources[name] = "binary";
  }
  if (const binary::TargetLimits* t = binary::target_limits(r->target)) {
    const int64_t warps = option_int(v, "num_warps", -1);
    const int64_t threads = warps > 0 ? warps * t->wave_size : -1;
    auto shared = launch.find("shared");
    auto o = binary::occupancy(*r, *t, threads, shared == launch.end() ? 0 : shared->second);
    if (o) out.occupancy = *o;
  }
  return out;
}

}  // namespace ksnap::build

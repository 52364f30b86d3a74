#include "diff/binary_figures.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include "ksnap/build/resources.h"
#include "ksnap/support/guarded.h"

namespace ksnap::diff {
namespace {

/// The figures taken from a binary (besides the launch's own): what a
/// reviewer weighs (registers, spills, scratch, shared memory / LDS).
constexpr const char* kBinaryFigures[] = {
    "n_regs",      "n_spills",    "sgprs",         "agprs",     "vgpr_spills",
    "sgpr_spills", "lds_bytes",   "scratch_bytes", "local_bytes", "shared_static_bytes",
};

bool binary_changed(const VariantDiff& v) {
  return std::any_of(v.binaries.begin(), v.binaries.end(), [](const StageDiff& b) {
    return (b.stage == "cubin" || b.stage == "hsaco") && b.status == ChangeStatus::kChanged;
  });
}

void merge_side(const build::VariantResources& res, bool head, VariantDiff* v) {
  auto put = [&](const std::string& name, int64_t value, const std::string& source) {
    FigurePair& fp = v->resources.try_emplace(name, FigurePair{-1, -1}).first->second;
    (head ? fp.second : fp.first) = value;
    std::string& s = v->resource_sources[name];
    // "launch" / "binary" when both sides agree, else "BASE's|HEAD's".
    if (!head) {
      s = source;
    } else if (s.empty()) {
      s = "|" + source;
    } else if (s != source) {
      s += "|" + source;
    }
  };
  for (const char* name : kBinaryFigures) {
    auto it = res.figures.find(name);
    if (it != res.figures.end()) put(name, it->second, res.sources.at(name));
  }
  if (res.occupancy) {
    put("occupancy", res.occupancy->value, "binary");
    v->occupancy_unit = res.occupancy->unit;
  }
  if (!res.error.empty()) {
    if (!v->resource_error.empty()) v->resource_error += "; ";
    v->resource_error += (head ? "HEAD " : "BASE ") + res.error;
  }
}

/// A side's launch figures: the build variant's, or, where a consumed
/// build freed them (an empty map), the side's values in v.resources,
/// which were copied from them (diff_builds leaves a map holding a -1).
std::map<std::string, int64_t> launch_figures(const build::Variant& side, const VariantDiff& v,
                                              bool head) {
  if (!side.resources.empty()) return side.resources;
  std::map<std::string, int64_t> out;
  for (const auto& [name, fp] : v.resources)
    if ((head ? fp.second : fp.first) != -1) out.emplace(name, head ? fp.second : fp.first);
  return out;
}

}  // namespace

void add_binary_figures(const build::Build& base, const build::Build& head, unsigned jobs,
                        DiffResult* r) {
  std::vector<size_t> todo;
  for (size_t i = 0; i < r->variants.size(); ++i) {
    const VariantDiff& v = r->variants[i];
    if (v.base_index >= 0 && v.head_index >= 0 && binary_changed(v)) todo.push_back(i);
  }
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t k; (k = next.fetch_add(1)) < todo.size();) {
      VariantDiff& v = r->variants[todo[k]];
      build::VariantResources rb, rh;
      Status s = guarded(
          [&] {
            rb = build::variant_resources(base.variants[v.base_index],
                                          launch_figures(base.variants[v.base_index], v, false));
            rh = build::variant_resources(head.variants[v.head_index],
                                          launch_figures(head.variants[v.head_index], v, true));
            return Status::ok();
          },
          "reading the binaries' resource figures");
      if (!s.is_ok()) {
        v.resource_error = s.to_string();
        continue;
      }
      // Launch figures already in v.resources keep their source.
      for (const auto& [name, fp] : v.resources) v.resource_sources.emplace(name, "launch");
      merge_side(rb, false, &v);
      merge_side(rh, true, &v);
    }
  };
  jobs = std::min<unsigned>(std::max(1u, jobs), std::max<size_t>(1, todo.size()));
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < jobs; ++i) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
}

}  // namespace ksnap::diff

#include "ksnap/binary/occupancy.h"

#include <algorithm>
#include <cstdint>

namespace ksnap::binary {
namespace {

constexpr TargetLimits kTargets[] = {
    // target, vendor, regs, granule, warps, blocks, shared/SM, reserved, unit, wave
    {"sm_75", Vendor::kNvidia, 65536, 256, 32, 16, 65536, 0, 256, 32},
    {"sm_80", Vendor::kNvidia, 65536, 256, 64, 32, 167936, 1024, 128, 32},
    {"sm_86", Vendor::kNvidia, 65536, 256, 48, 16, 102400, 1024, 128, 32},
    {"sm_89", Vendor::kNvidia, 65536, 256, 48, 24, 102400, 1024, 128, 32},
    {"sm_90", Vendor::kNvidia, 65536, 256, 64, 32, 233472, 1024, 128, 32},
    {"gfx90a", Vendor::kAmd, 512, 8, 8, 0, 65536, 0, 1, 64},
    {"gfx942", Vendor::kAmd, 512, 8, 8, 0, 65536, 0, 1, 64},
};

constexpr int64_t kNoLimit = INT64_MAX;  // a resource the kernel does not use

int64_t round_up(int64_t v, int64_t unit) { return (v + unit - 1) / unit * unit; }
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The smallest of the named limits; the first one wins a tie.
struct Limit {
  int64_t value;
  const char* name;
};
Limit smallest(std::initializer_list<Limit> limits) {
  Limit best = *limits.begin();
  for (const Limit& l : limits)
    if (l.value < best.value) best = l;
  return best;
}

int64_t figure(const KernelResources& r, const char* name, int64_t otherwise) {
  auto it = r.figures.find(name);
  return it == r.figures.end() ? otherwise : it->second;
}

}  // namespace

const TargetLimits* target_limits(std::string_view target) {
  for (const TargetLimits& t : kTargets)
    if (t.target == target) return &t;
  return nullptr;
}

Expected<Occupancy> occupancy(const KernelResources& r, const TargetLimits& t, int64_t threads,
                              int64_t dynamic_shared) {
  if (r.vendor != t.vendor)
    return make_error(
        ErrorCode::kInvalidArgument,
        "occupancy: the binary's vendor does not match target " + std::string(t.target));
  if (threads <= 0 || threads > 1 << 20)
    return make_error(ErrorCode::kInvalidArgument,
                      "occupancy: " + std::to_string(threads) + " threads per block");
  if (dynamic_shared < 0 || dynamic_shared > (int64_t{1} << 40))
    return make_error(ErrorCode::kInvalidArgument, "occupancy: dynamic shared memory out of range");
  const int64_t waves = ceil_div(threads, t.wave_size);
  Occupancy o;
  if (t.vendor == Vendor::kNvidia) {
    const int64_t regs = figure(r, "regs", -1);
    if (regs < 0 || regs > 255)
      return make_error(ErrorCode::kInvalidArgument, "occupancy: no usable register count");
    const int64_t per_warp = std::max<int64_t>(round_up(regs * t.wave_size, t.reg_granule), 1);
    const int64_t by_regs = (t.regs_per_unit / 4 / per_warp) * 4 / waves;
    const int64_t smem = round_up(
        figure(r, "shared_static_bytes", 0) + dynamic_shared + t.reserved_shared, t.shared_granule);
    const int64_t by_smem = smem > 0 ? t.shared_per_unit / smem : kNoLimit;
    const Limit l = smallest({{by_regs, "registers"},
                              {by_smem, "shared memory"},
                              {t.max_waves / waves, "warps"},
                              {t.max_blocks, "blocks"}});
    o.value = l.value * waves;
    o.unit = "warps per SM";
    o.limited_by = l.name;
    return o;
  }
  const int64_t vgprs = figure(r, "vgprs", -1);
  if (vgprs < 0 || vgprs > t.regs_per_unit)
    return make_error(ErrorCode::kInvalidArgument, "occupancy: no usable VGPR count");
  const int64_t sgprs = figure(r, "sgprs", 0);
  const int64_t by_sgpr = sgprs <= 80 ? 10 : sgprs <= 88 ? 9 : sgprs <= 100 ? 8 : 7;
  const int64_t lds = figure(r, "lds_bytes", 0) + dynamic_shared;
  const int64_t by_lds = lds > 0 ? (t.shared_per_unit / lds) * waves / 4 : kNoLimit;
  const Limit l = smallest(
      {{t.regs_per_unit / std::max<int64_t>(round_up(vgprs, t.reg_granule), 1), "registers"},
       {by_sgpr, "sgprs"},
       {by_lds, "lds"},
       {t.max_waves, "waves"}});
  o.value = l.value;
  o.unit = "waves per SIMD";
  o.limited_by = l.name;
  return o;
}

}  // namespace ksnap::binary

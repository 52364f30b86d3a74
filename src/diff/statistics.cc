// Stage statistics; the worked example is in include/ksnap/diff/statistics.h.
#include "ksnap/diff/statistics.h"

namespace ksnap::diff {

namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool has(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

/// PTX: the first dotted component is the instruction, the rest its modifiers.
const char* ptx_class(std::string_view op) {
  std::string_view base = op.substr(0, op.find('.'));
  if (base == "mma" || base == "wgmma" || starts_with(base, "tcgen05") || base == "wmma")
    return "tensor";
  if (base == "bra" || base == "call" || base == "ret" || base == "exit" || base == "trap" ||
      starts_with(base, "bar") || base == "membar" || base == "fence" ||
      starts_with(base, "mbarrier") || base == "elect" || base == "brx" || base == "griddepcontrol")
    return "control";
  if (base == "cvt" || base == "cvta" || base == "cvt_pack") return "convert";
  if (base == "ld" || base == "st" || base == "atom" || base == "red" || base == "prefetch" ||
      base == "ldu" || base == "cp" || base == "ldmatrix" || base == "stmatrix" ||
      base == "multimem") {
    if (base == "ldmatrix" || base == "stmatrix" || has(op, ".shared")) {
      // cp.async copies global -> shared: global traffic.
      return base == "cp" ? "global_mem" : "shared_mem";
    }
    if (has(op, ".local")) return "local_mem";
    if (has(op, ".param") || has(op, ".const")) return "alu";
    return "global_mem";
  }
  return "alu";
}

/// SASS (nvdisasm / cuobjdump): upper-case opcodes with dotted modifiers.
const char* sass_class(std::string_view op) {
  std::string_view base = op.substr(0, op.find('.'));
  if (has(base, "MMA")) return "tensor";  // HMMA, HGMMA, IMMA, DMMA, QGMMA, UTCHMMA, ...
  if (base == "LDL" || base == "STL") return "local_mem";
  if (base == "LDS" || base == "STS" || base == "LDSM" || base == "STSM" || base == "ATOMS")
    return "shared_mem";
  if (base == "LDG" || base == "STG" || base == "ATOMG" || base == "RED" || base == "LDGSTS" ||
      base == "LDGDEPBAR" || base == "ATOM" || base == "LD" || base == "ST" ||
      starts_with(base, "UTMA") || starts_with(base, "UBLKCP") || base == "CCTL")
    return "global_mem";
  if (base == "BRA" || base == "BRX" || base == "JMP" || base == "JMX" || base == "CALL" ||
      base == "RET" || base == "EXIT" || base == "BAR" || base == "BSSY" || base == "BSYNC" ||
      base == "WARPSYNC" || base == "SYNCS" || base == "MEMBAR" || base == "DEPBAR" ||
      base == "ERRBAR" || base == "YIELD" || base == "NANOSLEEP" || base == "BPT" ||
      base == "KILL" || base == "WARPGROUP" || base == "ELECT")
    return "control";
  if (base == "F2F" || base == "F2I" || base == "I2F" || base == "I2I" || base == "F2FP" ||
      base == "I2FP" || base == "F2IP")
    return "convert";
  return "alu";
}

/// AMDGCN: s_ scalar, v_ vector, ds_ LDS, global_/buffer_/flat_ memory.
const char* amdgcn_class(std::string_view op) {
  if (starts_with(op, "v_mfma") || starts_with(op, "v_smfmac") || starts_with(op, "v_wmma") ||
      starts_with(op, "v_swmmac"))
    return "tensor";
  if (starts_with(op, "scratch_") || (starts_with(op, "buffer_") && has(op, "scratch")))
    return "local_mem";
  if (starts_with(op, "ds_")) return "shared_mem";
  if (starts_with(op, "global_") || starts_with(op, "buffer_") || starts_with(op, "flat_") ||
      starts_with(op, "s_load") || starts_with(op, "s_buffer_load") || starts_with(op, "s_store"))
    return "global_mem";
  if (starts_with(op, "s_branch") || starts_with(op, "s_cbranch") || starts_with(op, "s_barrier") ||
      starts_with(op, "s_waitcnt") || starts_with(op, "s_wait_") || op == "s_endpgm" ||
      starts_with(op, "s_setpc") || starts_with(op, "s_swappc") || starts_with(op, "s_getpc") ||
      starts_with(op, "s_sleep") || starts_with(op, "s_sethalt") || starts_with(op, "s_trap") ||
      op == "s_nop")
    return "control";
  if (starts_with(op, "v_cvt")) return "convert";
  return "alu";
}

}  // namespace

const char* instruction_class(std::string_view stage, std::string_view op) {
  if (op.empty()) return nullptr;
  if (stage == "ptx") return ptx_class(op);
  if (stage == "sass") return sass_class(op);
  if (stage == "amdgcn") return amdgcn_class(op);
  return nullptr;
}

std::map<std::string, int64_t> stage_statistics(const norm::Module& m, std::string_view stage) {
  std::map<std::string, int64_t> out;
  int64_t lines = 0, instructions = 0;
  for (const norm::Unit& u : m.units)
    for (const norm::Line& l : u.lines) {
      ++lines;
      if (l.op.empty()) continue;
      ++instructions;
      if (const char* c = instruction_class(stage, l.op)) ++out[std::string("class.") + c];
    }
  out["instructions"] = instructions;
  out["lines"] = lines;
  return out;
}

std::map<std::string, int64_t> op_count_deltas(const norm::Module& base, const norm::Module& head) {
  std::map<std::string, int64_t> out;
  auto cb = norm::op_counts(base), ch = norm::op_counts(head);
  for (const auto& [op, n] : cb) {
    auto it = ch.find(op);
    int64_t delta = (it != ch.end() ? it->second : 0) - n;
    if (delta) out[op] = delta;
  }
  for (const auto& [op, n] : ch)
    if (!cb.count(op)) out[op] = n;
  return out;
}

}  // namespace ksnap::diff

#include "ksnap/diff/layers.h"

#include "ksnap/build/build.h"

namespace ksnap::diff {

const char* layer_name(Layer l) {
  switch (l) {
    case Layer::kTriton: return "triton";
    case Layer::kLlvmMiddleEnd: return "llvm-middle-end";
    case Layer::kLlvmBackend: return "llvm-backend";
    case Layer::kAssembler: return "assembler";
    case Layer::kOther: break;
  }
  return "other";
}

const char* layer_prose(Layer l) {
  switch (l) {
    case Layer::kTriton: return "Triton's passes";
    case Layer::kLlvmMiddleEnd: return "LLVM's middle end";
    case Layer::kLlvmBackend: return "LLVM's backend";
    case Layer::kAssembler: return "the assembler";
    case Layer::kOther: break;
  }
  return "an unknown stage";
}

Layer stage_layer(std::string_view stage) {
  struct Entry {
    std::string_view stage;
    Layer layer;
  };
  static constexpr Entry kLayers[] = {
      {"source", Layer::kTriton},       {"ttir", Layer::kTriton},
      {"ttgir", Layer::kTriton},        {"mlir", Layer::kTriton},
      {"llir", Layer::kLlvmMiddleEnd},  {"ll", Layer::kLlvmMiddleEnd},
      {"ptx", Layer::kLlvmBackend},     {"amdgcn", Layer::kLlvmBackend},
      {"spv", Layer::kLlvmBackend},     {"spvdis", Layer::kLlvmBackend},
      {"spirv", Layer::kLlvmBackend},   {"sass", Layer::kAssembler},
      {"cubin", Layer::kAssembler},     {"hsaco", Layer::kAssembler},
      {"zebin", Layer::kAssembler},
  };
  for (const Entry& e : kLayers)
    if (e.stage == stage) return e.layer;
  return Layer::kOther;
}

namespace {

bool real(const StageDiff& s) { return s.status != ChangeStatus::kUnchanged && !s.unstable; }

}  // namespace

const StageDiff* first_changed_stage(const VariantDiff& v) {
  if (v.base_index < 0 || v.head_index < 0) return nullptr;
  const StageDiff* best = nullptr;
  int best_rank = 0;
  for (const StageDiff& s : v.stages) {
    if (!real(s)) continue;
    // Unknown stages rank after the known ones, in the order they came.
    int rank = build::stage_rank(s.stage);
    if (rank < 0) rank = 1000;
    if (!best || rank < best_rank) best = &s, best_rank = rank;
  }
  if (best) return best;
  // A binary alone changes with line info too: it counts only when a figure
  // of the kernel (registers, spills, occupancy, ...) moved with it.
  bool figures_moved = false;
  for (const auto& [name, p] : v.resources)
    figures_moved |= p.first >= 0 && p.second >= 0 && p.first != p.second;
  if (!figures_moved) return nullptr;
  for (const StageDiff& s : v.binaries)
    if (real(s)) return &s;
  return nullptr;
}

}  // namespace ksnap::diff

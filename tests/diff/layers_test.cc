// diff/layers.h: the layer that owns each stage, and the first stage of a
// variant that changed for real (unstable changes and line-info-only binary
// changes do not count).
#include "ksnap/diff/layers.h"

#include <gtest/gtest.h>

namespace ksnap::diff {
namespace {

TEST(Layers, EveryStageBelongsToTheLayerThatWritesIt) {
  const struct {
    const char* stage;
    Layer layer;
  } cases[] = {
      {"source", Layer::kTriton},      {"ttir", Layer::kTriton},
      {"ttgir", Layer::kTriton},       {"llir", Layer::kLlvmMiddleEnd},
      {"ptx", Layer::kLlvmBackend},    {"amdgcn", Layer::kLlvmBackend},
      {"spv", Layer::kLlvmBackend},    {"sass", Layer::kAssembler},
      {"cubin", Layer::kAssembler},    {"hsaco", Layer::kAssembler},
      {"zebin", Layer::kAssembler},    {"tlx", Layer::kOther},
  };
  for (const auto& c : cases) EXPECT_EQ(stage_layer(c.stage), c.layer) << c.stage;
  EXPECT_STREQ(layer_name(Layer::kLlvmBackend), "llvm-backend");
  EXPECT_STREQ(layer_prose(Layer::kAssembler), "the assembler");
}

StageDiff stage(const char* name, ChangeStatus s, bool unstable = false) {
  StageDiff d;
  d.stage = name;
  d.status = s;
  d.unstable = unstable;
  return d;
}

constexpr ChangeStatus U = ChangeStatus::kUnchanged, C = ChangeStatus::kChanged;

TEST(Layers, FirstChangedStageIsTheEarliestRealChange) {
  const struct {
    const char* what;
    std::vector<StageDiff> stages;
    std::vector<StageDiff> binaries;
    std::map<std::string, FigurePair> figures;
    const char* first;  // nullptr: none
  } cases[] = {
      {"nothing changed", {stage("ttir", U), stage("ptx", U)}, {}, {}, nullptr},
      {"ptx only", {stage("ttir", U), stage("llir", U), stage("ptx", C)}, {}, {}, "ptx"},
      {"llir and ptx", {stage("ttgir", U), stage("llir", C), stage("ptx", C)}, {}, {}, "llir"},
      {"an unstable ttgir change is skipped",
       {stage("ttgir", C, true), stage("llir", U), stage("ptx", C)}, {}, {}, "ptx"},
      {"order of the list does not matter", {stage("ptx", C), stage("ttir", C)}, {}, {}, "ttir"},
      {"a cubin alone, figures unchanged (line info)",
       {stage("ptx", U)}, {stage("cubin", C)}, {{"n_regs", {40, 40}}}, nullptr},
      {"a cubin alone, registers moved",
       {stage("ptx", U)}, {stage("cubin", C)}, {{"n_regs", {40, 48}}}, "cubin"},
      {"a text stage wins over the binary",
       {stage("sass", C)}, {stage("cubin", C)}, {{"n_regs", {40, 48}}}, "sass"},
  };
  for (const auto& c : cases) {
    VariantDiff v;
    v.base_index = v.head_index = 0;
    v.stages = c.stages;
    v.binaries = c.binaries;
    v.resources = c.figures;
    const StageDiff* f = first_changed_stage(v);
    if (!c.first) {
      EXPECT_EQ(f, nullptr) << c.what;
    } else {
      ASSERT_NE(f, nullptr) << c.what;
      EXPECT_EQ(f->stage, c.first) << c.what;
    }
  }
}

TEST(Layers, AVariantOnOneSideHasNoFirstChangedStage) {
  VariantDiff v;
  v.base_index = 0;  // removed
  v.stages = {stage("ttir", ChangeStatus::kRemoved)};
  EXPECT_EQ(first_changed_stage(v), nullptr);
}

}  // namespace
}  // namespace ksnap::diff

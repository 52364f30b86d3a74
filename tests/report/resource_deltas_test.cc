// Resource deltas and the first changed layer, at model level: the counts,
// the sentences every format prints, the order of figures and rows, and
// where a figure that could not be read is stated.
#include <gtest/gtest.h>

#include "ksnap/report/report.h"
#include "report/result_fixture.h"

namespace ksnap::report {
namespace {

using diff::ChangeStatus;
using testing::finish;
using testing::variant;

/// A paired variant of `kernel` whose ptx changed (or not) with `figures`.
diff::VariantDiff with_figures(const std::string& kernel, const std::string& block, bool ptx_changed,
                               std::map<std::string, diff::FigurePair> figures) {
  std::vector<diff::StageDiff> stages{testing::unchanged_stage("ttgir")};
  stages.push_back(ptx_changed ? testing::changed_stage("ptx", {"ret;"}, {"mov.b32 %r1, 1;"},
                                                        {"mov.b32 %r1, 2;"})
                               : testing::unchanged_stage("ptx"));
  diff::VariantDiff v = variant(kernel, block, std::move(stages));
  v.base_index = v.head_index = 0;
  v.resources = std::move(figures);
  return v;
}

TEST(ResourceDeltas, SpillsLeadThenOccupancyThenRegisters) {
  diff::DiffResult r;
  r.variants.push_back(with_figures("matmul", "64", true,
                                    {{"n_spills", {0, 22}}, {"n_regs", {168, 255}}, {"occupancy", {12, 8}}}));
  r.variants.push_back(with_figures("matmul", "128", true,
                                    {{"n_spills", {0, 4}}, {"n_regs", {200, 255}}, {"occupancy", {8, 8}}}));
  r.variants.push_back(with_figures("matmul", "256", true, {{"n_spills", {10, 30}}, {"n_regs", {255, 255}}}));
  r.variants.push_back(with_figures("softmax", "1024", false, {{"n_spills", {6, 0}}, {"n_regs", {40, 32}}}));
  r.variants.push_back(with_figures("softmax", "2048", false, {{"n_spills", {0, 0}}, {"n_regs", {40, 40}}}));
  for (auto& v : r.variants) v.occupancy_unit = v.resources.count("occupancy") ? "warps per SM" : "";
  finish(&r);
  Report rep = build_report(r, nullptr);
  ASSERT_EQ(rep.resource_deltas.size(), 3u);
  const ResourceDelta& spills = rep.resource_deltas[0];
  EXPECT_EQ(spills.figure, "n_spills");
  EXPECT_EQ(spills.total, 5u);
  EXPECT_EQ(spills.hurt, 3u);
  EXPECT_EQ(spills.started, 2u);
  EXPECT_EQ(spills.helped, 1u);
  EXPECT_EQ(spills.stopped, 1u);
  EXPECT_EQ(spills.base, 0 + 0 + 10 + 6);
  EXPECT_EQ(spills.head, 22 + 4 + 30 + 0);
  EXPECT_EQ(spills.text,
            "2 variants now spill, 1 variant spills more, 1 variant no longer spills "
            "(4 of 5 variants; spills 16 → 56 in total, +250.00%)");
  // Hurt rows first, largest relative change first (0 -> 22 and 0 -> 4 are
  // both +inf relative to max(0,1): 22 first), then the helped one.
  ASSERT_EQ(spills.rows.size(), 4u);
  EXPECT_EQ(spills.rows[0].head, 22);
  EXPECT_EQ(spills.rows[1].head, 4);
  EXPECT_EQ(spills.rows[2].head, 30);
  EXPECT_EQ(spills.rows[3].variant, 3u);

  const ResourceDelta& occ = rep.resource_deltas[1];
  EXPECT_EQ(occ.figure, "occupancy");
  EXPECT_TRUE(occ.higher_is_better);
  EXPECT_EQ(occ.hurt, 1u);
  EXPECT_EQ(occ.total, 2u);
  EXPECT_EQ(occ.unit, "warps per SM");
  EXPECT_EQ(occ.text, "1 variant loses occupancy (1 of 2 variants; occupancy in warps per SM 12 → 8 in total, -33.33%)");

  const ResourceDelta& regs = rep.resource_deltas[2];
  EXPECT_EQ(regs.figure, "n_regs");
  EXPECT_EQ(regs.hurt, 2u);
  EXPECT_EQ(regs.helped, 1u);
  EXPECT_EQ(rep.resource_headline,
            "2 variants now spill, 1 variant spills more; 1 variant loses occupancy; "
            "2 variants use more registers");
}

TEST(ResourceDeltas, OnlyHelpedFiguresAreNamedWhenNothingGotWorse) {
  diff::DiffResult r;
  r.variants.push_back(with_figures("k", "1", true, {{"n_regs", {64, 48}}}));
  finish(&r);
  Report rep = build_report(r, nullptr);
  EXPECT_EQ(rep.resource_headline, "1 variant uses fewer registers");
}

TEST(ResourceDeltas, NoFigureMovedMeansNoDeltas) {
  diff::DiffResult r;
  r.variants.push_back(with_figures("k", "1", true, {{"n_regs", {64, 64}}, {"n_spills", {-1, 3}}}));
  finish(&r);
  Report rep = build_report(r, nullptr);
  EXPECT_TRUE(rep.resource_deltas.empty());
  EXPECT_EQ(rep.resource_headline, "");
}

TEST(ResourceDeltas, AnUnreadableBinaryIsStatedInANote) {
  diff::DiffResult r;
  r.variants.push_back(with_figures("k", "1", true, {}));
  r.variants[0].resource_error = "HEAD k.cubin: invalid argument: kernel 'k' not found";
  finish(&r);
  Report rep = build_report(r, nullptr);
  bool found = false;
  for (const Note& n : rep.notes)
    found |= n.kind == NoteKind::kFallback &&
             n.text == "resource figures of k {BLOCK=1} not read from its binary: HEAD k.cubin: "
                       "invalid argument: kernel 'k' not found";
  EXPECT_TRUE(found);
}

TEST(FirstChanged, CountedPerLayerInPipelineOrder) {
  diff::DiffResult r;
  auto v = [](const char* block, std::vector<std::pair<const char*, ChangeStatus>> st) {
    std::vector<diff::StageDiff> stages;
    for (auto [name, s] : st) {
      diff::StageDiff d = s == ChangeStatus::kChanged
                              ? testing::changed_stage(name, {}, {"a"}, {"b"})
                              : testing::unchanged_stage(name);
      stages.push_back(d);
    }
    diff::VariantDiff out = variant("k", block, std::move(stages));
    out.base_index = out.head_index = 0;
    return out;
  };
  const ChangeStatus U = ChangeStatus::kUnchanged, C = ChangeStatus::kChanged;
  r.variants.push_back(v("1", {{"ttgir", U}, {"llir", U}, {"ptx", C}}));
  r.variants.push_back(v("2", {{"ttgir", U}, {"llir", U}, {"ptx", C}}));
  r.variants.push_back(v("3", {{"ttgir", C}, {"llir", C}, {"ptx", C}}));
  r.variants.push_back(v("4", {{"ttgir", U}, {"llir", U}, {"ptx", U}}));
  finish(&r);
  Report rep = build_report(r, nullptr);
  ASSERT_EQ(rep.first_changed_layers.size(), 2u);
  EXPECT_EQ(rep.first_changed_layers[0].layer, diff::Layer::kTriton);
  EXPECT_EQ(rep.first_changed_layers[0].variants, 1u);
  EXPECT_EQ(rep.first_changed_layers[1].layer, diff::Layer::kLlvmBackend);
  EXPECT_EQ(rep.first_changed_layers[1].variants, 2u);
  EXPECT_EQ(rep.layers_text,
            "changed first in Triton's passes: 1 variant (ttgir 1); in LLVM's backend: 2 (ptx 2)");
  ASSERT_EQ(rep.first_changed.size(), 4u);
  EXPECT_EQ(rep.first_changed[0]->stage, "ptx");
  EXPECT_EQ(rep.first_changed[2]->stage, "ttgir");
  EXPECT_EQ(rep.first_changed[3], nullptr);
}

}  // namespace
}  // namespace ksnap::report

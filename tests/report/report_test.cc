// The report model: what every format shows, asserted once at model level
// (the formats are thin writers; a few format goldens live in tests/cli).
#include "ksnap/report/report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "ksnap/diff/engine.h"
#include "report/result_fixture.h"

namespace fs = std::filesystem;

namespace ksnap::report {
namespace {

using diff::ChangeStatus;
using diff::LineKind;

using testing::finish;
using testing::variant;

diff::StageDiff stage(const std::string& name, ChangeStatus st = ChangeStatus::kUnchanged) {
  diff::StageDiff s = testing::unchanged_stage(name);
  s.status = st;
  return s;
}

/// A changed stage with one hunk: `n` removed then `n` added lines.
diff::StageDiff changed(const std::string& name, uint64_t signature, int n = 1) {
  std::vector<std::string> olds, news;
  for (int i = 0; i < n; ++i) {
    olds.push_back("old " + std::to_string(i));
    news.push_back("new " + std::to_string(i));
  }
  diff::StageDiff s = testing::changed_stage(name, {}, olds, news);
  s.change_signature = signature;
  return s;
}

const Statistic* row(const Report& r, const std::string& stage, const std::string& name) {
  for (const auto& s : r.statistics)
    if (s.stage == stage)
      for (const auto& x : s.rows)
        if (x.name == name) return &x;
  return nullptr;
}

const StageStatistics* stats_of(const Report& r, const std::string& stage) {
  for (const auto& s : r.statistics)
    if (s.stage == stage) return &s;
  return nullptr;
}

// Hand counts on two changed variants (plus one unchanged, which counts in the
// total only):
//   A: n_regs 96 -> 90,  ptx instructions 1000 -> 980, class.alu 700 -> 690,
//      class.global_mem 50 -> 50, ptx.reg.b32 200 -> 210, lines 1100 -> 1080
//   B: n_regs 128 -> 130, ptx instructions 2000 -> 2030, class.alu 1500 -> 1530,
//      class.global_mem 80 -> 80, ptx.reg.b32 300 -> 300, lines 2200 -> 2230
// binary: affected 2 of 3; n_regs helped 1 hurt 1, 224 -> 220 (-1.79%)
// ptx:    affected 2 of 3; instructions helped 1 hurt 1, 3000 -> 3010 (+0.33%)
//         class.alu helped 1 hurt 1, 2200 -> 2220 (+0.91%); class.global_mem not listed
//         ptx.reg.b32 helped 0 hurt 1, 500 -> 510 (+2.00%); lines 3300 -> 3310 (+0.30%)
TEST(Statistics, HandCountsOnTwoVariants) {
  diff::DiffResult r;
  auto ptx = [](int64_t ib, int64_t ih, int64_t ab, int64_t ah, int64_t gb, int64_t rb, int64_t rh,
                int64_t lb, int64_t lh) {
    diff::StageDiff s = changed("ptx", 7);
    s.stats = {{"instructions", {ib, ih}}, {"class.alu", {ab, ah}}, {"class.global_mem", {gb, gb}},
               {"lines", {lb, lh}}};
    s.resources = {{"ptx.reg.b32", {rb, rh}}};
    return s;
  };
  r.variants.push_back(variant("k", "64", {stage("ttgir"), ptx(1000, 980, 700, 690, 50, 200, 210, 1100, 1080)}));
  r.variants.push_back(variant("k", "128", {stage("ttgir"), ptx(2000, 2030, 1500, 1530, 80, 300, 300, 2200, 2230)}));
  r.variants.push_back(variant("k", "256", {stage("ttgir"), stage("ptx")}));
  r.variants[0].resources["n_regs"] = {96, 90};
  r.variants[1].resources["n_regs"] = {128, 130};
  r.variants[2].resources["n_regs"] = {40, 40};
  finish(&r);
  Report rep = build_report(r, nullptr);

  ASSERT_EQ(rep.statistics.size(), 2u);
  EXPECT_EQ(rep.statistics[0].stage, "binary");  // figures of the loaded kernel first
  EXPECT_EQ(rep.statistics[1].stage, "ptx");
  EXPECT_EQ(stats_of(rep, "binary")->affected, 2u);
  EXPECT_EQ(stats_of(rep, "binary")->total, 3u);
  EXPECT_EQ(stats_of(rep, "ptx")->affected, 2u);
  EXPECT_EQ(stats_of(rep, "ptx")->total, 3u);
  EXPECT_EQ(stats_of(rep, "ttgir"), nullptr);  // not affected: no table

  struct Want {
    const char* stage;
    const char* name;
    size_t helped, hurt;
    int64_t base, head;
    const char* percent;
  } wants[] = {
      {"binary", "n_regs", 1, 1, 224, 220, "-1.79%"},
      {"ptx", "instructions", 1, 1, 3000, 3010, "+0.33%"},
      {"ptx", "class.alu", 1, 1, 2200, 2220, "+0.91%"},
      {"ptx", "ptx.reg.b32", 0, 1, 500, 510, "+2.00%"},
      {"ptx", "lines", 1, 1, 3300, 3310, "+0.30%"},
  };
  for (const auto& w : wants) {
    const Statistic* s = row(rep, w.stage, w.name);
    ASSERT_NE(s, nullptr) << w.stage << " " << w.name;
    EXPECT_EQ(s->helped, w.helped) << w.name;
    EXPECT_EQ(s->hurt, w.hurt) << w.name;
    EXPECT_EQ(s->base, w.base) << w.name;
    EXPECT_EQ(s->head, w.head) << w.name;
    EXPECT_EQ(percent_text(*s), w.percent) << w.name;
  }
  EXPECT_EQ(row(rep, "ptx", "class.global_mem"), nullptr);  // equal everywhere: not listed
  // Order of the ptx table: instructions, classes, registers, code size.
  std::vector<std::string> names;
  for (const auto& x : stats_of(rep, "ptx")->rows) names.push_back(x.name);
  EXPECT_EQ(names, (std::vector<std::string>{"instructions", "class.alu", "ptx.reg.b32", "lines"}));
}

TEST(OptionChanges, IdenticalChangesCollapseIntoOneLine) {
  diff::DiffResult r;
  const char* kernels[] = {"add_kernel", "softmax", "matmul", "attn"};
  for (int i = 0; i < 19; ++i) {
    diff::VariantDiff v = variant(kernels[i % 4], std::to_string(i), {stage("ptx")});
    v.pairing = diff::Pairing::kOptionsDiffer;
    v.option_changes.push_back({"enable_fp_fusion", "true", "false"});
    if (i == 3) v.option_changes.push_back({"num_stages", "3", "4"});
    r.variants.push_back(v);
  }
  finish(&r);
  Report rep = build_report(r, nullptr);
  ASSERT_EQ(rep.option_changes.size(), 2u);
  const OptionChangeLine& l = rep.option_changes[0];
  EXPECT_EQ(l.name, "enable_fp_fusion");
  EXPECT_EQ(l.base, "true");
  EXPECT_EQ(l.head, "false");
  EXPECT_EQ(l.variants.size(), 19u);
  EXPECT_EQ(l.kernels, (std::vector<std::string>{"add_kernel", "attn", "matmul", "softmax"}));
  EXPECT_EQ(rep.option_changes[1].name, "num_stages");
  EXPECT_EQ(rep.option_changes[1].variants, (std::vector<size_t>{3}));
}

/// Kernel `a`: ttgir (small) and llir (large) changes; kernel `b`: one huge
/// ptx change in 1 variant; kernel `c`: ttgir in 3 variants.
diff::DiffResult order_fixture() {
  diff::DiffResult r;
  r.variants.push_back(variant("a", "1", {changed("ttgir", 1, 1), changed("llir", 2, 40)}));
  r.variants.push_back(variant("a", "2", {changed("ttgir", 1, 1), changed("llir", 2, 40)}));
  r.variants.push_back(variant("b", "1", {stage("ttgir"), changed("ptx", 3, 500)}));
  for (int i = 0; i < 3; ++i) r.variants.push_back(variant("c", std::to_string(i), {changed("ttgir", 4, 2)}));
  finish(&r);
  return r;
}

std::vector<std::string> group_keys(const Report& rep) {
  std::vector<std::string> out;
  for (const auto& g : rep.groups) out.push_back(g.kernel + ":" + g.stage);
  return out;
}

TEST(Order, PipelineOrderPerKernelThenKernelsByImpact) {
  diff::DiffResult r = order_fixture();
  // The engine ranks by size: b's ptx first, a's llir before a's ttgir.
  EXPECT_EQ(r.groups[0].kernel, "b");
  Report rep = build_report(r, nullptr);
  // a: 4 changed kernel-stages; c: 3; b: 1.
  EXPECT_EQ(group_keys(rep), (std::vector<std::string>{"a:ttgir", "a:llir", "c:ttgir", "b:ptx"}));
  ASSERT_EQ(rep.kernels.size(), 3u);
  EXPECT_EQ(rep.kernels[0].kernel, "a");
  EXPECT_EQ(rep.kernels[0].groups, (std::vector<size_t>{0, 1}));
  EXPECT_TRUE(rep.groups[0].root_cause);
  EXPECT_FALSE(rep.groups[1].root_cause);
  EXPECT_TRUE(rep.groups[3].root_cause);
  // Variants point at the report's group indices.
  EXPECT_EQ(rep.stage_groups[0], (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(rep.stage_groups[2], (std::vector<int32_t>{-1, 3}));

  ReportOptions by_size;
  by_size.order = Order::kSize;
  EXPECT_EQ(group_keys(build_report(r, nullptr, by_size)),
            (std::vector<std::string>{"b:ptx", "a:llir", "c:ttgir", "a:ttgir"}));
  ReportOptions by_name;
  by_name.order = Order::kKernel;
  EXPECT_EQ(group_keys(build_report(r, nullptr, by_name)),
            (std::vector<std::string>{"a:ttgir", "a:llir", "b:ptx", "c:ttgir"}));
  Order o;
  EXPECT_TRUE(parse_order("size", &o));
  EXPECT_EQ(o, Order::kSize);
  EXPECT_FALSE(parse_order("Size", &o));
}

TEST(Caps, GroupsLinesVariantsAndContext) {
  diff::DiffResult r = order_fixture();
  ReportOptions o;
  o.max_groups = 2;
  o.max_lines_per_group = 30;
  o.max_variants_listed = 2;
  Report rep = build_report(r, nullptr, o);
  EXPECT_EQ(rep.groups_shown, 2u);
  EXPECT_TRUE(rep.groups[1].shown);
  EXPECT_FALSE(rep.groups[2].shown);
  EXPECT_TRUE(rep.groups[2].hunks.empty());
  const GroupView& llir = rep.groups[1];  // 80 lines
  EXPECT_EQ(llir.lines_total, 80u);
  EXPECT_EQ(llir.lines_cut, 50u);
  ASSERT_EQ(llir.hunks.size(), 1u);
  EXPECT_EQ(llir.hunks[0].lines, 30u);
  EXPECT_EQ(rep.groups[0].variants_listed, 2u);
  EXPECT_EQ(rep.groups[0].variants.size(), 2u);

  ReportOptions none;
  none.show_diffs = false;
  Report headers = build_report(r, nullptr, none);
  EXPECT_EQ(headers.groups_shown, headers.groups.size());
  for (const auto& g : headers.groups) EXPECT_TRUE(g.hunks.empty());

  // Less context: the hunk of "- x, 6 context, + y" splits in two.
  diff::DiffResult c;
  diff::StageDiff s = changed("ttgir", 9, 1);
  diff::Hunk& h = s.hunks[0];
  diff::DiffLine add = h.lines[1];
  h.lines.pop_back();
  for (int i = 0; i < 6; ++i) {
    diff::DiffLine ctx;
    ctx.text = "same";
    ctx.base_line = 11 + i;
    ctx.head_line = 10 + i;
    h.lines.push_back(ctx);
  }
  add.head_line = 16;
  h.lines.push_back(add);
  c.variants.push_back(variant("k", "1", {s}));
  finish(&c);
  ReportOptions ctx;
  ctx.context = 1;
  Report cut = build_report(c, nullptr, ctx);
  ASSERT_EQ(cut.groups[0].hunks.size(), 2u);
  EXPECT_EQ(cut.groups[0].hunks[0].lines, 2u);
  EXPECT_EQ(cut.groups[0].hunks[1].hunk->head_start, 15u);
  EXPECT_EQ(build_report(c, nullptr).groups[0].hunks.size(), 1u);
}

TEST(Notes, UnstableApartFallbackShownSharedNamesTold) {
  diff::DiffResult r;
  diff::StageDiff unstable = changed("llir", 5);
  unstable.unstable = true;
  diff::StageDiff fell = changed("ptx", 6);
  fell.hunks.clear();
  fell.fallback = "BASE k.ptx:12:3: unterminated string; compared by hash only";
  r.variants.push_back(variant("k", "1", {changed("ttgir", 4), unstable}));
  r.variants.push_back(variant("k", "2", {stage("ttgir"), unstable, fell}));
  diff::VariantDiff m1 = variant("matmul", "1", {changed("ttgir", 8)});
  m1.source = "suite_a.matmul";
  m1.label = "matmul (suite_a)";  // the identity layer names kernels that share a name
  diff::VariantDiff m2 = variant("matmul", "1", {changed("ttgir", 8)});
  m2.source = "suite_b.matmul";
  m2.label = "matmul (suite_b)";
  r.variants.push_back(m1);
  r.variants.push_back(m2);
  finish(&r);
  Report rep = build_report(r, nullptr);

  // Unstable: counted apart, last in the reading order, not a change.
  EXPECT_EQ(rep.totals.unstable_stages, 2u);
  EXPECT_EQ(rep.totals.changed_stages, 4u);
  EXPECT_TRUE(rep.groups.back().unstable);
  EXPECT_EQ(rep.groups.back().variants.size(), 2u);
  EXPECT_NE(rep.headline.find("2 kernel-stages are known unstable (compiler nondeterminism)"),
            std::string::npos);
  // Two kernels named matmul: two labels, two groups, one note.
  std::set<std::string> labels;
  for (const auto& g : rep.groups) labels.insert(g.kernel);
  EXPECT_TRUE(labels.count("matmul (suite_a)"));
  EXPECT_TRUE(labels.count("matmul (suite_b)"));
  EXPECT_TRUE(labels.count("k"));
  // Fallback: on its group and in the notes.
  bool group_reason = false;
  for (const auto& g : rep.groups) group_reason |= g.stage == "ptx" && g.fallback == fell.fallback;
  EXPECT_TRUE(group_reason);
  std::map<NoteKind, std::string> notes;
  for (const auto& n : rep.notes) notes[n.kind] += n.text;
  EXPECT_NE(notes[NoteKind::kFallback].find("k {BLOCK=2} ptx: BASE k.ptx:12:3"), std::string::npos);
  EXPECT_FALSE(notes[NoteKind::kUnstable].empty());
  EXPECT_NE(notes[NoteKind::kSource].find("2 kernels are named matmul"), std::string::npos);
  EXPECT_TRUE(rep.any_change());

  // Only unstable stages: nothing changed for --exit-code.
  diff::DiffResult only;
  only.variants.push_back(variant("k", "1", {unstable}));
  finish(&only);
  Report quiet = build_report(only, nullptr);
  EXPECT_FALSE(quiet.any_change());
  EXPECT_NE(quiet.headline.find("No IR changed"), std::string::npos);
}

TEST(Names, NoteAndHeadNamesSwitch) {
  diff::DiffResult r;
  diff::StageDiff s = changed("llir", 3);
  s.hunks[0].lines[1].text = "br label %4";
  s.hunks[0].lines[1].head_text = "br label %5";
  s.hunks[0].lines[1].highlights = {{3, 8}};
  s.hunks[0].lines[1].head_highlights = {{3, 8}};
  r.variants.push_back(variant("k", "1", {s}));
  finish(&r);
  Report base = build_report(r, nullptr);
  const diff::DiffLine& l = base.groups[0].hunks[0].hunk->lines[1];
  EXPECT_EQ(shown_text(l, base.options.head_names), "br label %4");
  auto names_note = [](const Report& rep) {
    for (const auto& n : rep.notes)
      if (n.kind == NoteKind::kNames) return n.text;
    return std::string();
  };
  // Renaming alone is the default, explained in --help: no note on it.
  EXPECT_EQ(names_note(base), "");
  ReportOptions o;
  o.head_names = true;
  Report head = build_report(r, nullptr, o);
  EXPECT_EQ(shown_text(l, head.options.head_names), "br label %5");
  EXPECT_NE(names_note(head).find("--head-names"), std::string::npos);
  // An h_ mark on a shown line is what a reader could misread: noted.
  r.variants[0].stages[0].hunks[0].lines[1].text = "br label %h_5";
  Report marked = build_report(r, nullptr);
  EXPECT_NE(names_note(marked).find("an h_ prefix marks a HEAD-only name"), std::string::npos);
  EXPECT_EQ(shown_text(base.groups[0].hunks[0].hunk->lines[0], true), "old 0");  // removed: BASE's
}

// ---- the shared corpus -------------------------------------------------------

std::string corpus() {
  std::string c = KSNAP_CORPUS_DIR;
  return fs::exists(c + "/no_licm/manifest.json") ? c : std::string(KSNAP_EXAMPLE_DIR);
}

TEST(Corpus, NoLicmEachKernelStartsWithItsTtgirChange) {
  auto r = diff::diff_paths(corpus() + "/base", corpus() + "/no_licm");
  ASSERT_TRUE(r) << r.status().to_string();
  Report rep = build_report(*r, nullptr);
  ASSERT_FALSE(rep.kernels.empty());
  for (const auto& k : rep.kernels) {
    ASSERT_FALSE(k.groups.empty()) << k.kernel;
    EXPECT_EQ(rep.groups[k.groups.front()].stage, "ttgir") << k.kernel;
    EXPECT_TRUE(rep.groups[k.groups.front()].root_cause) << k.kernel;
    // Stages of one kernel in pipeline order, and its groups contiguous.
    for (size_t i = 1; i < k.groups.size(); ++i) {
      EXPECT_EQ(k.groups[i], k.groups[i - 1] + 1) << k.kernel;
      auto rank = [&](size_t gi) {
        return std::find(rep.stages.begin(), rep.stages.end(), rep.groups[gi].stage) - rep.stages.begin();
      };
      EXPECT_LE(rank(k.groups[i - 1]), rank(k.groups[i])) << k.kernel;
    }
  }
}

TEST(Corpus, FusionOffStatisticsAndOneOptionLine) {
  auto r = diff::diff_paths(corpus() + "/base", corpus() + "/fusion_off");
  ASSERT_TRUE(r) << r.status().to_string();
  Report rep = build_report(*r, nullptr);
  ASSERT_EQ(rep.option_changes.size(), 1u);
  EXPECT_EQ(rep.option_changes[0].name, "enable_fp_fusion");
  EXPECT_EQ(rep.option_changes[0].variants.size(), r->variants.size());
  ASSERT_FALSE(rep.statistics.empty());
  EXPECT_EQ(rep.statistics[0].stage, "binary");
  const Statistic* regs = row(rep, "binary", "n_regs");
  ASSERT_NE(regs, nullptr);
  EXPECT_GT(regs->helped, 0u);  // fusion off: fewer registers in attention kernels
  EXPECT_LT(regs->head, regs->base);
  // Only PTX changed (and with it the cubin, a binary artifact).
  for (const auto& s : rep.statistics)
    EXPECT_TRUE(s.stage == "binary" || s.stage == "ptx" || s.stage == "cubin") << s.stage;
}

}  // namespace
}  // namespace ksnap::report

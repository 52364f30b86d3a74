// How HEAD lines are spelled in a diff: with BASE's names where symbols
// correspond (sigils, quotes and label syntax kept), with a marked name where
// HEAD's own name would denote another BASE symbol, and with HEAD's own text
// and highlights kept beside for --head-names. Real corpus IR, then small
// LLVM IR cases written out in full.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include "ksnap/diff/engine.h"
#include "ksnap/diff/structural.h"
#include "ksnap/support/file.h"

namespace fs = std::filesystem;

namespace ksnap::diff {
namespace {

StageDiff diff_texts(const std::string& a, const std::string& b, ir::Dialect d) {
  auto ma = norm::normalize(TextBuffer("base", a), d);
  auto mb = norm::normalize(TextBuffer("head", b), d);
  EXPECT_TRUE(ma && mb);
  StageDiff sd;
  if (ma && mb) structural_diff(*ma, *mb, StructuralOptions{3}, &sd);
  return sd;
}

const DiffLine* find_line(const StageDiff& sd, LineKind kind, const std::string& needle) {
  for (const auto& h : sd.hunks)
    for (const auto& l : h.lines)
      if (l.kind == kind && l.text.find(needle) != std::string::npos) return &l;
  return nullptr;
}

std::string spans_text(const std::string& text, const std::vector<Span>& spans) {
  std::string out;
  for (const Span& s : spans) out.append("[").append(text, s.begin, s.end - s.begin).append("]");
  return out;
}

// BASE: blocks %4 and %5. HEAD: one op inserted first, so every value and
// block number moves by one, and one op edited (mul -> shl).
constexpr char kBase[] = R"(define void @k(i32 %0) {
  %2 = icmp eq i32 %0, 0
  br i1 %2, label %4, label %5
4:
  %3 = mul i32 %0, %0
  br label %5
5:
  %6 = phi i32 [ 0, %1 ], [ %3, %4 ]
  ret void
}
)";
constexpr char kHead[] = R"(define void @k(i32 %0) {
  %2 = add i32 %0, 7
  %3 = icmp eq i32 %0, 0
  br i1 %3, label %5, label %6
5:
  %4 = shl i32 %0, %0
  br label %6
6:
  %7 = phi i32 [ 0, %1 ], [ %4, %5 ]
  ret void
}
)";

TEST(DisplayNames, HeadLinesKeepLlvmSyntaxWithBaseNames) {
  StageDiff sd = diff_texts(kBase, kHead, ir::Dialect::kLlvm);
  // The renumbered branch is unchanged: a context line in BASE's spelling,
  // with HEAD's own spelling kept beside it.
  const DiffLine* br = find_line(sd, LineKind::kContext, "br i1");
  ASSERT_NE(br, nullptr);
  EXPECT_EQ(br->text, "br i1 %2, label %4, label %5");
  EXPECT_EQ(br->head_text, "br i1 %3, label %5, label %6");
  // The edited op: its block and value keep their sigils; only the op is
  // highlighted, in both spellings.
  const DiffLine* shl = find_line(sd, LineKind::kAdded, "shl");
  ASSERT_NE(shl, nullptr);
  EXPECT_EQ(shl->text, "%3 = shl i32 %0, %0");
  EXPECT_EQ(spans_text(shl->text, shl->highlights), "[shl]");
  // The new op's value is HEAD-only, and BASE's %2 is shown for HEAD's %3:
  // HEAD's own "%2" would name that other value, so it is marked.
  const DiffLine* add = find_line(sd, LineKind::kAdded, "add i32");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->text, "%h_2 = add i32 %0, 7");
  EXPECT_EQ(add->head_text, "%2 = add i32 %0, 7");
}

// LLVM values and blocks share one numbering: a HEAD-only block whose number
// is the name BASE's value shows by must be marked too, label and uses alike
// (issue 19: the bundled example's layer_norm_fwd read `+ %21 = shl`,
// `+ br label %21`, `+ 21:`).
TEST(DisplayNames, AHeadOnlyBlockNeverTakesABaseValuesNumber) {
  constexpr char base[] = R"(define void @k(i32 %0) {
  %2 = shl i32 %0, 3
  %3 = and i32 %2, 1016
  ret void
}
)";
  constexpr char head[] = R"(define void @k(i32 %0) {
  br label %2
2:
  %3 = shl i32 %0, 3
  %4 = and i32 %3, 1016
  ret void
}
)";
  StageDiff sd = diff_texts(base, head, ir::Dialect::kLlvm);
  const DiffLine* br = find_line(sd, LineKind::kAdded, "br label");
  ASSERT_NE(br, nullptr);
  EXPECT_EQ(br->text, "br label %h_2");
  EXPECT_EQ(br->head_text, "br label %2");
  const DiffLine* label = find_line(sd, LineKind::kAdded, "2:");
  ASSERT_NE(label, nullptr);
  EXPECT_EQ(label->text, "h_2:");
  // HEAD's %3 is BASE's %2: shown as %2, an unchanged line.
  EXPECT_NE(find_line(sd, LineKind::kContext, "%2 = shl i32 %0, 3"), nullptr);
}

TEST(DisplayNames, HeadHighlightsSkipTheRenaming) {
  // One line whose value and block are renamed and whose op changed: the
  // highlight is on the op in the shown text and in HEAD's own text.
  std::string base = kBase, head = kHead;
  StageDiff sd = diff_texts(base, head, ir::Dialect::kLlvm);
  const DiffLine* shl = find_line(sd, LineKind::kAdded, "shl");
  ASSERT_NE(shl, nullptr);
  ASSERT_FALSE(shl->head_text.empty());
  EXPECT_EQ(shl->head_text, "%4 = shl i32 %0, %0");
  EXPECT_EQ(spans_text(shl->head_text, shl->head_highlights), "[shl]");
  const DiffLine* phi = find_line(sd, LineKind::kContext, "phi");
  if (phi) {
    EXPECT_EQ(phi->text, "%6 = phi i32 [ 0, %1 ], [ %3, %4 ]");
  }
}

/// Every HEAD line of every changed LLVM IR and PTX stage of the corpus pairs
/// keeps the syntax of its labels and the sigils of its operands, and its
/// head_text (when set) is HEAD's own line.
TEST(DisplayNames, CorpusLinesKeepLabelSyntax) {
  std::string corpus = KSNAP_CORPUS_DIR;
  if (!fs::exists(corpus + "/no_licm/manifest.json")) corpus = KSNAP_EXAMPLE_DIR;
  std::regex bad_label(R"(label [^%\s])");          // `br label 168`
  std::regex bad_phi(R"(\[ [^,\]]+, [^%\s\]])");   // `[ 0, .lr.ph ]`
  std::regex bad_bra(R"(\bbra(\.uni)?\s+[^$\s])");  // PTX branch targets are $L labels
  size_t checked = 0;
  for (const char* head : {"no_licm", "fusion_off"}) {
    DiffOptions o;
    o.stages = {"llir", "ptx"};
    auto r = diff_paths(corpus + "/base", corpus + "/" + head, o);
    ASSERT_TRUE(r) << r.status().to_string();
    for (const auto& v : r->variants)
      for (const auto& s : v.stages) {
        if (s.status != ChangeStatus::kChanged) continue;
        ir::Dialect d;
        ASSERT_TRUE(ir::dialect_for_stage(s.stage, &d));
        auto hb = read_text_file(s.head_path);
        ASSERT_TRUE(hb);
        auto hm = norm::normalize(*hb, d);
        ASSERT_TRUE(hm);
        std::map<uint32_t, std::string> head_display;
        for (const auto& u : hm->units)
          for (const auto& l : u.lines) head_display[l.line_no] = l.display;
        for (const auto& h : s.hunks)
          for (const auto& l : h.lines) {
            if (l.kind == LineKind::kRemoved) continue;
            ++checked;
            for (const std::string* t : {&l.text, &l.head_text}) {
              EXPECT_FALSE(std::regex_search(*t, bad_label)) << *t;
              EXPECT_FALSE(std::regex_search(*t, bad_phi)) << *t;
              EXPECT_FALSE(std::regex_search(*t, bad_bra)) << *t;
            }
            if (!l.head_text.empty()) {
              EXPECT_EQ(l.head_text, head_display[l.head_line]);
            }
            for (const Span& sp : l.head_highlights) EXPECT_LE(sp.end, l.head_text.size());
          }
      }
  }
  EXPECT_GT(checked, 100u);
}

/// With values kept (`ksnap diff --keep-values`) LLVM values print as they
/// are while blocks still print by BASE's names, and the two share one
/// namespace: unoptimized LLVM IR (DISABLE_LLVM_OPT=1, the real-world
/// corpus) numbers its blocks and values differently from O3's, so HEAD's
/// block 10 shown as BASE's `%15` met HEAD's own value `%15 = call ...` in
/// the same lines. Now such a value reads `%h_15`: in the HEAD lines of a
/// hunk no name is both a value and a block, and labels keep their syntax
/// (`.lr.ph:`, `%.lr.ph`).
TEST(DisplayNames, KeptValuesNeverShareANameWithABlock) {
  const std::string dir = std::string(KSNAP_SOURCE_DIR) + "/tests/fixtures/realworld/";
  std::regex value_def(R"(^(%[-\w.$]+) = )");
  std::regex label_def(R"(^([-\w.$]+):$)");
  std::regex block_use(R"(label %([-\w.$]+)|\[ [^,\]]+, %([-\w.$]+) \])");
  size_t hunks = 0, marked = 0;
  for (const auto& [base, head] : {std::pair{"base", "llvm_opt_off"}, {"gfx942_base", "gfx942_llvm_opt_off"}}) {
    DiffOptions o;
    o.stages = {"llir"};
    o.normalize.rename_values = false;
    auto r = diff_paths(dir + base, dir + head, o);
    ASSERT_TRUE(r) << r.status().to_string();
    for (const auto& v : r->variants)
      for (const auto& s : v.stages)
        for (const auto& h : s.hunks) {
          ++hunks;
          std::set<std::string> values, blocks;
          for (const auto& l : h.lines) {
            if (l.kind != LineKind::kAdded) continue;
            std::smatch m;
            if (std::regex_search(l.text, m, value_def)) values.insert(m[1].str().substr(1));
            if (std::regex_search(l.text, m, label_def)) blocks.insert(m[1].str());
            for (auto it = std::sregex_iterator(l.text.begin(), l.text.end(), block_use);
                 it != std::sregex_iterator(); ++it)
              blocks.insert((*it)[1].matched ? (*it)[1].str() : (*it)[2].str());
            marked += l.text.find("%h_") != std::string::npos;
          }
          for (const std::string& b : blocks) EXPECT_EQ(values.count(b), 0u) << v.name() << ": %" << b;
        }
  }
  EXPECT_GT(hunks, 20u);
  EXPECT_GT(marked, 0u);  // the collisions are there to avoid (memcpy_kernel: `%h_15 = call`)
}

}  // namespace
}  // namespace ksnap::diff

// Perturbation tests generated from real corpus files: what must not be a
// change is none, and what is a change shows exactly the changed lines.
#include "ksnap/diff/structural.h"

// GCC 12 at -O3 warns on `"literal" + std::string` in std::char_traits
// (GCC bug 105651, a false positive): not a problem of this file.
#pragma GCC diagnostic ignored "-Wrestrict"

#include <gtest/gtest.h>

#include <filesystem>
#include <algorithm>
#include <functional>
#include <regex>

#include "ksnap/support/file.h"

namespace fs = std::filesystem;

namespace ksnap::diff {
namespace {

/// The first (by path) `kernel.ext` of the bundled example's base build.
std::string find_file(const std::string& kernel, const std::string& ext) {
  std::vector<std::string> found;
  for (auto& p : fs::recursive_directory_iterator(std::string(KSNAP_EXAMPLE_DIR) + "/base/cache"))
    if (p.path().filename() == kernel + "." + ext) found.push_back(p.path());
  std::sort(found.begin(), found.end());
  return found.empty() ? "" : found.front();
}

std::string read(const std::string& path) {
  auto b = read_text_file(path);
  EXPECT_TRUE(b) << path;
  return b ? std::string(b->view()) : "";
}

StageDiff run_diff(const std::string& a, const std::string& b, ir::Dialect d) {
  auto ma = norm::normalize(TextBuffer("base", a), d);
  auto mb = norm::normalize(TextBuffer("head", b), d);
  EXPECT_TRUE(ma) << ma.status().to_string();
  EXPECT_TRUE(mb) << mb.status().to_string();
  StageDiff sd;
  if (ma && mb) {
    // Every caller passes a real change: the hashes must tell it.
    EXPECT_NE(ma->hash, mb->hash);
    structural_diff(*ma, *mb, StructuralOptions{1}, &sd);
  }
  return sd;
}

std::vector<std::string> changed_texts(const StageDiff& sd, LineKind kind) {
  std::vector<std::string> out;
  for (const auto& h : sd.hunks)
    for (const auto& l : h.lines)
      if (l.kind == kind) out.push_back(l.text);
  return out;
}

/// Replaces the first line containing `needle` by `repl` (repl "" deletes,
/// and `insert_after` keeps the line and adds repl after it).
std::string edit_line(const std::string& text, const std::string& needle, const std::string& repl,
                      bool insert_after = false) {
  size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  size_t bol = text.rfind('\n', at);
  bol = bol == std::string::npos ? 0 : bol + 1;
  size_t eol = text.find('\n', at);
  std::string line = text.substr(bol, eol - bol);
  return text.substr(0, bol) + (insert_after ? line + "\n" + repl : repl) + text.substr(eol);
}

std::string regex_all(const std::string& text, const std::string& re,
                      const std::function<std::string(const std::smatch&)>& f) {
  std::regex r(re);
  std::string out;
  auto it = std::sregex_iterator(text.begin(), text.end(), r);
  size_t last = 0;
  for (; it != std::sregex_iterator(); ++it) {
    out.append(text, last, it->position() - last);
    out += f(*it);
    last = it->position() + it->length();
  }
  out.append(text, last, std::string::npos);
  return out;
}

struct NoChangeCase {
  const char* name;
  const char* kernel;
  const char* ext;
  ir::Dialect dialect;
  std::function<std::string(const std::string&)> perturb;
};

TEST(StructuralTest, CosmeticPerturbationsAreNoChange) {
  NoChangeCase cases[] = {
      {"rename every SSA value", "matmul_kernel", "ttgir", ir::Dialect::kMlir,
       [](const std::string& t) {
         return regex_all(t, R"(%([A-Za-z_][A-Za-z0-9_]*|[0-9]+))",
                          [](const std::smatch& m) { return "%renamed_" + m[1].str(); });
       }},
      {"renumber every alias", "matmul_kernel", "ttgir", ir::Dialect::kMlir,
       [](const std::string& t) {
         return regex_all(t, R"(#(blocked|shared|mma)([0-9]*)\b)", [](const std::smatch& m) {
           return "#" + m[1].str() + "9" + m[2].str();
         });
       }},
      {"move the file", "attn_fwd", "ttgir", ir::Dialect::kMlir,
       [](const std::string& t) {
         std::string s = regex_all(t, R"(/tmp/runner-a/work/bench/kernels\.py)",
                                   [](const std::smatch&) { return std::string("/elsewhere/k.py"); });
         return regex_all(s, R"(\.py":([0-9]+):)", [](const std::smatch& m) {
           std::string s = ".py\":";
           s += std::to_string(std::stoi(m[1].str()) + 7);
           return s + ":";
         });
       }},
      {"rename LLVM values", "softmax_kernel", "llir", ir::Dialect::kLlvm,
       [](const std::string& t) {
         std::string s = regex_all(t, R"(%([0-9]+)\b)",
                                   [](const std::smatch& m) { return "%v" + m[1].str(); });
         // Numbered block labels get the same names ("7:" -> "v7:").
         return regex_all(s, R"(\n([0-9]+):)",
                          [](const std::smatch& m) { return "\nv" + m[1].str() + ":"; });
       }},
      {"renumber PTX registers", "softmax_kernel", "ptx", ir::Dialect::kPtx,
       [](const std::string& t) {
         return regex_all(t, R"(%(r|rd|p)([0-9]+)\b)", [](const std::smatch& m) {
           return "%" + m[1].str() + std::to_string(std::stoi(m[2].str()) + 1000);
         });
       }},
  };
  for (const auto& c : cases) {
    std::string path = find_file(c.kernel, c.ext);
    ASSERT_FALSE(path.empty()) << c.kernel;
    std::string a = read(path), b = c.perturb(a);
    ASSERT_NE(a, b) << c.name << ": the perturbation must change the text";
    auto ma = norm::normalize(TextBuffer("a", a), c.dialect);
    auto mb = norm::normalize(TextBuffer("b", b), c.dialect);
    ASSERT_TRUE(ma && mb) << c.name;
    EXPECT_EQ(ma->hash, mb->hash) << c.name;
    StageDiff sd;
    structural_diff(*ma, *mb, {}, &sd);
    EXPECT_EQ(sd.lines_added + sd.lines_removed, 0u) << c.name;
  }
}

struct ChangeCase {
  const char* name;
  const char* kernel;
  const char* ext;
  ir::Dialect dialect;
  const char* needle;       // the line to edit
  const char* replacement;  // its new text ("" = delete)
  bool insert_after;
  std::vector<std::string> want_removed, want_added;  // display texts
};

TEST(StructuralTest, RealChangesShowExactlyTheChangedLines) {
  ChangeCase cases[] = {
      {"insert one op", "matmul_kernel", "ttgir", ir::Dialect::kMlir, "%c8_i32 = arith.constant 8",
       "    %inserted = arith.muli %c8_i32, %c8_i32 : i32 loc(#loc1)", true, {},
       {"%inserted = arith.muli %c8_i32, %c8_i32 : i32"}},
      {"change one constant", "matmul_kernel", "ttgir", ir::Dialect::kMlir,
       "%c63_i32 = arith.constant 63", "    %c63_i32 = arith.constant 64 : i32 loc(#loc1)", false,
       {"%c63_i32 = arith.constant 63 : i32"}, {"%c63_i32 = arith.constant 64 : i32"}},
      {"change one layout attribute", "matmul_kernel", "ttgir", ir::Dialect::kMlir,
       "#blocked1 = #ttg.blocked",
       "#blocked1 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = "
       "[2, 1], order = [1, 0]}>",
       false,
       {"#blocked1 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = "
        "[2, 1], order = [1, 0]}>"},
       {"#blocked1 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = "
        "[2, 1], order = [1, 0]}>"}},
      {"delete one op", "add_kernel", "ttir", ir::Dialect::kMlir, "%mask = tt.splat", "", false,
       {"%mask = tt.splat %n_elements : i32 -> tensor<256xi32>"}, {}},
  };
  for (const auto& c : cases) {
    std::string path = find_file(c.kernel, c.ext);
    ASSERT_FALSE(path.empty()) << c.kernel;
    std::string a = read(path);
    std::string b = edit_line(a, c.needle, c.replacement, c.insert_after);
    if (std::string(c.replacement).empty()) {
      // Deleting the line: remove the now-empty line too.
      size_t at = a.find(c.needle);
      size_t bol = a.rfind('\n', at);
      size_t eol = a.find('\n', at);
      b = a.substr(0, bol) + a.substr(eol);
    }
    StageDiff sd = run_diff(a, b, c.dialect);
    EXPECT_EQ(changed_texts(sd, LineKind::kRemoved), c.want_removed) << c.name;
    EXPECT_EQ(changed_texts(sd, LineKind::kAdded), c.want_added) << c.name;
    EXPECT_NE(sd.change_signature, 0u) << c.name;
  }
}

TEST(StructuralTest, HeadLinesUseBaseNamesAndWordHighlights) {
  std::string path = find_file("matmul_kernel", "ttgir");
  std::string a = read(path);
  // Rename every value AND change one constant: the changed line must print
  // with BASE's names, and only the constant is highlighted.
  std::string b = regex_all(a, R"(%([A-Za-z_][A-Za-z0-9_]*|[0-9]+))",
                            [](const std::smatch& m) { return "%n_" + m[1].str(); });
  b = edit_line(b, "%n_pid = tt.get_program_id x",
                "    %n_pid = tt.get_program_id y : i32 loc(#loc66)");
  StageDiff sd = run_diff(a, b, ir::Dialect::kMlir);
  ASSERT_EQ(sd.lines_added, 1u);
  ASSERT_EQ(sd.lines_removed, 1u);
  for (const auto& h : sd.hunks)
    for (const auto& l : h.lines) {
      EXPECT_EQ(l.text.find("%n_"), std::string::npos) << l.text;
      if (l.kind == LineKind::kAdded) {
        ASSERT_EQ(l.highlights.size(), 1u);
        EXPECT_EQ(l.text.substr(l.highlights[0].begin, l.highlights[0].end - l.highlights[0].begin),
                  "y");
        EXPECT_GT(l.py_line, 0);
      }
    }
}

TEST(StructuralTest, HoistedOpIsOneMoveNotARenumbering) {
  std::string path = find_file("add_kernel", "ttir");
  std::string a = read(path);
  // Move `%mask = tt.splat ...` up two lines (a legal reordering of
  // independent ops): exactly one line removed and one added.
  size_t at = a.find("%mask = tt.splat");
  size_t bol = a.rfind('\n', at) + 1;
  size_t eol = a.find('\n', at) + 1;
  std::string line = a.substr(bol, eol - bol);
  std::string without = a.substr(0, bol) + a.substr(eol);
  size_t target = without.find("%offsets = tt.make_range");
  size_t tbol = without.rfind('\n', target) + 1;
  std::string b = without.substr(0, tbol) + line + without.substr(tbol);
  StageDiff sd = run_diff(a, b, ir::Dialect::kMlir);
  EXPECT_EQ(sd.lines_added, 1u);
  EXPECT_EQ(sd.lines_removed, 1u);
}

// A run of copies of one register (`mov.b32 %r94, %r75` ... `%r76, %r75`,
// tutorial 05's Gluon matmul, PTX without LLVM optimization) loses one line:
// every copy is the same computation, so keys that let the first copy stand
// for the others cannot tell the run's lines apart. The diff shows the
// deleted line alone; the copy's user (`mov.b32 %r501, %r91`, now reading a
// register nothing writes) keeps its counterpart and never shows as a -/+
// pair that reads identical (it did: 3 lines, registers shifted by one).
TEST(StructuralTest, LineDeletedFromARunOfCopiesShowsAlone) {
  std::string a = read(std::string(KSNAP_SOURCE_DIR) +
                       "/tests/fixtures/realworld/llvm_opt_off/cache/"
                       "IZRRFXHC4D7E56XLOLOBLIRCMFXPXQ44JOZF3MNFHW3IIKZLGWJQ/blocked_matmul_kernel.ptx");
  ASSERT_NE(a.find("\tmov.b32 \t%r501, %r91;"), std::string::npos);
  for (const char* reg : {"%r91", "%r84", "%r76"}) {
    std::string line = std::string("\tmov.b32 \t") + reg + ", %r75;";
    std::string b = a;
    size_t at = b.find(line + "\n");
    ASSERT_NE(at, std::string::npos) << reg;
    b.erase(at, line.size() + 1);
    StageDiff sd = run_diff(a, b, ir::Dialect::kPtx);
    EXPECT_EQ(changed_texts(sd, LineKind::kRemoved), std::vector<std::string>{line.substr(1)}) << reg;
    EXPECT_TRUE(changed_texts(sd, LineKind::kAdded).empty()) << reg;
  }
}

// Where the line alignment gives up on a gap (no line unique to both sides,
// over its limits) the lines are shown as removed and added, and `fallback`
// says so: never a silent approximation. Real PTX (blocked matmul) with
// three barrier/fence lines that trade places; by default they align.
TEST(StructuralTest, GapLeftUnalignedIsAStatedFallback) {
  std::string a = read(std::string(KSNAP_SOURCE_DIR) +
                       "/tests/fixtures/realworld/llvm_opt_off/cache/"
                       "IZRRFXHC4D7E56XLOLOBLIRCMFXPXQ44JOZF3MNFHW3IIKZLGWJQ/blocked_matmul_kernel.ptx");
  const std::string anchor = "\tmov.b32 \t%r501, %r91;\n";
  size_t at = a.find(anchor);
  ASSERT_NE(at, std::string::npos);
  std::string b = a;
  a.insert(at + anchor.size(), "\tbar.sync \t0;\n\tmembar.gl;\n\tbar.sync \t0;\n");
  b.insert(at + anchor.size(), "\tmembar.gl;\n\tbar.sync \t0;\n\tmembar.gl;\n");
  auto ma = norm::normalize(TextBuffer("base", a), ir::Dialect::kPtx);
  auto mb = norm::normalize(TextBuffer("head", b), ir::Dialect::kPtx);
  ASSERT_TRUE(ma && mb);
  StageDiff exact;
  structural_diff(*ma, *mb, {}, &exact);
  EXPECT_TRUE(exact.fallback.empty()) << exact.fallback;
  EXPECT_EQ(exact.lines_added + exact.lines_removed, 2u);
  StructuralOptions tight;
  tight.align_cells = 1;
  tight.align_depth = 0;
  StageDiff cut;
  structural_diff(*ma, *mb, tight, &cut);
  EXPECT_EQ(cut.lines_removed, 3u);
  EXPECT_EQ(cut.lines_added, 3u);
  EXPECT_NE(cut.fallback.find("left 1 gap unaligned in `blocked_matmul_kernel` (3 BASE x 3 HEAD lines"),
            std::string::npos)
      << cut.fallback;
  EXPECT_NE(cut.fallback.find("shown there as removed and added lines"), std::string::npos);
}

// Values built alike: three loop counters (tutorial 08's grouped TMA matmul:
// one buffer index per descriptor, `%66`, `%67`, `%68`, each a phi, a shift,
// an add/compare/select and an exit phi), or equal `and`s. Structure cannot
// tell them apart, so when one's definition is deleted the neighbourhood
// keys pair the definitions by order. That pairing must not decide which
// value is which: the values' uses do (it showed 15 and 3 lines, uses
// swapped). Real excerpts: tests/fixtures/excerpts/README.md.
TEST(StructuralTest, LineDeletedFromValuesBuiltAlikeShowsAlone) {
  struct Case {
    const char* file;
    std::vector<std::string> lines;  // each deleted in turn
  } cases[] = {
      {"grouped_matmul_tma_counters.llir",
       {"  %66 = phi i32 [ 0, %.lr.ph23 ]", "  %67 = phi i32 [ 0, %.lr.ph23 ]",
        "  %68 = phi i32 [ 0, %.lr.ph23 ]"}},
      // Tutorial 09's warp-specialized persistent matmul: LICM hoisted six
      // `and`s, two of each computation, each with its own user.
      {"descriptor_persistent_ands.llir",
       {"  %invariant.op416 = and", "  %invariant.op418 = and", "  %invariant.op419 = and"}},
  };
  for (const Case& c : cases) {
    std::string a = read(std::string(KSNAP_SOURCE_DIR) + "/tests/fixtures/excerpts/" + c.file);
    for (const std::string& v : c.lines) {
      size_t at = a.find(v);
      ASSERT_NE(at, std::string::npos) << v;
      size_t eol = a.find('\n', at);
      std::string line = a.substr(at + 2, eol - at - 2);
      std::string b = a.substr(0, at) + a.substr(eol + 1);
      StageDiff sd = run_diff(a, b, ir::Dialect::kLlvm);
      EXPECT_EQ(changed_texts(sd, LineKind::kRemoved), std::vector<std::string>{line}) << v;
      EXPECT_TRUE(changed_texts(sd, LineKind::kAdded).empty()) << v;
    }
  }
}

// Globals the compiler numbers (`@.str` / `@.str.2`, Triton's
// `@assertMessage_N`) renamed and reordered next to a real change: the diff
// shows the changed call alone, spelling HEAD's global by BASE's name, and
// never the definitions as -/+ lines.
TEST(StructuralTest, CompilerNumberedGlobalsNeverShow) {
  std::string a = read(find_file("layer_norm_fwd", "llir"));
  ASSERT_NE(a.find("@.str.2 = private"), std::string::npos);
  std::string b = std::regex_replace(a, std::regex("@\\.str\\.2\\b"), "@assertMessage_1");
  b = std::regex_replace(b, std::regex("@\\.str(?![.\\w])"), "@assertFile_4");
  // The two definitions in the other order (new globals go first).
  size_t d1 = b.find("@assertFile_4 ="), d2 = b.find("@assertMessage_1 =");
  ASSERT_LT(d1, d2);
  size_t e1 = b.find('\n', d1) + 1, e2 = b.find('\n', d2) + 1;
  b = b.substr(0, d1) + b.substr(d2, e2 - d2) + b.substr(e1, d2 - e1) + b.substr(d1, e1 - d1) + b.substr(e2);
  b = edit_line(b, "@__nvvm_reflect(ptr nonnull @assertMessage_1)",
                "  %167 = tail call i32 @__nvvm_reflect(ptr nonnull @assertFile_4) #6, !dbg !42");
  StageDiff sd = run_diff(a, b, ir::Dialect::kLlvm);
  EXPECT_EQ(changed_texts(sd, LineKind::kRemoved),
            std::vector<std::string>{"%167 = tail call i32 @__nvvm_reflect(ptr nonnull @.str.2) #6"});
  EXPECT_EQ(changed_texts(sd, LineKind::kAdded),
            std::vector<std::string>{"%167 = tail call i32 @__nvvm_reflect(ptr nonnull @.str) #6"});
}


// A unit present on one side only after a unit that changed: its lines
// never take the previous unit's edit pairs (issue 8 items 1 and 5: a
// segfault in make_hunk / renamed).
TEST(StructuralTest, UnitOnOneSideOnlyAfterAChangedUnit) {
  struct Case {
    const char* name;
    ir::Dialect dialect;
    std::string base, head;
    uint32_t want_added, want_removed;
  } cases[] = {
      {"PTX function added", ir::Dialect::kPtx, ".version 6.5\n",
       ".version 7.0\n.visible .func f() {}\n", 2, 1},
      {"PTX function removed", ir::Dialect::kPtx, ".version 7.0\n.visible .func f() {}\n",
       ".version 6.5\n", 1, 2},
      {"MLIR function added", ir::Dialect::kMlir,
       "module attributes {ttg.target = \"cuda:80\"} {\n}\n",
       "module attributes {ttg.target = \"cuda:90\"} {\n  tt.func @g() {\n    tt.return\n  }\n}\n",
       4, 1},
  };
  for (const auto& c : cases) {
    auto ma = norm::normalize(TextBuffer("base", c.base), c.dialect);
    auto mb = norm::normalize(TextBuffer("head", c.head), c.dialect);
    ASSERT_TRUE(ma && mb) << c.name;
    StageDiff sd;
    structural_diff(*ma, *mb, {}, &sd);
    EXPECT_TRUE(sd.fallback.empty()) << c.name << ": " << sd.fallback;
    EXPECT_EQ(sd.lines_added, c.want_added) << c.name;
    EXPECT_EQ(sd.lines_removed, c.want_removed) << c.name;
  }
}

// Unoptimized LLVM IR (DISABLE_LLVM_OPT=1) keeps helpers that O3 inlines; a
// `define internal` helper on one side only, next to a changed kernel.
TEST(StructuralTest, InternalHelperOnOneSideOfUnoptimizedLlvm) {
  std::string a = read(find_file("add_kernel", "llir"));
  std::string helper =
      "\ndefine internal i64 @__ockl_get_num_groups(i32 %0) #1 {\n"
      "  %2 = alloca i32, align 4, addrspace(5)\n"
      "  %3 = addrspacecast ptr addrspace(5) %2 to ptr\n"
      "  store i32 %0, ptr %3, align 4\n"
      "  %4 = load i32, ptr %3, align 4\n"
      "  %5 = zext i32 %4 to i64\n"
      "  ret i64 %5\n"
      "}\n";
  // HEAD: the helper before the kernel, and the kernel's shift changed.
  size_t def = a.find("define ptx_kernel");
  ASSERT_NE(def, std::string::npos);
  std::string b = a.substr(0, def) + helper.substr(1) + "\n" + a.substr(def);
  b = edit_line(b, "%8 = shl i32 %7, ", "  %8 = shl i32 %7, 11, !dbg !8");
  for (bool swap : {false, true}) {
    StageDiff sd = swap ? run_diff(b, a, ir::Dialect::kLlvm) : run_diff(a, b, ir::Dialect::kLlvm);
    EXPECT_TRUE(sd.fallback.empty()) << sd.fallback;
    // The helper's 8 lines on one side plus the one changed line.
    EXPECT_EQ(swap ? sd.lines_removed : sd.lines_added, 9u) << swap;
    EXPECT_EQ(swap ? sd.lines_added : sd.lines_removed, 1u) << swap;
  }
}


// When every line finds a counterpart under the learned correspondence but
// the canonical texts still differ (here: the store takes the second of two
// equal computations), the diff shows the lines whose canonical text
// differs: a change never reads "+0 -0" (issue 8 item 10).
TEST(StructuralTest, AChangeAlwaysShowsLines) {
  const std::string base =
      "define void @k(ptr %0, i32 %1, i32 %2) {\n"
      "  %4 = add i32 %1, %2\n"
      "  %5 = add i32 %1, %2\n"
      "  store i32 %4, ptr %0, align 4\n"
      "  store i32 %5, ptr %0, align 4\n"
      "  ret void\n"
      "}\n";
  std::string head = base;
  head.replace(head.find("store i32 %4"), 12, "store i32 %5");
  head.replace(head.rfind("store i32 %5"), 12, "store i32 %4");
  StageDiff sd = run_diff(base, head, ir::Dialect::kLlvm);
  EXPECT_GT(sd.lines_added + sd.lines_removed, 0u);
  EXPECT_NE(sd.change_signature, 0u);
  EXPECT_TRUE(sd.fallback.empty());
}

}  // namespace
}  // namespace ksnap::diff

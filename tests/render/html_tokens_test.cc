#include "render/html_tokens.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace ksnap::render::html {
namespace {

/// (text, CSS class) pieces of a line's runs, plain pieces included as "".
std::vector<std::pair<std::string, std::string>> pieces(const std::string& line, ir::Dialect d) {
  std::vector<uint32_t> runs = token_runs(line, d);
  std::vector<std::pair<std::string, std::string>> out;
  size_t pos = 0;  // ASCII test lines: UTF-16 units == bytes
  for (size_t i = 0; i + 1 < runs.size(); i += 2) {
    out.push_back({line.substr(pos, runs[i]), kTokenClassNames[runs[i + 1]]});
    pos += runs[i];
  }
  EXPECT_EQ(pos, line.size()) << "runs must cover the line: " << line;
  return out;
}

std::string class_of(const std::string& line, ir::Dialect d, const std::string& token) {
  for (const auto& [text, cls] : pieces(line, d))
    if (text == token) return cls;
  return "<not a run>";
}

TEST(HtmlTokensTest, ClassesPerDialect) {
  struct Case {
    ir::Dialect dialect;
    std::string line, token, cls;
  } cases[] = {
      // MLIR (TTGIR)
      {ir::Dialect::kMlir, "%0 = tt.load %p : tensor<256x!tt.ptr<f32>, #blocked1>", "tt.load", "o"},
      {ir::Dialect::kMlir, "%0 = tt.load %p : tensor<256x!tt.ptr<f32>, #blocked1>", "%0", "v"},
      {ir::Dialect::kMlir, "%0 = tt.load %p : tensor<256x!tt.ptr<f32>, #blocked1>", "tensor", "t"},
      {ir::Dialect::kMlir, "%0 = tt.load %p : tensor<256x!tt.ptr<f32>, #blocked1>", "#blocked1",
       "a"},
      {ir::Dialect::kMlir, "%0 = tt.load %p : tensor<256x!tt.ptr<f32>, #blocked1>", "!tt.ptr", "m"},
      {ir::Dialect::kMlir, "%0 = tt.load %p : tensor<256x!tt.ptr<f32>, #blocked1>", "f32", "t"},
      {ir::Dialect::kMlir, "%c = arith.constant dense<0.000000e+00> : tensor<128x64xf16>",
       "128x64xf16", "t"},
      {ir::Dialect::kMlir, "%c = arith.constant dense<0.000000e+00> : tensor<128x64xf16>",
       "0.000000e+00", "n"},
      {ir::Dialect::kMlir, "%a:2 = scf.for %i = %lb to %ub step %s iter_args(%x = %y) -> (f32)",
       "scf.for", "o"},
      {ir::Dialect::kMlir, "%a:2 = scf.for %i = %lb to %ub step %s iter_args(%x = %y) -> (f32)",
       "iter_args", "k"},
      {ir::Dialect::kMlir, "tt.func public @matmul_kernel(%arg0: !tt.ptr<f16>)", "@matmul_kernel",
       "s"},
      {ir::Dialect::kMlir, "tt.func public @matmul_kernel(%arg0: !tt.ptr<f16>)", "public", "k"},
      {ir::Dialect::kMlir, "^bb1(%x: i32):", "^bb1", "b"},
      {ir::Dialect::kMlir, "} loc(#loc3)", "loc", "k"},
      {ir::Dialect::kMlir, "tt.return // done", "// done", "c"},
      // LLVM IR
      {ir::Dialect::kLlvm, "%5 = getelementptr inbounds float, ptr addrspace(1) %0, i64 %4",
       "getelementptr", "o"},
      {ir::Dialect::kLlvm, "%5 = getelementptr inbounds float, ptr addrspace(1) %0, i64 %4", "i64",
       "t"},
      {ir::Dialect::kLlvm, "%5 = getelementptr inbounds float, ptr addrspace(1) %0, i64 %4",
       "inbounds", "k"},
      {ir::Dialect::kLlvm, "  br i1 %9, label %10, label %12, !dbg !7", "br", "o"},
      {ir::Dialect::kLlvm, "  br i1 %9, label %10, label %12, !dbg !7", "!dbg", "m"},
      {ir::Dialect::kLlvm, "  br i1 %9, label %10, label %12, !dbg !7", "label", "t"},
      {ir::Dialect::kLlvm, "10:                                               ; preds = %2",
       "10:", "l"},
      {ir::Dialect::kLlvm, "10:                                               ; preds = %2",
       "; preds = %2", "c"},
      {ir::Dialect::kLlvm, "define void @add_kernel(ptr %0) local_unnamed_addr #0 {", "define",
       "k"},
      {ir::Dialect::kLlvm, "define void @add_kernel(ptr %0) local_unnamed_addr #0 {", "#0", "a"},
      {ir::Dialect::kLlvm, "@global_smem = external addrspace(3) global [0 x i8], align 16",
       "@global_smem", "s"},
      // PTX
      {ir::Dialect::kPtx, "\tld.global.v4.b32 { %r1, %r2, %r3, %r4 }, [ %rd1 + 0 ];",
       "ld.global.v4.b32", "o"},
      {ir::Dialect::kPtx, "\tld.global.v4.b32 { %r1, %r2, %r3, %r4 }, [ %rd1 + 0 ];", "%rd1", "v"},
      {ir::Dialect::kPtx, "\t@%p1 bra $L__BB0_2;", "bra", "o"},
      {ir::Dialect::kPtx, "\t@%p1 bra $L__BB0_2;", "$L__BB0_2", "l"},
      {ir::Dialect::kPtx, "$L__BB0_2:", "$L__BB0_2:", "l"},
      {ir::Dialect::kPtx, "\t.reg .b32 \t%r<12>;", ".reg", "d"},
      {ir::Dialect::kPtx, "\tmov.u32 \t%r5, 0f3F800000;", "0f3F800000", "n"},
      {ir::Dialect::kPtx, "\tmov.u32 \t%r5, 0f3F800000;", "mov.u32", "o"},
  };
  for (const auto& c : cases)
    EXPECT_EQ(class_of(c.line, c.dialect, c.token), c.cls)
        << ir::dialect_name(c.dialect) << ": '" << c.token << "' in " << c.line;
}

TEST(HtmlTokensTest, AdjacentRunsOfOneClassMerge) {
  // "( )" is punctuation and space: one plain run, not three.
  auto p = pieces("tt.return ( )", ir::Dialect::kMlir);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0], std::make_pair(std::string("tt.return"), std::string("o")));
  EXPECT_EQ(p[1], std::make_pair(std::string(" ( )"), std::string("")));
}

TEST(HtmlTokensTest, LexerErrorsKeepTheTextAndGoOn) {
  // Unterminated string: classed as an error, and the runs still cover the line.
  auto p = pieces("%s = \"abc", ir::Dialect::kLlvm);
  EXPECT_EQ(p.front().second, "v");
  EXPECT_EQ(p.back().second, "e");
  // A PTX block comment cut at the end of the line is still a comment.
  EXPECT_EQ(pieces("\tadd.s32 %r1, %r2, %r3; /* rest", ir::Dialect::kPtx).back().second, "c");
  EXPECT_TRUE(token_runs("", ir::Dialect::kMlir).empty());
}

TEST(HtmlTokensTest, Utf16Lengths) {
  struct Case {
    std::string text;
    uint32_t units;
  } cases[] = {{"", 0},
               {"abc", 3},
               {"\xc3\xa9", 1},
               {"\xe2\x86\x92", 1},
               {"\xf0\x9f\x98\x80", 2},
               {"a\xe2\x86\x92"
                "b",
                3}};
  for (const auto& c : cases) EXPECT_EQ(utf16_length(c.text), c.units) << c.text;
  // A comment with a non-ASCII arrow: the runs count UTF-16 units.
  std::vector<uint32_t> runs = token_runs(
      "tt.return // a\xe2\x86\x92"
      "b",
      ir::Dialect::kMlir);
  uint32_t total = 0;
  for (size_t i = 0; i < runs.size(); i += 2) total += runs[i];
  EXPECT_EQ(total, 16u);  // tt.return(9) space(1) //(2) space(1) a(1) arrow(1) b(1)
}

TEST(HtmlTokensTest, HighlightSpansInUtf16) {
  std::string line = "// \xe2\x86\x92 x = \xf0\x9f\x98\x80y";  // "// → x = 😀y"
  // Bytes: "// " 0-2, arrow 3-5, " x = " 6-10, emoji 11-14, y 15.
  std::vector<diff::Span> spans = {
      {6, 8}, {11, 16}, {12, 13} /* overlaps: dropped */, {14, 99} /* out of range */};
  EXPECT_EQ(utf16_spans(line, spans), (std::vector<uint32_t>{4, 6, 9, 12}));
  EXPECT_TRUE(utf16_spans(line, {}).empty());
}

}  // namespace
}  // namespace ksnap::render::html

namespace ksnap::render::html {
namespace {

TEST(HtmlTokensTest, RunsText) {
  EXPECT_EQ(runs_text(token_runs("%0 = tt.load %p", ir::Dialect::kMlir)), "v2_3o7_1v2");
  EXPECT_EQ(runs_text({}), "");
  EXPECT_EQ(runs_text({12, 0}), "_12");
}

TEST(HtmlTokensTest, Utf8Sequences) {
  struct Case {
    std::string s;
    size_t at, len;
  } cases[] = {{"a", 0, 1},
               {"\xc3\xa9", 0, 2},
               {"\xe2\x86\x92", 0, 3},
               {"\xf0\x9f\x98\x80", 0, 4},
               {"\xff", 0, 0},
               {"\x80", 0, 0},
               {"\xe2\x86", 0, 0} /* truncated */,
               {"\xc3"
                "a",
                0, 0},
               {"\xc0\xaf", 0, 0} /* overlong */};
  for (const auto& c : cases)
    EXPECT_EQ(utf8_sequence(c.s, c.at), c.len) << testing::PrintToString(c.s);
  EXPECT_EQ(utf16_length("\xff\x80x"), 3u);  // each invalid byte is one U+FFFD
}

}  // namespace
}  // namespace ksnap::render::html

// Lexer::fold_type_lists() is a speed path only: LLVM IR lexed with it
// (`{ float, float, ... }` as one token, written by Engine::text_list) must
// normalize exactly as without it. Every LLVM IR file the repository holds
// (the bundled example corpus, the real-world fixtures, the shared corpus
// when present) and hand-made lines at the edges of the rule are normalized
// both ways under every rule set; hashes, canonical text and every line's
// display, shape, symbols, op and callee must be equal.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "ksnap/ir/lexer.h"
#include "normalize/engine.h"
#include "normalize/test_util.h"
#include "support/corpus_dir.h"

namespace ksnap::norm {
namespace {

namespace fs = std::filesystem;
using ir::Dialect;

/// The rule sets compared: defaults, then each rule off alone.
std::vector<NormalizeOptions> rule_sets() {
  std::vector<NormalizeOptions> out(1);
  for (int k = 0; k < 9; ++k) {
    NormalizeOptions o;
    bool* rules[] = {&o.rename_values,  &o.rename_blocks,   &o.rename_aliases,
                     &o.drop_locations, &o.rename_metadata, &o.rename_globals,
                     &o.drop_ident,     &o.drop_comments,   &o.drop_reg_decls};
    *rules[k] = false;
    out.push_back(o);
  }
  return out;
}

struct Both {
  Expected<Module> folded, plain;
  Expected<uint64_t> folded_hash, plain_hash;
};

Both normalize_both(const TextBuffer& buf, const NormalizeOptions& o) {
  detail::set_fold_type_lists(false);
  auto plain = normalize(buf, Dialect::kLlvm, o);
  auto plain_hash = normalized_hash(buf, Dialect::kLlvm, o);
  detail::set_fold_type_lists(true);
  auto folded = normalize(buf, Dialect::kLlvm, o);
  auto folded_hash = normalized_hash(buf, Dialect::kLlvm, o);
  return Both{std::move(folded), std::move(plain), std::move(folded_hash), std::move(plain_hash)};
}

/// The two Modules are the same, line by line.
void expect_same(const Both& b, const std::string& what) {
  ASSERT_EQ(b.folded.has_value(), b.plain.has_value()) << what;
  ASSERT_EQ(b.folded_hash.has_value(), b.plain_hash.has_value()) << what;
  if (!b.plain) {
    EXPECT_EQ(b.folded.status().to_string(), b.plain.status().to_string()) << what;
    return;
  }
  EXPECT_EQ(*b.folded_hash, *b.plain_hash) << what;
  const Module& f = *b.folded;
  const Module& p = *b.plain;
  EXPECT_EQ(f.hash, p.hash) << what;
  EXPECT_EQ(canonical_text(f), canonical_text(p)) << what;
  ASSERT_EQ(f.units.size(), p.units.size()) << what;
  for (size_t u = 0; u < p.units.size(); ++u) {
    ASSERT_EQ(f.units[u].lines.size(), p.units[u].lines.size()) << what;
    for (size_t i = 0; i < p.units[u].lines.size(); ++i) {
      const Line& a = f.units[u].lines[i];
      const Line& c = p.units[u].lines[i];
      ASSERT_EQ(a.shape, c.shape) << what << " line " << c.line_no;
      ASSERT_EQ(a.display, c.display) << what << " line " << c.line_no;
      ASSERT_EQ(a.op, c.op) << what << " line " << c.line_no;
      ASSERT_EQ(a.callee, c.callee) << what << " line " << c.line_no;
      ASSERT_EQ(a.py_line, c.py_line) << what << " line " << c.line_no;
      ASSERT_EQ(a.symbols.size(), c.symbols.size()) << what << " line " << c.line_no;
      for (size_t k = 0; k < c.symbols.size(); ++k) {
        EXPECT_EQ(a.symbols[k].id, c.symbols[k].id);
        EXPECT_EQ(a.symbols[k].offset, c.symbols[k].offset);
        EXPECT_EQ(a.symbols[k].shape_offset, c.symbols[k].shape_offset);
      }
    }
  }
  EXPECT_EQ(f.resources, p.resources) << what;
}

/// Type-list tokens the lexer makes in `text` (so the comparison is not vacuous).
size_t type_lists(const TextBuffer& buf) {
  ir::Lexer lx(buf.view().data(), buf.size(), Dialect::kLlvm);
  lx.fold_type_lists();
  size_t n = 0;
  for (ir::Token t = lx.next(); t.kind != ir::TokenKind::kEof; t = lx.next()) {
    n += t.kind == ir::TokenKind::kTypeList;
  }
  return n;
}

std::vector<std::string> llvm_files() {
  std::vector<std::string> roots = {std::string(KSNAP_SOURCE_DIR) + "/examples/corpus",
                                    std::string(KSNAP_SOURCE_DIR) + "/tests/fixtures"};
  if (ksnap::testing::shared_corpus_present()) roots.push_back(KSNAP_CORPUS_DIR);
  std::vector<std::string> out;
  for (const std::string& r : roots) {
    std::error_code ec;
    if (!fs::is_directory(r, ec)) continue;
    for (auto it = fs::recursive_directory_iterator(r, ec);
         it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) break;
      std::string ext = it->path().extension().string();
      if (it->is_regular_file(ec) && (ext == ".llir" || ext == ".ll")) out.push_back(it->path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(TypeListTest, RealLlvmIrNormalizesTheSameWithAndWithout) {
  std::vector<std::string> files = llvm_files();
  ASSERT_GE(files.size(), 30u);  // the bundled example corpus alone has 32
  size_t folded_files = 0, lists = 0;
  std::vector<NormalizeOptions> sets = rule_sets();
  for (size_t f = 0; f < files.size(); ++f) {
    auto buf = read_text_file(files[f]);
    ASSERT_TRUE(buf) << buf.status().to_string();
    size_t n = type_lists(*buf);
    lists += n;
    folded_files += n > 0;
    // Every rule set on a sample of files, the defaults on all of them.
    size_t k_end = f % 8 == 0 ? sets.size() : 1;
    for (size_t k = 0; k < k_end; ++k) {
      expect_same(normalize_both(*buf, sets[k]), files[f] + " rules " + std::to_string(k));
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  std::printf("%zu LLVM IR files, %zu with type lists (%zu lists)\n", files.size(), folded_files,
              lists);
  EXPECT_GE(folded_files, 10u) << "the files hold Triton's `{ float, float, ... }` types";
  EXPECT_GE(lists, 1000u);
}

struct EdgeCase {
  const char* name;
  std::string text;
};

class TypeListEdgeTest : public ::testing::TestWithParam<EdgeCase> {};

TEST_P(TypeListEdgeTest, SameWithAndWithout) {
  TextBuffer buf("t.ll", GetParam().text);
  for (const NormalizeOptions& o : rule_sets())
    expect_same(normalize_both(buf, o), GetParam().name);
}

std::string fn(const std::string& body) {
  return "define void @k(ptr %0) {\n" + body + "  ret void\n}\n";
}

const EdgeCase kEdges[] = {
    {"extract", fn("  %2 = load { float, float, float }, ptr %0, align 4\n"
                   "  %3 = extractvalue { float, float, float } %2, 1, !dbg !5\n")},
    {"asm_call", fn("  %2 = tail call { i32, i32, i32, i32 } asm sideeffect \"ld $0, $1\", "
                    "\"=r,=r,=r,=r\"(), !dbg !5\n")},
    {"mixed", fn("  %2 = insertvalue { float, float, ptr addrspace(3), i32, i32 } undef, float "
                 "1.0, 0\n")},
    {"global", "@g = internal global { i64, i64 } zeroinitializer\n" +
                   fn("  %2 = load { i64, i64 }, ptr @g, align 8\n")},
    {"nested", fn("  %2 = alloca { { half, half }, { half, half } }, align 4\n")},
    {"struct_type", "%T = type { i8, i8, i8 }\n" + fn("  %2 = alloca %T, align 1\n")},
    {"signature",
     "define { float, float } @f({ float, float } %0) {\n  ret { float, float } "
     "%0\n}\n"},
    {"truncated", "define void @k() {\n  %1 = alloca { float, float"},
    {"longer_name", fn("  %2 = alloca { float, float, floaty }, align 4\n")},
    {"metadata", fn("  ret void, !dbg !5\n") + "!5 = !{ i32, i32 }\n"},
    {"string", "@s = private constant [9 x i8] c\"{ i8, i8 }\"\n"},
    {"keywords_not_types", fn("  %2 = call { asm, asm } @f()\n")},
};

INSTANTIATE_TEST_SUITE_P(All, TypeListEdgeTest, ::testing::ValuesIn(kEdges),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace ksnap::norm

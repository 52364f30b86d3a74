// The matching rules of capture::VariantKey (docs/capture-format.md,
// "Variant identity"), one row per rule and its boundary.
#include "ksnap/capture/variant_key.h"

#include <gtest/gtest.h>

namespace ksnap::capture {
namespace {

VariantKey key(const char* kernel, const char* qualname, const char* file, const char* sig,
               std::map<std::string, std::string> cx, std::map<std::string, std::string> op) {
  VariantKey k;
  k.kernel = kernel;
  k.qualname = qualname;
  k.source_file = file;
  k.signature = sig;
  k.constexprs = std::move(cx);
  k.options = std::move(op);
  return k;
}

TEST(VariantKeyTest, MatchingRules) {
  const VariantKey a = key("matmul_kernel", "__main__.matmul_kernel", "/ci/a/03-matmul.py",
                           "[('*fp16', 'D')]", {{"BLOCK_M", "128"}}, {{"num_warps", "8"}});
  struct Case {
    const char* name;
    VariantKey b;
    bool kernel, variant, leftover;
  } cases[] = {
      {"itself", a, true, true, true},
      {"another script, same name",
       key("matmul_kernel", "__main__.matmul_kernel", "/ci/a/bench.py", "[('*fp16', 'D')]",
           {{"BLOCK_M", "128"}}, {{"num_warps", "8"}}),
       false, false, false},
      {"a module of that name",
       key("matmul_kernel", "suite.matmul_kernel", "/ci/a/03-matmul.py", "[('*fp16', 'D')]",
           {{"BLOCK_M", "128"}}, {{"num_warps", "8"}}),
       false, false, false},
      {"another kernel name",
       key("add_kernel", "__main__.add_kernel", "/ci/a/03-matmul.py", "[('*fp16', 'D')]",
           {{"BLOCK_M", "128"}}, {{"num_warps", "8"}}),
       false, false, false},
      {"another specialization",
       key("matmul_kernel", "__main__.matmul_kernel", "/ci/a/03-matmul.py", "[('*fp16', '')]",
           {{"BLOCK_M", "128"}}, {{"num_warps", "8"}}),
       true, false, true},
      {"other options: a leftover match",
       key("matmul_kernel", "__main__.matmul_kernel", "/ci/a/03-matmul.py", "[('*fp16', 'D')]",
           {{"BLOCK_M", "128"}}, {{"num_warps", "4"}}),
       true, false, true},
      {"other constexprs",
       key("matmul_kernel", "__main__.matmul_kernel", "/ci/a/03-matmul.py", "[('*fp16', 'D')]",
           {{"BLOCK_M", "64"}}, {{"num_warps", "8"}}),
       true, false, false},
      {"a string constexpr is not the number",
       key("matmul_kernel", "__main__.matmul_kernel", "/ci/a/03-matmul.py", "[('*fp16', 'D')]",
           {{"BLOCK_M", "\"128\""}}, {{"num_warps", "8"}}),
       true, false, false},
      {"no qualname, same file: a file source too",
       key("matmul_kernel", "", "/ci/a/03-matmul.py", "[('*fp16', 'D')]", {{"BLOCK_M", "128"}},
           {{"num_warps", "8"}}),
       true, true, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(same_kernel(a, c.b), c.kernel);
    EXPECT_EQ(same_variant(a, c.b), c.variant);
    EXPECT_EQ(same_leftover(a, c.b), c.leftover);
    // The text keys say the same as the predicates.
    EXPECT_EQ(kernel_text(a) == kernel_text(c.b), c.kernel);
    EXPECT_EQ(kernel_text(a) == kernel_text(c.b) && variant_text(a) == variant_text(c.b), c.variant);
    EXPECT_EQ(kernel_text(a) == kernel_text(c.b) && leftover_text(a) == leftover_text(c.b),
              c.leftover);
  }
}

TEST(VariantKeyTest, SignatureIsTheKeysLeadingList) {
  EXPECT_EQ(signature_of_key("[('*fp16', 'D'), ('i32', '')]{'num_warps': 4}"),
            "[('*fp16', 'D'), ('i32', '')]");
  EXPECT_EQ(signature_of_key("no options here"), "no options here");
  EXPECT_EQ(signature_of_key(""), "");
}

TEST(VariantKeyTest, IdSpellsSortedJson) {
  VariantKey k = key("k", "", "", "", {{"B", "2"}, {"A", "\"x\""}}, {{"num_warps", "4"}});
  EXPECT_EQ(k.id(), "k|{\"A\": \"x\", \"B\": 2}|{\"num_warps\": 4}");
  k.constexprs = {{"q\"uote", "1"}};
  EXPECT_EQ(k.constexprs_text(), "{\"q\\\"uote\": 1}");
}

TEST(VariantKeyTest, SourceTails) {
  const VariantKey file = key("mm", "__main__.mm", "/ci/a/bench/gemm.py", "", {}, {});
  const VariantKey mod = key("mm", "pkg.ops.mm", "/ci/a/pkg/ops.py", "", {}, {});
  const VariantKey none = key("mm", "", "", "", {}, {});
  struct Case {
    const VariantKey* k;
    const char* tail;
    bool has;
  } cases[] = {
      {&file, "gemm.py", true},        {&file, "bench/gemm.py", true},
      {&file, "/ci/a/bench/gemm.py", true}, {&file, "gemm", true},
      {&file, "a.py", false},          {&file, "x/gemm.py", false},
      {&mod, "ops", true},             {&mod, "pkg.ops", true},
      {&mod, "pkg.ops.mm", true},      {&mod, "pkg", false},
      {&mod, "ops.py", false},         {&none, "gemm.py", false},
      {&none, "", true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.k->source() + " / " + c.tail);
    EXPECT_EQ(source_has_tail(*c.k, c.tail), c.has);
  }
  EXPECT_TRUE(compatible_sources(file, key("mm", "", "/home/x/bench/gemm.py", "", {}, {})));
  EXPECT_TRUE(compatible_sources(file, none));
  EXPECT_FALSE(compatible_sources(file, mod));
}

TEST(VariantKeyTest, LabelsTellKernelsOfOneNameApart) {
  const VariantKey a = key("mm", "__main__.mm", "/ci/a/bench.py", "", {}, {});
  const VariantKey b = key("mm", "__main__.mm", "/ci/b/bench.py", "", {}, {});
  const VariantKey c = key("add", "m.add", "", "", {}, {});
  auto labels = kernel_labels({{"mm", a.source(), &a}, {"mm", b.source(), &b}, {"add", c.source(), &c}});
  EXPECT_EQ(labels.size(), 2u);  // add is alone: its name is its label
  using Id = std::pair<std::string, std::string>;
  EXPECT_EQ(labels[Id("mm", a.source())], "mm (a/bench.py)");
  EXPECT_EQ(labels[Id("mm", b.source())], "mm (b/bench.py)");
  auto tails = kernel_source_tails({{"mm", a.source(), &a}, {"mm", b.source(), &b}});
  const std::string tail_a = tails[Id("mm", a.source())];
  EXPECT_EQ(tail_a, "a/bench.py");
  // A tail that kernel_source_tails shows names its source and not the other.
  EXPECT_TRUE(source_has_tail(a, tail_a));
  EXPECT_FALSE(source_has_tail(b, tail_a));
}

}  // namespace
}  // namespace ksnap::capture

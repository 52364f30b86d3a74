// The normalizer states where it gives less than its rules promise
// (Module::fallback), as the diff does: a global whose definition chain is
// too deep to resolve (metadata nested 450 deep) is named by its spelling,
// and the module says so.
#include <gtest/gtest.h>

#include "normalize/test_util.h"

namespace ksnap::norm {
namespace {

/// LLVM IR whose metadata is a chain of `n` nodes, each naming the next,
/// numbered from `first` (metadata numbers are names the normalizer
/// replaces by content: a node's canonical name is its content's hash).
std::string chain(int n, int first = 0) {
  std::string out = "define void @k(ptr %p) {\n  %v = load i32, ptr %p, !tbaa !" +
                    std::to_string(first) + "\n  ret void\n}\n";
  for (int i = 0; i < n; ++i)
    out += "!" + std::to_string(first + i) + " = !{!" + std::to_string(first + i + 1) + "}\n";
  out += "!" + std::to_string(first + n) + " = !{i32 0}\n";
  return out;
}

TEST(NormalizeFallback, OnlyADefinitionChainPastTheDepthLimitIsStated) {
  const struct {
    int length;
    bool stated;
  } cases[] = {{10, false}, {390, false}, {450, true}, {2000, true}};
  for (const auto& c : cases) {
    Module m = testing::norm_ok(chain(c.length), ir::Dialect::kLlvm);
    EXPECT_EQ(!m.fallback.empty(), c.stated) << c.length << ": " << m.fallback;
    if (!c.stated) continue;
    EXPECT_NE(m.fallback.find("named by spelling, not by definition"), std::string::npos);
    EXPECT_NE(m.fallback.find("definitions nested over 400 deep"), std::string::npos);
    EXPECT_NE(m.fallback.find("first: !"), std::string::npos) << m.fallback;
  }
}

TEST(NormalizeFallback, WithinTheLimitRenamingChangesNothing) {
  // The promise the fallback qualifies: below the limit, names do not matter.
  EXPECT_EQ(testing::hash_ok(chain(300, 0), ir::Dialect::kLlvm),
            testing::hash_ok(chain(300, 1000), ir::Dialect::kLlvm));
}

}  // namespace
}  // namespace ksnap::norm

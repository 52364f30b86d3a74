// Robustness on real dialects: every module of Triton's and Intel's XPU
// backend's lit tests (tests/fixtures/lit) normalizes without error, and the
// fast hash agrees with the full Module.
#include <gtest/gtest.h>

#include <map>

#include "ksnap/normalize/normalize.h"
#include "normalize/lit_util.h"

namespace ksnap::norm {
namespace {

TEST(LitTest, EveryModuleNormalizes) {
  std::vector<testing::LitModule> mods = testing::lit_modules();
  ASSERT_GT(mods.size(), 4000u);
  size_t ok = 0;
  for (const testing::LitModule& m : mods) {
    TextBuffer buf(m.name(), m.text);
    auto full = normalize(buf, ir::Dialect::kMlir);
    auto fast = normalized_hash(buf, ir::Dialect::kMlir);
    if (!full || !fast) {
      ADD_FAILURE() << m.name() << " (line " << m.first_line << "): "
                    << (full ? fast.status() : full.status()).to_string();
      continue;
    }
    EXPECT_EQ(full->hash, *fast) << m.name();
    ++ok;
  }
  std::cout << ok << " of " << mods.size() << " lit modules normalized\n";
}

}  // namespace
}  // namespace ksnap::norm

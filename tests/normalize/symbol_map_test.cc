#include "normalize/symbol_map.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ksnap::norm::detail {
namespace {

/// `prefix` + the number (appended: GCC 12 warns on `"lit" + std::string`).
std::string numbered(const char* prefix, int n) {
  std::string s = prefix;
  s += std::to_string(n);
  return s;
}

TEST(SymbolMapTest, FindsWhatItStored) {
  SymbolMap m;
  std::vector<std::string> keys = {"%x_3", "%offsets_1", "#blocked", "$L__BB0_2", "%12", "12",
                                   "%007", "%7", "!12", "#12", "%a_very_long_value_name_indeed"};
  for (uint32_t i = 0; i < keys.size(); ++i) EXPECT_EQ(m.find_or_insert(keys[i], i), i) << keys[i];
  for (uint32_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(m.find(keys[i]), i) << keys[i];
    EXPECT_EQ(m.find_or_insert(keys[i], 999), i) << keys[i];  // found, not replaced
  }
  EXPECT_EQ(m.size(), keys.size());
  EXPECT_EQ(m.find("%8"), SymbolMap::kMissing);
  EXPECT_EQ(m.find("%x_4"), SymbolMap::kMissing);
}

TEST(SymbolMapTest, NumberedNamesWithOtherSigilsOrLeadingZerosStayDistinct) {
  SymbolMap m;
  EXPECT_EQ(m.find_or_insert("%7", 1), 1u);
  EXPECT_EQ(m.find_or_insert("!7", 2), 2u);  // other sigil: hashed, not the array
  EXPECT_EQ(m.find_or_insert("7", 3), 3u);
  EXPECT_EQ(m.find_or_insert("%07", 4), 4u);
  EXPECT_EQ(m.find_or_insert("%999999999", 5), 5u);  // past the array limit
  EXPECT_EQ(m.find("%7"), 1u);
  EXPECT_EQ(m.find("!7"), 2u);
  EXPECT_EQ(m.find("7"), 3u);
  EXPECT_EQ(m.find("%07"), 4u);
  EXPECT_EQ(m.find("%999999999"), 5u);
}

TEST(SymbolMapTest, GrowsAndClears) {
  SymbolMap m;
  std::vector<std::string> keys;
  for (int i = 0; i < 5000; ++i) keys.push_back(numbered("%v", i));
  for (int i = 0; i < 5000; ++i) keys.push_back(numbered("%", i));
  for (uint32_t i = 0; i < keys.size(); ++i) m.find_or_insert(keys[i], i);
  for (uint32_t i = 0; i < keys.size(); ++i) ASSERT_EQ(m.find(keys[i]), i) << keys[i];
  m.clear();
  EXPECT_EQ(m.size(), 0u);
  for (const std::string& k : keys) EXPECT_EQ(m.find(k), SymbolMap::kMissing);
  EXPECT_EQ(m.find_or_insert("!3", 7), 7u);  // the array serves another sigil after clear()
  EXPECT_EQ(m.find("!3"), 7u);
}


// Scopes rebind and forget names: ref() overwrites, kHidden forgets, and a
// forgotten key never breaks the lookup of keys stored after it.
TEST(SymbolMapTest, RefRebindsAndHiddenForgets) {
  SymbolMap m;
  std::vector<std::string> keys;
  for (int i = 0; i < 600; ++i) keys.push_back(numbered("%name_", i));
  for (int i = 0; i < 600; ++i) keys.push_back(numbered("%", i));
  for (uint32_t i = 0; i < keys.size(); ++i) {
    uint32_t& v = m.ref(keys[i]);
    EXPECT_TRUE(SymbolMap::absent(v)) << keys[i];
    v = i;
  }
  for (uint32_t i = 0; i < keys.size(); i += 2) m.ref(keys[i]) = SymbolMap::kHidden;
  for (uint32_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(m.find(keys[i]), i % 2 ? i : SymbolMap::kMissing) << keys[i];
  }
  m.ref(keys[0]) = 7;  // rebinding a forgotten key
  EXPECT_EQ(m.find(keys[0]), 7u);
  EXPECT_EQ(m.find_or_insert(keys[2], 9), 9u);  // a forgotten key takes the new value
  EXPECT_EQ(m.find_or_insert(keys[1], 9), 1u);  // a live one keeps its own
}

}  // namespace
}  // namespace ksnap::norm::detail

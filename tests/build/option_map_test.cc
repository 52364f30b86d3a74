// build::OptionMap: equal compile-option maps share storage; a write copies
// a shared map first; a loaded build shares what is equal and nothing else.
#include "ksnap/build/option_map.h"

#include <gtest/gtest.h>

#include <set>

#include "ksnap/build/build.h"

namespace ksnap::build {
namespace {

TEST(OptionMapTest, EmptyReadsAsAnEmptyMap) {
  OptionMap m;
  EXPECT_TRUE(m.empty());
  EXPECT_EQ(m.size(), 0u);
  EXPECT_EQ(m.find("num_warps"), m.end());
  EXPECT_EQ(m.count("num_warps"), 0u);
  EXPECT_EQ(m, OptionMap(OptionMap::Map{}));
}

TEST(OptionMapTest, WriteCopiesASharedMapFirst) {
  OptionMap a{{"num_warps", "4"}, {"arch", "\"sm90\""}};
  OptionMap b = a;
  EXPECT_TRUE(OptionMap::same_storage(a, b));
  b["num_warps"] = "8";
  EXPECT_FALSE(OptionMap::same_storage(a, b));
  EXPECT_EQ(a.at("num_warps"), "4");
  EXPECT_EQ(b.at("num_warps"), "8");
  EXPECT_EQ(b.at("arch"), "\"sm90\"");
  // A map no one else holds is written in place.
  OptionMap c{{"x", "1"}};
  const std::string* before = &c.at("x");
  c["x"] = "2";
  EXPECT_EQ(&c.at("x"), before);
}

TEST(OptionMapTest, ShareEqualJoinsEqualMapsOnly) {
  struct Case {
    const char* name;
    std::vector<OptionMap::Map> maps;
    std::vector<int> storage;  // index of the first map each one shares with
  };
  const std::vector<Case> cases = {
      {"all equal", {{{"a", "1"}}, {{"a", "1"}}, {{"a", "1"}}}, {0, 0, 0}},
      {"all different", {{{"a", "1"}}, {{"a", "2"}}, {{"b", "1"}}}, {0, 1, 2}},
      {"interleaved", {{{"a", "1"}}, {{"a", "2"}}, {{"a", "1"}}, {{"a", "2"}}}, {0, 1, 0, 1}},
      // Keys and values that concatenate alike must not be confused.
      {"boundaries", {{{"ab", "c"}}, {{"a", "bc"}}, {{"a", "b"}, {"c", ""}}}, {0, 1, 2}},
      {"empty maps", {{}, {}, {{"a", ""}}}, {0, 0, 2}},
  };
  for (const Case& c : cases) {
    std::vector<OptionMap> maps(c.maps.begin(), c.maps.end());
    std::vector<OptionMap*> ptrs;
    for (OptionMap& m : maps) ptrs.push_back(&m);
    OptionMap::share_equal(ptrs);
    for (size_t i = 0; i < maps.size(); ++i) {
      EXPECT_EQ(maps[i].map(), c.maps[i]) << c.name << " #" << i;
      for (size_t j = 0; j < maps.size(); ++j)
        EXPECT_EQ(OptionMap::same_storage(maps[i], maps[j]), c.storage[i] == c.storage[j])
            << c.name << " #" << i << " #" << j;
    }
  }
}

TEST(OptionMapTest, APoolSharesEachMapAsItComesAndAWriteLaterStillCopies) {
  // A loader's order: read a variant's options, share them, move the
  // variant into the build (the OptionMap moves; the storage stays shared).
  OptionMap::Pool pool;
  std::vector<OptionMap> kept;
  for (const char* warps : {"4", "8", "4", "4", "8"}) {
    OptionMap m;
    m["num_warps"] = warps;
    m["arch"] = "\"sm90\"";
    pool.share(&m);
    kept.push_back(std::move(m));
  }
  EXPECT_TRUE(OptionMap::same_storage(kept[0], kept[2]));
  EXPECT_TRUE(OptionMap::same_storage(kept[0], kept[3]));
  EXPECT_TRUE(OptionMap::same_storage(kept[1], kept[4]));
  EXPECT_FALSE(OptionMap::same_storage(kept[0], kept[1]));
  // Even the only variant of a set shares with the pool: a write copies.
  kept[1]["num_warps"] = "16";
  EXPECT_EQ(kept[4].at("num_warps"), "8");
  EXPECT_EQ(kept[1].at("num_warps"), "16");
  // An empty map has no storage to share.
  OptionMap none;
  pool.share(&none);
  EXPECT_TRUE(none.empty());
}

TEST(OptionMapTest, LoadedBuildSharesEqualOptions) {
  // The bundled example (always present): 8 variants, a few option sets.
  auto b = load_build(std::string(KSNAP_SOURCE_DIR) + "/examples/corpus/base");
  ASSERT_TRUE(b) << b.status().to_string();
  std::set<const OptionMap::Map*> storages;
  std::set<OptionMap::Map> distinct;
  for (const Variant& v : b->variants) {
    storages.insert(&v.compile_options.map());
    distinct.insert(v.compile_options.map());
  }
  // One storage per distinct option set: fewer than the variants.
  EXPECT_EQ(storages.size(), distinct.size());
  EXPECT_LT(storages.size(), b->variants.size());
}

}  // namespace
}  // namespace ksnap::build

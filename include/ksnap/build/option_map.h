// build::OptionMap: a variant's recorded compile options (name -> JSON value
// text), stored once for all variants of a build that recorded the same ones.
//
// Worked example. A capture of 10,000 variants records 28 compile options
// per variant in `<kernel>.json`; they differ only in num_warps and
// num_stages, so the build has a handful of distinct option sets. After
// share_equal() (or, while loading, a Pool), variants with equal options
// point to one map: 10,000 maps
// of 28 nodes become a few (a suite diff's heap grows by about 5 KB less
// per variant: docs/benchmarks.md, "Where the memory goes").
//
//   OptionMap a{{"num_warps", "4"}, {"arch", "\"sm90\""}};
//   OptionMap b = a;          // shares a's map
//   b["num_warps"] = "8";     // b copies first; a still says 4
//
// Reads are those of a const std::map; a write through operator[] copies a
// shared map first (copy on write). Not synchronized: share and write before
// threads read, as the loaders do.
#pragma once

#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ksnap::build {

class OptionMap {
 public:
  using Map = std::map<std::string, std::string>;
  using const_iterator = Map::const_iterator;

  OptionMap() = default;
  OptionMap(Map m) : p_(std::make_shared<Map>(std::move(m))) {}  // NOLINT: a map is an OptionMap
  OptionMap(std::initializer_list<Map::value_type> l) : p_(std::make_shared<Map>(l)) {}

  /// The options as a map (an empty one when none were recorded).
  const Map& map() const;
  const_iterator begin() const { return map().begin(); }
  const_iterator end() const { return map().end(); }
  const_iterator find(const std::string& k) const { return map().find(k); }
  size_t count(const std::string& k) const { return map().count(k); }
  const std::string& at(const std::string& k) const { return map().at(k); }
  size_t size() const { return map().size(); }
  bool empty() const { return map().empty(); }
  /// The value of `k`, made when absent; copies a shared map first.
  std::string& operator[](const std::string& k);
  bool operator==(const OptionMap& o) const { return map() == o.map(); }
  bool operator!=(const OptionMap& o) const { return !(*this == o); }

  /// Whether `a` and `b` hold the very same storage (tests of sharing).
  static bool same_storage(const OptionMap& a, const OptionMap& b) { return a.p_ == b.p_; }
  /// Makes every map of `maps` that equals an earlier one share its storage.
  static void share_equal(const std::vector<OptionMap*>& maps);

  /// Equal maps met one at a time: a loader shares each variant's map as
  /// soon as it is read, so that a build never holds more than one unshared
  /// copy of a set of options, not even while it loads (at 100,000
  /// variants, 28 options each, that is about 500 MB). The pool keeps the
  /// maps it has seen alive until it is destroyed; a write to one of them
  /// meanwhile copies it first, as for any shared map.
  class Pool {
   public:
    /// Makes `m` share the storage of an equal map seen before, or remembers it.
    void share(OptionMap* m);

   private:
    std::unordered_map<uint64_t, std::vector<std::shared_ptr<Map>>> seen_;
  };

 private:
  std::shared_ptr<Map> p_;
};

}  // namespace ksnap::build

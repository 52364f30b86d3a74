// canonical.cc: canonical names, canonical_text() from a Module alone,
// op_counts() and call_counts().
#include <gtest/gtest.h>

#include "ksnap/support/hash.h"
#include "normalize/test_util.h"

namespace ksnap::norm {
namespace {

TEST(CanonicalTest, NamesPerClassAndMask) {
  struct Case {
    SymbolClass cls;
    std::string mask;
    uint64_t canonical;
    std::string want;
  };
  const Case kCases[] = {
      {SymbolClass::kValue, "%_", 3, "%v3"},
      {SymbolClass::kValue, "%rd", 12, "%rd12"},
      {SymbolClass::kBlock, "^", 0, "^b0"},
      {SymbolClass::kBlock, "$L", 4, "$L4"},
      {SymbolClass::kAlias, "#blocked", 0xab, "#a00000000000000ab"},
      {SymbolClass::kAlias, "!alias", 0x1, "!a0000000000000001"},
      {SymbolClass::kMetadata, "!md", 0xffffffffffffffffull, "!mffffffffffffffff"},
      {SymbolClass::kAttrGroup, "#attrs", 0x10, "#g0000000000000010"},
  };
  for (const Case& c : kCases) {
    Symbol s;
    s.cls = c.cls;
    s.canonical = c.canonical;
    EXPECT_EQ(canonical_name(s, c.mask), c.want);
  }
}

TEST(CanonicalTest, TextFromAHandBuiltModule) {
  // canonical_text works from Module fields alone, so a Module from another
  // source (a store, a test) prints the same way.
  Module m;
  m.symbols = {Symbol{"%x", SymbolClass::kValue, 1, 0}, Symbol{"%y", SymbolClass::kValue, 1, 1},
               Symbol{"#b", SymbolClass::kAlias, -1, 0x2}, Symbol{"#c", SymbolClass::kAlias, -1, 0x1}};
  // Hand-built lines view references that outlive them (m.refs here, as a
  // Module from normalize() does). SymbolRef: id, offset, length,
  // shape_offset, shape_length, is_def.
  m.refs = {SymbolRef{2, 0, 2, 0, 2, true}, SymbolRef{3, 0, 2, 0, 2, true},
            SymbolRef{1, 0, 2, 0, 2, true}, SymbolRef{0, 0, 2, 8, 2, false},
            SymbolRef{2, 0, 2, 13, 2, false}};
  const std::span<const SymbolRef> refs(m.refs);
  Unit u0;
  Line d1;
  d1.shape = "#b = #ttg.x";
  d1.symbols = refs.subspan(0, 1);
  d1.order_free = true;
  Line d2 = d1;
  d2.symbols = refs.subspan(1, 1);
  u0.lines = {d1, d2};
  Unit u1;
  Line l;
  l.shape = "%_ = op %_ : #b";
  l.symbols = refs.subspan(2, 3);
  l.op = "op";
  u1.lines = {l, l};
  m.units = {u0, u1};
  EXPECT_EQ(canonical_unit_text(m, m.units[0]),
            "#a0000000000000001 = #ttg.x\n#a0000000000000002 = #ttg.x\n");
  EXPECT_EQ(canonical_text(m),
            "#a0000000000000001 = #ttg.x\n#a0000000000000002 = #ttg.x\n"
            "%v1 = op %v0 : #a0000000000000002\n%v1 = op %v0 : #a0000000000000002\n");
  EXPECT_EQ(op_counts(m), (std::map<std::string, int64_t>{{"op", 2}}));
  EXPECT_TRUE(call_counts(m).empty());
}

TEST(CanonicalTest, ModuleTextEqualsEngineText) {
  Module m = testing::norm_ok(
      "#b = #ttg.blocked<{order = [0]}>\ntt.func @k(%a: tensor<4xi32, #b>) {\n"
      "  %0 = tt.call @f(%a) : (tensor<4xi32, #b>) -> i32\n  %1 = tt.call @f(%a) : "
      "(tensor<4xi32, #b>) -> i32\n}\n",
      ir::Dialect::kMlir);
  EXPECT_EQ(hash64(canonical_text(m)), m.hash);
  EXPECT_EQ(call_counts(m), (std::map<std::string, int64_t>{{"f", 2}}));
  EXPECT_EQ(op_counts(m)["tt.call"], 2);
  EXPECT_EQ(op_counts(m)["tt.func"], 1);
}

}  // namespace
}  // namespace ksnap::norm

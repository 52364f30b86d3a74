// Hostile cubin / hsaco / msgpack input: each case breaks one field of a real
// binary (tests/fixtures) and must give a located error naming the file and
// the byte offset, never a crash or a huge allocation.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>

#include "ksnap/binary/elf.h"
#include "ksnap/binary/msgpack.h"
#include "ksnap/binary/resources.h"
#include "ksnap/support/file.h"

namespace ksnap::binary {
namespace {

const std::string kCubin = std::string(KSNAP_SOURCE_DIR) + "/tests/fixtures/sass/cuda_sm80.cubin";
const std::string kHsaco =
    std::string(KSNAP_SOURCE_DIR) +
    "/tests/fixtures/recompile/hipA/cache/4GWRL4LMZ2HYJ6DME5MEQGEWXQ7OIXSI2HLZVL64DRXNT6D4MWAA/"
    "softmax_kernel.hsaco";

std::string slurp(const std::string& path) {
  auto b = read_binary_file(path);
  EXPECT_TRUE(b.has_value()) << path;
  return b ? *b : std::string();
}

template <typename T>
void put(std::string* b, uint64_t at, T v) {
  ASSERT_TRUE(in_bounds(b->size(), at, sizeof(T)));
  for (size_t i = 0; i < sizeof(T); ++i) (*b)[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

/// The byte offset of section `name`'s header in `b`.
uint64_t header_of(const std::string& b, const std::string& path, const std::string& name) {
  auto elf = Elf::parse(b, path);
  EXPECT_TRUE(elf.has_value());
  uint64_t shoff = 0;
  read_u64(b, 40, &shoff);
  const Section* s = elf->find(name);
  EXPECT_NE(s, nullptr) << name;
  return shoff + (s ? s->index : 0) * 64;
}

struct Case {
  const char* name;
  const std::string* file;
  const char* kernel;
  std::function<void(std::string*)> mutate;
  const char* message;  ///< A part of the expected error message.
};

TEST(HostileBinary, EachBrokenFieldGivesALocatedError) {
  const std::string cubin = slurp(kCubin), hsaco = slurp(kHsaco);
  auto section = [&](const std::string& name) { return header_of(cubin, kCubin, name); };
  auto note = [&]() {
    auto elf = Elf::parse(hsaco, kHsaco);
    for (const Section& s : elf->sections())
      if (s.type == kSectionNote) return s.offset;
    return uint64_t{0};
  };
  const uint64_t nv_info = Elf::parse(cubin, kCubin)->find(".nv.info")->offset;
  // The first 12-byte SVAL attribute (a KPARAM_INFO) of .nv.info.saxpy.
  auto twelve_byte_attribute = [&]() {
    auto elf = Elf::parse(cubin, kCubin);  // kept: find() points into it
    const Section* s = elf->find(".nv.info.saxpy");
    uint64_t at = s->offset, end = s->offset + s->size;
    while (at + 4 <= end) {
      uint16_t size = 0;
      read_u16(cubin, at + 2, &size);
      if (cubin[at] == 4 && size == 12) return at;
      at += 4 + (cubin[at] == 4 ? size : 0);
    }
    ADD_FAILURE() << "no 12-byte attribute in .nv.info.saxpy";
    return uint64_t{0};
  };
  const std::vector<Case> cases = {
      {"not elf", &cubin, "saxpy", [](std::string* b) { (*b)[1] = 'X'; }, "not an ELF file"},
      {"header truncated", &cubin, "saxpy", [](std::string* b) { b->resize(40); },
       "ELF header truncated"},
      {"32-bit", &cubin, "saxpy", [](std::string* b) { (*b)[4] = 1; }, "not a 64-bit"},
      {"big-endian", &cubin, "saxpy", [](std::string* b) { (*b)[5] = 2; }, "not a little-endian"},
      {"section table past the end", &cubin, "saxpy",
       [](std::string* b) { put<uint64_t>(b, 40, uint64_t{1} << 62); }, "section table"},
      {"huge section count", &cubin, "saxpy", [](std::string* b) { put<uint16_t>(b, 60, 0xffff); },
       "runs past the end of the file"},
      {"section table offset wraps", &cubin, "saxpy",
       [](std::string* b) { put<uint64_t>(b, 40, ~uint64_t{0} - 10); }, "section table"},
      {"section bytes past the end", &cubin, "saxpy",
       [&](std::string* b) { put<uint64_t>(b, section(".nv.info") + 24, b->size() - 4); },
       "runs past the end of the file"},
      {"huge section size", &cubin, "saxpy",
       [&](std::string* b) { put<uint64_t>(b, section(".nv.info") + 32, ~uint64_t{0}); },
       "runs past the end of the file"},
      {"overlapping sections", &cubin, "saxpy",
       [&](std::string* b) { put<uint64_t>(b, section(".nv.info.saxpy") + 24, nv_info); },
       "overlaps"},
      {"section name outside the table", &cubin, "saxpy",
       [&](std::string* b) { put<uint32_t>(b, section(".nv.info"), 0xfffffff0u); },
       "name outside the name table"},
      {"name table index out of range", &cubin, "saxpy",
       [](std::string* b) { put<uint16_t>(b, 62, 999); }, "section-name table index"},
      {"attribute size past the section", &cubin, "saxpy",
       [&](std::string* b) {
         (*b)[nv_info] = 4;
         put<uint16_t>(b, nv_info + 2, 0xffff);
       },
       "runs past the end of the section"},
      {"unknown attribute format", &cubin, "saxpy", [&](std::string* b) { (*b)[nv_info] = 9; },
       "unknown attribute format"},
      {"thread count past int64", &cubin, "saxpy",
       [&](std::string* b) {
         const uint64_t at = twelve_byte_attribute();
         (*b)[at + 1] = 0x05;  // EIATTR_MAX_THREADS
         for (int i = 0; i < 12; ++i) (*b)[at + 4 + i] = static_cast<char>(0xff);
       },
       "thread count 4294967295x4294967295x4294967295 is out of range"},
      {"symbol table links nowhere", &cubin, "saxpy",
       [&](std::string* b) { put<uint32_t>(b, section(".symtab") + 40, 999); },
       "missing string table"},
      {"kernel not in the cubin", &cubin, "no_such_kernel", [](std::string*) {},
       "no section .text.no_such_kernel"},
      {"note past the section", &hsaco, "softmax_kernel",
       [&](std::string* b) { put<uint32_t>(b, note() + 4, 0x7fffffff); }, "note runs past the end"},
      {"bad msgpack in the metadata", &hsaco, "softmax_kernel",
       [&](std::string* b) {
         uint32_t namesz = 0;
         read_u32(*b, note(), &namesz);
         (*b)[note() + 12 + ((namesz + 3) & ~3u)] = static_cast<char>(0xc1);
       },
       "unknown type byte"},
      {"vgpr count out of range", &hsaco, "softmax_kernel",
       [&](std::string* b) {
         // ".vgpr_count" then a positive fixint: make it a negative fixint.
         const size_t key = b->find(".vgpr_count");
         ASSERT_NE(key, std::string::npos);
         const size_t value = key + std::strlen(".vgpr_count");
         ASSERT_LT(static_cast<uint8_t>((*b)[value]), 0x80);
         (*b)[value] = static_cast<char>(0xff);  // -1
       },
       "-1 is out of range for \".vgpr_count\" (0 to 2^48)"},
      {"kernel not in the hsaco", &hsaco, "no_such_kernel", [](std::string*) {},
       "no AMDGPU metadata"},
  };
  for (const Case& c : cases) {
    std::string b = *c.file;
    c.mutate(&b);
    const std::string& path = c.file == &cubin ? kCubin : kHsaco;
    auto r = read_kernel_resources(b, c.kernel, path);
    ASSERT_FALSE(r.has_value()) << c.name;
    EXPECT_NE(r.status().message().find(c.message), std::string::npos)
        << c.name << ": " << r.status().to_string();
    EXPECT_EQ(r.status().location().file, path) << c.name;
  }
}

// Every prefix of a real cubin and hsaco: an error or a result, never a
// crash (ASan runs this in scripts/test.sh).
TEST(HostileBinary, EveryTruncationIsHandled) {
  for (const auto& [path, kernel] :
       {std::pair{kCubin, "saxpy"}, std::pair{kHsaco, "softmax_kernel"}}) {
    const std::string b = slurp(path);
    int errors = 0;
    for (size_t n = 0; n < b.size(); ++n) {
      auto r = read_kernel_resources(std::string_view(b).substr(0, n), kernel, path);
      if (!r.has_value()) {
        ++errors;
        EXPECT_EQ(r.status().location().file, path);
      }
    }
    EXPECT_GT(errors, 0) << path;
    EXPECT_TRUE(read_kernel_resources(b, kernel, path).has_value()) << path;
  }
}

struct MsgpackCase {
  const char* name;
  std::string bytes;
  const char* message;
};

TEST(HostileBinary, MsgpackRefusesBadDocuments) {
  const std::vector<MsgpackCase> cases = {
      {"nesting too deep", std::string(100, '\x91') + "\xc0", "nesting deeper than 32"},
      {"array count above the bytes left", "\xdd\xff\xff\xff\xff", "longer than the bytes left"},
      {"map count above the bytes left", "\xdf\x7f\xff\xff\xff\xa1k", "longer than the bytes left"},
      {"string past the end",
       "\xa5"
       "ab",
       "string runs past the end"},
      {"str32 length past the end", "\xdb\xff\xff\xff\xff", "string runs past the end"},
      {"integer truncated", "\xcf\x01\x02", "integer truncated"},
      {"extension past the end", "\xc9\xff\xff\xff\xff\x01", "value runs past the end"},
      {"reserved type byte", "\xc1", "unknown type byte"},
      {"trailing bytes", "\xc0\xc0", "trailing bytes"},
      {"empty", "", "value truncated"},
  };
  for (const MsgpackCase& c : cases) {
    auto v = msgpack::parse(c.bytes);
    ASSERT_FALSE(v.has_value()) << c.name;
    EXPECT_NE(v.status().message().find(c.message), std::string::npos)
        << c.name << ": " << v.status().message();
  }
}

TEST(HostileBinary, MsgpackReadsMapsIntegersAndStrings) {
  using namespace std::string_literals;  // the document holds NUL bytes
  // {"a": -3, "b": "xy", "c": [1, 65535], "d": 4294967296}
  const std::string doc =
      "\x84\xa1"
      "a\xfd\xa1"
      "b\xa2xy\xa1"
      "c\x92\x01\xcd\xff\xff\xa1"
      "d\xcf\x00\x00\x00\x01\x00\x00\x00\x00"s;
  auto v = msgpack::parse(doc);
  ASSERT_TRUE(v.has_value()) << v.status().message();
  int64_t n = 0;
  std::string s;
  EXPECT_TRUE(v->integer_at("a", &n));
  EXPECT_EQ(n, -3);
  EXPECT_TRUE(v->string_at("b", &s));
  EXPECT_EQ(s, "xy");
  ASSERT_NE(v->find("c"), nullptr);
  EXPECT_EQ(v->find("c")->items.at(1).integer, 65535);
  EXPECT_TRUE(v->integer_at("d", &n));
  EXPECT_EQ(n, int64_t{1} << 32);
  EXPECT_FALSE(v->integer_at("missing", &n));
}

}  // namespace
}  // namespace ksnap::binary

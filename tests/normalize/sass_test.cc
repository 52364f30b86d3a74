// SASS normalization on real SASS: tests/fixtures/sass holds nvdisasm and
// cuobjdump text of cubins nvcc 13.0 built from gpu/recompile/sass_kernels.cu
// (sm_90, sm_80, and sm_90 of a changed source) and of two Triton 3.6 cubins
// of tests/fixtures/gpu_capture, disassembled on the H200 machine.
#include <gtest/gtest.h>

#include <regex>

#include "ksnap/normalize/normalize.h"

namespace ksnap::norm {
namespace {

std::string fixture(const std::string& name) {
  return std::string(KSNAP_SOURCE_DIR) + "/tests/fixtures/sass/" + name;
}

TextBuffer load(const std::string& name) {
  auto b = read_text_file(fixture(name));
  EXPECT_TRUE(b) << b.status().to_string();
  return std::move(*b);
}

Module norm(const TextBuffer& t, const NormalizeOptions& o = {}) {
  auto m = normalize(t, ir::Dialect::kSass, o);
  EXPECT_TRUE(m) << m.status().to_string();
  return m ? std::move(*m) : Module{};
}

TextBuffer edited(const std::string& name, const std::function<std::string(std::string)>& f) {
  TextBuffer t = load(name);
  return TextBuffer(name + "(edited)", f(std::string(t.view())));
}

std::vector<std::string> unit_names(const Module& m) {
  std::vector<std::string> out;
  for (const Unit& u : m.units) out.push_back(u.name);
  return out;
}

TEST(SassTest, StageMapsToTheSassDialect) {
  ir::Dialect d;
  ASSERT_TRUE(ir::dialect_for_stage("sass", &d));
  EXPECT_EQ(d, ir::Dialect::kSass);
  EXPECT_STREQ(ir::dialect_name(d), "sass");
}

struct FileCase {
  std::string file;
  std::vector<std::string> units;  // "" = module level
  size_t min_ops;
};

class SassFiles : public ::testing::TestWithParam<FileCase> {};

TEST_P(SassFiles, NormalizeWithoutAddressesOrEncodings) {
  const FileCase& c = GetParam();
  TextBuffer t = load(c.file);
  Module m = norm(t);
  EXPECT_EQ(unit_names(m), c.units);
  std::string canon = canonical_text(m);
  EXPECT_EQ(canon.find("/*0"), std::string::npos);  // addresses gone
  EXPECT_EQ(canon.find("/* 0x"), std::string::npos);  // encodings gone
  int64_t ops = 0;
  for (const auto& [op, n] : op_counts(m)) ops += n;
  EXPECT_GE(static_cast<size_t>(ops), c.min_ops);
  EXPECT_GT(m.resources.at("sass.R.used"), 0);
  // The hash path agrees with the full normalization.
  auto h = normalized_hash(t, ir::Dialect::kSass);
  ASSERT_TRUE(h);
  EXPECT_EQ(*h, m.hash);
}

INSTANTIATE_TEST_SUITE_P(
    Real, SassFiles,
    ::testing::Values(
        FileCase{"cuda_sm90.nvdisasm.sass", {"", "clamp_scale", "block_sum", "saxpy"}, 60},
        FileCase{"cuda_sm90.cuobjdump.sass", {"", "clamp_scale", "block_sum", "saxpy"}, 60},
        FileCase{"cuda_sm80.nvdisasm.sass", {"", "clamp_scale", "block_sum", "saxpy"}, 60},
        FileCase{"triton_softmax_sm90.nvdisasm.sass", {"", "softmax_kernel"}, 50},
        FileCase{"triton_softmax_sm90.cuobjdump.sass", {"", "softmax_kernel"}, 50},
        FileCase{"triton_matmul_sm90.nvdisasm.sass", {"", "matmul_kernel"}, 300},
        FileCase{"triton_matmul_sm90.cuobjdump.sass", {"", "matmul_kernel"}, 300}),
    [](const auto& info) {
      std::string n = info.param.file;
      for (char& ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return n;
    });

TEST(SassTest, NvdisasmAndCuobjdumpGiveTheSameInstructionMix) {
  for (const char* base : {"cuda_sm90", "triton_softmax_sm90", "triton_matmul_sm90"}) {
    Module a = norm(load(std::string(base) + ".nvdisasm.sass"));
    Module b = norm(load(std::string(base) + ".cuobjdump.sass"));
    auto oa = op_counts(a), ob = op_counts(b);
    EXPECT_EQ(oa, ob) << base;
    EXPECT_EQ(a.resources.at("sass.R.used"), b.resources.at("sass.R.used")) << base;
  }
}

/// Adds `k` to every general-purpose register number: a different allocation
/// of the same code (R7 -> R12 throughout).
std::string shift_registers(std::string s, int k) {
  std::regex reg(R"(\bR(\d+)\b)");
  std::string out;
  auto it = std::sregex_iterator(s.begin(), s.end(), reg);
  size_t last = 0;
  for (; it != std::sregex_iterator(); ++it) {
    out += s.substr(last, it->position() - last);
    out += "R" + std::to_string(std::stoi((*it)[1]) + k);
    last = it->position() + it->length();
  }
  return out + s.substr(last);
}

TEST(SassTest, RegisterRenumberingIsNoChangeUnlessValuesAreKept) {
  TextBuffer a = load("triton_softmax_sm90.nvdisasm.sass");
  TextBuffer b = edited("triton_softmax_sm90.nvdisasm.sass",
                        [](std::string s) { return shift_registers(std::move(s), 7); });
  EXPECT_EQ(norm(a).hash, norm(b).hash);
  NormalizeOptions keep;
  keep.rename_values = false;
  EXPECT_NE(norm(a, keep).hash, norm(b, keep).hash);
  // The figure does see the higher numbers.
  EXPECT_EQ(norm(b).resources.at("sass.R.used"), norm(a).resources.at("sass.R.used") + 7);
}

TEST(SassTest, ShiftedAddressesAndRenumberedLabelsAreNoChange) {
  TextBuffer a = load("cuda_sm90.nvdisasm.sass");
  TextBuffer b = edited("cuda_sm90.nvdisasm.sass", [](std::string s) {
    s = std::regex_replace(s, std::regex(R"(/\*0([0-9a-f]{3})\*/)"), "/*1$1*/");
    return std::regex_replace(s, std::regex(R"(\.L_x_(\d+))"), ".L_x_9$1");
  });
  EXPECT_EQ(norm(a).hash, norm(b).hash);
  NormalizeOptions keep;
  keep.rename_blocks = false;
  EXPECT_NE(norm(a, keep).hash, norm(b, keep).hash);
}

TEST(SassTest, ARealSourceChangeShowsInTheInstructionMix) {
  // sass_kernels.cu with `acc += in[i] * 2.f` in block_sum: an FADD becomes an FFMA.
  Module a = norm(load("cuda_sm90.nvdisasm.sass"));
  Module b = norm(load("cuda_sm90_changed.nvdisasm.sass"));
  EXPECT_NE(a.hash, b.hash);
  auto oa = op_counts(a), ob = op_counts(b);
  EXPECT_NE(oa, ob);
  std::map<std::string, int64_t> delta;
  for (const auto& [op, n] : ob) delta[op] += n;
  for (const auto& [op, n] : oa) delta[op] -= n;
  int64_t moved = 0;
  for (const auto& [op, n] : delta) moved += n < 0 ? -n : n;
  EXPECT_GT(moved, 0);
  // Only block_sum changed; the other two functions hash the same.
  for (size_t u = 0; u < a.units.size(); ++u) {
    ASSERT_EQ(a.units[u].name, b.units[u].name);
    if (a.units[u].name == "block_sum") {
      EXPECT_NE(a.units[u].hash, b.units[u].hash);
    } else if (!a.units[u].name.empty()) {
      EXPECT_EQ(a.units[u].hash, b.units[u].hash) << a.units[u].name;
    }
  }
}

TEST(SassTest, RegisterCountsFromSectionInfo) {
  // nvdisasm prints SHI_REGISTERS for sm_80 (8 + 12 + 10 over the three
  // functions, as `cuobjdump -res-usage` says: cuda_sm80.res-usage.txt).
  Module m = norm(load("cuda_sm80.nvdisasm.sass"));
  EXPECT_EQ(m.resources.at("sass.registers"), 30);
}

TEST(SassTest, GuardsAndDestinationsAreSymbols) {
  TextBuffer t("k.sass",
               "k:\n"
               "        /*0000*/                   ISETP.GE.AND P0, PT, R5, UR4, PT ;\n"
               "        /*0010*/              @!P0 BRA `(.L_x_0) ;\n"
               "        /*0020*/                   FFMA R5, R2.reuse, R4, R5 ;\n"
               ".L_x_0:\n"
               "        /*0030*/                   EXIT ;\n");
  Module m = norm(t);
  ASSERT_EQ(m.units.size(), 2u);
  const Unit& u = m.units[1];
  ASSERT_EQ(u.lines.size(), 6u);  // k:, 3 instructions, .L_x_0:, EXIT
  EXPECT_EQ(u.lines[1].shape, "ISETP.GE.AND P , PT , R , UR , PT ;");
  EXPECT_EQ(u.lines[1].op, "ISETP.GE.AND");
  EXPECT_TRUE(u.lines[1].symbols[0].is_def);   // P0 written
  EXPECT_FALSE(u.lines[1].symbols[1].is_def);  // R5 read
  EXPECT_EQ(u.lines[2].shape, "@ ! P BRA ` ( .L ) ;");
  EXPECT_EQ(u.lines[2].op, "BRA");
  EXPECT_EQ(u.lines[3].shape, "FFMA R , R.reuse , R , R ;");
  EXPECT_EQ(u.lines[4].shape, ".L:");
  EXPECT_EQ(u.lines[5].op, "EXIT");
}

TEST(SassTest, CuobjdumpBranchTargetsAreNumberedLikeLabels) {
  auto text = [](const char* target) {
    return std::string("\t\tFunction : k\n") + "        /*0000*/   @P0 BRA " + target +
           " ;   /* 0x000000000000094d */\n" + "        /*0010*/   EXIT ;\n";
  };
  TextBuffer a("a.sass", text("0x10")), b("b.sass", text("0x30"));
  EXPECT_EQ(norm(a).hash, norm(b).hash);
}

TEST(SassTest, MalformedInputIsAnErrorNamingTheLine) {
  TextBuffer t("bad.sass", "k:\n        /*0000*/   LDC R1, c[0x0][0x28 ;\n");
  auto m = normalize(t, ir::Dialect::kSass);
  ASSERT_FALSE(m);
  EXPECT_NE(m.status().to_string().find("bad.sass:2"), std::string::npos) << m.status().to_string();
}

}  // namespace
}  // namespace ksnap::norm

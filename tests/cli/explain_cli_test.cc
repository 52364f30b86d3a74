// `ksnap explain`: the real binary on dump streams made of real Triton 3.6
// IR (examples/corpus: `no_licm` is matmul_kernel compiled with TritonLICM
// off), in text and JSON, the exit codes, located errors for a bad stream,
// and the variant selection on two captures (no compile: a variant that
// matches nothing, or several, is a usage error before any plugin runs).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli_util.h"

namespace ksnap::cli_test {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string corpus_file(const std::string& build, const std::string& prefix,
                        const std::string& file) {
  for (auto& p : fs::directory_iterator(std::string(KSNAP_EXAMPLE_DIR) + "/" + build + "/cache"))
    if (p.path().filename().string().rfind(prefix, 0) == 0) return slurp(p.path() / file);
  ADD_FAILURE() << build << " " << prefix;
  return "";
}

std::string before(const std::string& pass, const std::string& arg, const std::string& ir) {
  return "// -----// IR Dump Before " + pass + " (" + arg +
         ") ('builtin.module' operation) //----- //\n" + ir + "\n";
}

class ExplainCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ksnap_explain_cli_" + std::to_string(getpid()));
    fs::create_directories(dir_);
    std::string ttir = corpus_file("base", "MAW3QIX7", "matmul_kernel.ttir");
    std::string pre = corpus_file("no_licm", "MAW3QIX7", "matmul_kernel.ttgir");
    std::string post = corpus_file("base", "MAW3QIX7", "matmul_kernel.ttgir");
    auto stream = [&](const std::string& after_licm) {
      return "/work/bench.py:3: UserWarning: printed before the dumps\n" +
             before("Inliner", "inline", ttir) +
             before("ConvertTritonToTritonGPU", "convert-triton-to-tritongpu", ttir) +
             before("TritonLICM", "triton-licm", pre) +
             before("Canonicalizer", "canonicalize", after_licm);
    };
    write("base.log", stream(post));
    write("head.log", stream(pre));
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
  }
  std::string dumps(const std::string& b, const std::string& h) const {
    return "explain --base-dump " + path(b) + " --head-dump " + path(h);
  }

  fs::path dir_;
};

TEST_F(ExplainCli, NamesThePassInText) {
  CmdResult r = run(dumps("base.log", "head.log"));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("First difference: triton-licm (TritonLICM, mlir)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("its input is the same on both sides (after convert-triton-to-tritongpu)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("@@ -"), std::string::npos);
  EXPECT_NE(r.out.find("- %b_ptrs_35 = arith.muli %stride_bk, %c32_i32 : i32"), std::string::npos)
      << r.out;
  // --exit-code: 1 when a pass differs, 0 when none does.
  EXPECT_EQ(run(dumps("base.log", "head.log") + " --exit-code").rc, 1);
  CmdResult same = run(dumps("base.log", "base.log") + " --exit-code");
  EXPECT_EQ(same.rc, 0) << same.err;
  EXPECT_NE(same.out.find("No pass output differs (4 compared equal"), std::string::npos)
      << same.out;
}

TEST_F(ExplainCli, JsonNamesThePassAndItsDiff) {
  CmdResult r = run(dumps("base.log", "head.log") + " --format json");
  ASSERT_EQ(r.rc, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "ksnap-explain");
  EXPECT_EQ(j["found"], true);
  EXPECT_EQ(j["equal_before"], 3);  // input of inline, inline, convert-triton-to-tritongpu
  const auto& d = j["first_difference"];
  EXPECT_EQ(d["label"], "triton-licm");
  EXPECT_EQ(d["pass"], "TritonLICM");
  EXPECT_EQ(d["dialect"], "mlir");
  EXPECT_TRUE(d["only_in"].is_null());
  EXPECT_EQ(d["inputs_equal"], true);
  EXPECT_GT(d["lines_removed"].get<int>(), 0);
  ASSERT_FALSE(d["hunks"].empty());
  EXPECT_EQ(j["base"]["pass_outputs"], 4);
}

TEST_F(ExplainCli, BadStreamsAreLocatedInputErrors) {
  write("bad.log", "x\n// -----// IR Dump Before Inliner (inline) ('builtin.module' operation)\n");
  CmdResult r = run(dumps("base.log", "bad.log"));
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find(path("bad.log") + ":2:1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("closing"), std::string::npos) << r.err;
  CmdResult missing = run(dumps("base.log", "nope.log"));
  EXPECT_EQ(missing.rc, 2);
  EXPECT_NE(missing.err.find("nope.log"), std::string::npos) << missing.err;
  EXPECT_EQ(run("explain --base-dump " + path("base.log")).rc, 2);  // one side alone
  EXPECT_EQ(run(dumps("base.log", "head.log") + " --format yaml").rc, 2);
}

TEST_F(ExplainCli, VariantSelectionOnCaptures) {
  std::string base = std::string(KSNAP_EXAMPLE_DIR) + "/base";
  std::string head = std::string(KSNAP_EXAMPLE_DIR) + "/no_licm";
  CmdResult none = run("explain " + base + " " + head + " --variant no_such_kernel");
  EXPECT_EQ(none.rc, 2);
  EXPECT_NE(none.err.find("no variant of both builds matches"), std::string::npos) << none.err;
  // Two matmul variants differ between the builds: listed, --pick chooses.
  CmdResult many = run("explain " + base + " " + head + " --variant matmul_kernel");
  EXPECT_EQ(many.rc, 2);
  EXPECT_NE(many.err.find("add --pick N"), std::string::npos) << many.err;
  EXPECT_NE(many.err.find("1. matmul_kernel {BLOCK_SIZE_K=32"), std::string::npos) << many.err;
  EXPECT_EQ(run("explain " + base + " " + head + " --variant matmul_kernel --pick 9").rc, 2);
  EXPECT_EQ(run("explain " + base).rc, 2);  // no HEAD, no --variant
}

}  // namespace
}  // namespace ksnap::cli_test

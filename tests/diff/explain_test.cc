// ksnap explain: the pass-dump parser (MLIR and LLVM headers, real-looking
// streams) and the first-differing-pass search, on dump streams made of real
// Triton 3.6 IR (examples/corpus): the `no_licm` build is the same kernel
// compiled with TritonLICM disabled, `noise` the same kernels with
// cosmetic-only differences (names, paths, line numbers).
#include "ksnap/diff/explain.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "ksnap/support/file.h"

namespace ksnap::diff {
namespace {

namespace fs = std::filesystem;

std::string read(const std::string& path) {
  auto b = read_text_file(path);
  EXPECT_TRUE(b) << path;
  return b ? std::string(b->view()) : std::string();
}

/// The stage file of `kernel` with these leading cache-folder characters.
std::string corpus(const std::string& build, const std::string& dir_prefix,
                   const std::string& file) {
  for (auto& p : fs::directory_iterator(std::string(KSNAP_EXAMPLE_DIR) + "/" + build + "/cache"))
    if (p.path().filename().string().rfind(dir_prefix, 0) == 0)
      return read((p.path() / file).string());
  ADD_FAILURE() << build << "/" << dir_prefix << "/" << file;
  return "";
}

std::string mlir_before(const std::string& pass, const std::string& arg, const std::string& ir) {
  return "// -----// IR Dump Before " + pass + " (" + arg +
         ") ('builtin.module' operation) //----- //\n" + ir + "\n\n";
}

// ---------------------------------------------------------------------------
// Headers
// ---------------------------------------------------------------------------

struct HeaderCase {
  const char* line;
  bool before;
  DumpDialect dialect;
  const char* pass;
  const char* argument;
  const char* scope;
  bool failed;
};

TEST(ExplainParse, HeadersOfEveryPrinter) {
  const HeaderCase cases[] = {
      {"// -----// IR Dump Before TritonGPUCoalesce (tritongpu-coalesce) ('builtin.module' "
       "operation) //----- //",
       true, DumpDialect::kMlir, "TritonGPUCoalesce", "tritongpu-coalesce", "builtin.module",
       false},
      {"// -----// IR Dump After Canonicalizer (canonicalize) ('tt.func' operation: "
       "@matmul_kernel) "
       "//----- //",
       false, DumpDialect::kMlir, "Canonicalizer", "canonicalize", "tt.func @matmul_kernel", false},
      {"// -----// IR Dump After TritonGPUPipeline Failed (tritongpu-pipeline) ('builtin.module' "
       "operation) //----- //",
       false, DumpDialect::kMlir, "TritonGPUPipeline", "tritongpu-pipeline", "builtin.module",
       true},
      {"// -----// IR Dump Before CSE (cse) //----- //", true, DumpDialect::kMlir, "CSE", "cse", "",
       false},
      {"; *** IR Dump After InstCombinePass on matmul_kernel ***", false, DumpDialect::kLlvm,
       "InstCombinePass", "", "matmul_kernel", false},
      {"; *** IR Dump After VerifierPass on [module] ***", false, DumpDialect::kLlvm,
       "VerifierPass", "", "[module]", false},
      {"; *** IR Dump After LoopRotatePass on loop %12 in function attn_fwd ***", false,
       DumpDialect::kLlvm, "LoopRotatePass", "", "loop %12 in function attn_fwd", false},
      {"; *** IR Dump After InlinerPass on (matmul_kernel) ***", false, DumpDialect::kLlvm,
       "InlinerPass", "", "(matmul_kernel)", false},
      {"*** IR Dump After Pre-ISel Intrinsic Lowering (pre-isel-intrinsic-lowering) ***", false,
       DumpDialect::kLlvm, "Pre-ISel Intrinsic Lowering", "pre-isel-intrinsic-lowering", "", false},
      {"*** IR Dump After Expand Atomic instructions (atomic-expand) *** (function: add_kernel)",
       false, DumpDialect::kLlvm, "Expand Atomic instructions", "atomic-expand", "add_kernel",
       false},
      {"# *** IR Dump After NVPTX DAG->DAG Pattern Instruction Selection (nvptx-isel) ***:", false,
       DumpDialect::kMachine, "NVPTX DAG->DAG Pattern Instruction Selection", "nvptx-isel", "",
       false},
      {"# *** IR Dump Before Machine Common Subexpression Elimination (machine-cse) ***:\r", true,
       DumpDialect::kMachine, "Machine Common Subexpression Elimination", "machine-cse", "", false},
  };
  for (const HeaderCase& c : cases) {
    auto r = parse_pass_dumps(std::string(c.line) + "\nIR\n", "t");
    ASSERT_TRUE(r) << c.line << ": " << r.status().message();
    ASSERT_EQ(r->size(), 1u) << c.line;
    const PassDump& d = (*r)[0];
    EXPECT_EQ(d.before, c.before) << c.line;
    EXPECT_EQ(d.dialect, c.dialect) << c.line;
    EXPECT_EQ(d.pass, c.pass) << c.line;
    EXPECT_EQ(d.argument, c.argument) << c.line;
    EXPECT_EQ(d.scope, c.scope) << c.line;
    EXPECT_EQ(d.failed, c.failed) << c.line;
    EXPECT_EQ(d.line, 1u);
    EXPECT_EQ(d.text, "IR\n") << c.line;
  }
}

TEST(ExplainParse, MalformedHeadersAreLocatedErrors) {
  const std::pair<const char*, uint32_t> cases[] = {
      {"// -----// IR Dump Before TritonGPUCoalesce (tritongpu-coalesce)", 3},
      {"// -----// IR Dump Sideways X (x) //----- //", 3},
      {"// -----// IR Dump Before  //----- //", 3},
      {"; *** IR Dump After InstCombinePass on k", 3},
      {"# *** IR Dump Whenever X (x) ***:", 3},
  };
  for (const auto& [line, at] : cases) {
    auto r = parse_pass_dumps(std::string("warning: x\n\n") + line + "\nIR\n", "dump.log");
    ASSERT_FALSE(r) << line;
    EXPECT_EQ(r.status().code(), ErrorCode::kParseError) << line;
    EXPECT_EQ(r.status().location().file, "dump.log");
    EXPECT_EQ(r.status().location().line, at) << line;
  }
}

TEST(ExplainParse, TextBeforeTheFirstHeaderAndSkippedHeadersCarryNoIr) {
  std::string s =
      "/tmp/bench.py:12: UserWarning: something\n"
      "// not a header\n" +
      mlir_before("Inliner", "inline", "module {\n}") +
      "; *** IR Dump After SimplifyCFGPass on k omitted because no change ***\n"
      "; *** IR Dump After EarlyCSEPass on k ***\n"
      "define void @k() {\n  ret void\n}\n";
  auto r = parse_pass_dumps(s, "t");
  ASSERT_TRUE(r) << r.status().message();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].pass, "Inliner");
  EXPECT_EQ((*r)[0].line, 3u);
  EXPECT_EQ((*r)[0].text, "module {\n}\n\n");
  EXPECT_EQ((*r)[1].pass, "EarlyCSEPass");
  EXPECT_EQ((*r)[1].text, "define void @k() {\n  ret void\n}\n");
  EXPECT_TRUE(parse_pass_dumps("", "t")->empty());
  EXPECT_TRUE(parse_pass_dumps("no headers at all\n", "t")->empty());
}

TEST(ExplainParse, PassManagerLoggingIsNotIr) {
  // Triton's optimize_module turns on LLVM's pass-manager debug logging with
  // LLVM_IR_ENABLE_DUMP: these lines come between the dumps (seen on the H200).
  std::string s =
      "; *** IR Dump After InferFunctionAttrsPass on [module] ***\n"
      "define void @k() {\n  ret void\n}\n"
      "Running pass: CoroEarlyPass on [module]\n"
      "Running analysis: InnerAnalysisManagerProxy<FunctionAnalysisManager, Module> on [module]\n"
      "Invalidating analysis: VerifierAnalysis on [module]\n"
      "Clearing all analysis results for: k\n"
      "; *** IR Dump After CoroEarlyPass on [module] ***\n"
      "define void @k() {\n  ret void\n}\n";
  auto r = parse_pass_dumps(s, "t");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].text, "define void @k() {\n  ret void\n}\n");
  EXPECT_EQ((*r)[0].text, (*r)[1].text);
  EXPECT_EQ((*r)[1].line, 9u);
}

TEST(ExplainParse, DumpCountIsBounded) {
  std::string s;
  for (int i = 0; i < 20; ++i) s += mlir_before("CSE", "cse", "module {\n}");
  DumpParseOptions o;
  o.max_dumps = 10;
  auto r = parse_pass_dumps(s, "big.log", o);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().location().line, 41u);  // the 11th header (4 lines per dump)
}

// ---------------------------------------------------------------------------
// Snapshots
// ---------------------------------------------------------------------------

TEST(ExplainSnapshots, BeforeDumpsAreTheOutputOfThePassPrintedBeforeThem) {
  std::string s =
      mlir_before("Inliner", "inline", "module {\n}") +
      mlir_before("Canonicalizer", "canonicalize", "module {\n}") +
      mlir_before("CSE", "cse", "module {\n  x\n}") +
      "; *** IR Dump Before TritonLLVMOptimizeModule (triton-llvm-optimize-module) ***\n"
      "define void @k() {\n  ret void\n}\n"
      "; *** IR Dump After InstCombinePass on k ***\n"
      "define void @k() {\n  ret void\n}\n";
  auto d = parse_pass_dumps(s, "t");
  ASSERT_TRUE(d);
  std::vector<PassSnapshot> v = pass_outputs(*d);
  ASSERT_EQ(v.size(), 5u);
  EXPECT_TRUE(v[0].entry);
  EXPECT_EQ(v[0].label(), "input of inline");
  EXPECT_EQ(v[1].label(), "inline");  // seen before canonicalize
  EXPECT_EQ(v[1].next_pass, "canonicalize");
  EXPECT_EQ(v[2].label(), "canonicalize");  // seen before cse
  EXPECT_TRUE(v[3].entry);                  // MLIR -> LLVM IR: translated outside any pass
  EXPECT_EQ(v[3].label(), "input of triton-llvm-optimize-module");
  EXPECT_EQ(v[4].label(), "InstCombinePass");
  EXPECT_EQ(v[4].dialect, DumpDialect::kLlvm);
}

TEST(ExplainSnapshots, ABeforeDumpRepeatingTheAfterDumpIsDropped) {
  std::string s =
      "// -----// IR Dump After CSE (cse) ('builtin.module' operation) //----- //\nmodule {\n}\n" +
      mlir_before("Canonicalizer", "canonicalize", "module {\n}") +
      "// -----// IR Dump After Canonicalizer (canonicalize) ('builtin.module' operation) "
      "//----- //\nmodule {\n}\n";
  // The Before's text ends with an extra blank line: not the same bytes, so
  // it is kept as an entry; equal bytes are dropped.
  std::string same =
      "// -----// IR Dump After CSE (cse) ('builtin.module' operation) //----- //\nmodule {\n}\n"
      "// -----// IR Dump Before Canonicalizer (canonicalize) ('builtin.module' operation) "
      "//----- //\nmodule {\n}\n";
  auto d1 = parse_pass_dumps(s, "t");
  auto d2 = parse_pass_dumps(same, "t");
  ASSERT_TRUE(d1 && d2);
  EXPECT_EQ(pass_outputs(*d1).size(), 3u);
  ASSERT_EQ(pass_outputs(*d2).size(), 1u);
  EXPECT_EQ(pass_outputs(*d2)[0].label(), "cse");
}

// ---------------------------------------------------------------------------
// The first pass whose output differs, on real IR
// ---------------------------------------------------------------------------

/// A make_ttir / make_ttgir / make_llir stream as Triton prints it with
/// MLIR_ENABLE_DUMP=1 (Before dumps only) and LLVM_IR_ENABLE_DUMP=1. The
/// TritonLICM step turns `pre_licm` into `ttgir` (when `with_licm`).
std::string triton_stream(const std::string& ttir, const std::string& pre_licm,
                          const std::string& ttgir, const std::string& llir, bool with_licm = true,
                          bool with_coalesce = true) {
  std::string s = mlir_before("Inliner", "inline", ttir) +
                  mlir_before("Canonicalizer", "canonicalize", ttir) +
                  mlir_before("TritonCombineOps", "triton-combine", ttir) +
                  mlir_before("ConvertTritonToTritonGPU", "convert-triton-to-tritongpu", ttir);
  if (with_coalesce) s += mlir_before("TritonGPUCoalesce", "tritongpu-coalesce", pre_licm);
  if (with_licm) s += mlir_before("TritonLICM", "triton-licm", pre_licm);
  s += mlir_before("Canonicalizer", "canonicalize", with_licm ? ttgir : pre_licm) +
       mlir_before("TritonGPUPrefetch", "tritongpu-prefetch", with_licm ? ttgir : pre_licm) +
       "; *** IR Dump After AlwaysInlinerPass on [module] ***\n" + llir +
       "; *** IR Dump After InstCombinePass on matmul_kernel ***\n" + llir;
  return s;
}

struct RealIr {
  std::string ttir, ttgir, ttgir_no_licm, ttgir_noise, llir, llir_noise;
};

const RealIr& real_ir() {
  static RealIr r = [] {
    RealIr x;
    x.ttir = corpus("base", "MAW3QIX7", "matmul_kernel.ttir");
    x.ttgir = corpus("base", "MAW3QIX7", "matmul_kernel.ttgir");
    x.ttgir_no_licm = corpus("no_licm", "MAW3QIX7", "matmul_kernel.ttgir");
    x.ttgir_noise = corpus("noise", "ECMT62I4", "matmul_kernel.ttgir");
    x.llir = corpus("base", "MAW3QIX7", "matmul_kernel.llir");
    x.llir_noise = corpus("noise", "ECMT62I4", "matmul_kernel.llir");
    return x;
  }();
  return r;
}

ExplainResult explain_streams(const std::string& base, const std::string& head) {
  auto b = parse_pass_dumps(base, "base.log");
  auto h = parse_pass_dumps(head, "head.log");
  EXPECT_TRUE(b && h);
  return explain_passes(*b, *h);
}

TEST(ExplainPasses, NamesThePassWhoseOutputDiffers) {
  const RealIr& ir = real_ir();
  // BASE: LICM hoists; HEAD: the same pass leaves the loop as it was.
  std::string base = triton_stream(ir.ttir, ir.ttgir_no_licm, ir.ttgir, ir.llir);
  std::string head = triton_stream(ir.ttir, ir.ttgir_no_licm, ir.ttgir_no_licm, ir.llir);
  ExplainResult r = explain_streams(base, head);
  ASSERT_TRUE(r.found);
  EXPECT_EQ(r.only_in, 0);
  EXPECT_EQ(r.pass, "TritonLICM");
  EXPECT_EQ(r.argument, "triton-licm");
  EXPECT_EQ(r.label, "triton-licm");
  EXPECT_EQ(r.dialect, DumpDialect::kMlir);
  EXPECT_TRUE(r.inputs_equal);
  EXPECT_EQ(r.previous_label, "tritongpu-coalesce");
  EXPECT_EQ(r.equal_before,
            6u);  // input of inline, inline, canonicalize, combine, convert, coalesce
  EXPECT_EQ(r.diff.status, ChangeStatus::kChanged);
  EXPECT_TRUE(r.diff.fallback.empty()) << r.diff.fallback;
  EXPECT_GT(r.diff.lines_added + r.diff.lines_removed, 0u);
  EXPECT_FALSE(r.diff.hunks.empty());
  // The header line of the differing dump in each stream.
  EXPECT_GT(r.base_line, 1u);
  EXPECT_EQ(r.base_line, r.head_line);
}

TEST(ExplainPasses, CosmeticDifferencesAndIdenticalStreamsNameNoPass) {
  const RealIr& ir = real_ir();
  std::string base = triton_stream(ir.ttir, ir.ttgir, ir.ttgir, ir.llir);
  ExplainResult same = explain_streams(base, base);
  EXPECT_FALSE(same.found);
  EXPECT_EQ(same.equal_before, same.base_snapshots);
  // Other value names, paths and line numbers: the normalizer removes them.
  std::string noise = triton_stream(ir.ttir, ir.ttgir_noise, ir.ttgir_noise, ir.llir_noise);
  ExplainResult r = explain_streams(base, noise);
  EXPECT_FALSE(r.found) << r.label;
  EXPECT_TRUE(r.notes.empty()) << r.notes[0];
}

TEST(ExplainPasses, APassThatRanOnOneSideOnly) {
  const RealIr& ir = real_ir();
  std::string full = triton_stream(ir.ttir, ir.ttgir_no_licm, ir.ttgir, ir.llir);
  // HEAD's Triton dropped TritonLICM from make_ttgir: the pass that ran only
  // in BASE and changed the IR is named, with what it did.
  std::string no_licm = triton_stream(ir.ttir, ir.ttgir_no_licm, ir.ttgir, ir.llir, false);
  ExplainResult r = explain_streams(full, no_licm);
  ASSERT_TRUE(r.found);
  EXPECT_EQ(r.only_in, -1);
  EXPECT_EQ(r.label, "triton-licm");
  EXPECT_TRUE(r.inputs_equal);
  EXPECT_GT(r.diff.lines_removed + r.diff.lines_added, 0u);
  ExplainResult rev = explain_streams(no_licm, full);
  ASSERT_TRUE(rev.found);
  EXPECT_EQ(rev.only_in, 1);
  EXPECT_EQ(rev.label, "triton-licm");
  // A pass dropped that changed nothing (coalesce left the IR as it was
  // here) is no difference.
  std::string no_coalesce =
      triton_stream(ir.ttir, ir.ttgir_no_licm, ir.ttgir, ir.llir, true, false);
  EXPECT_FALSE(explain_streams(full, no_coalesce).found);
}

TEST(ExplainPasses, DifferentFrontendOutputIsTheEntrySnapshot) {
  const RealIr& ir = real_ir();
  std::string ttir_b = corpus("base", "HAZ7V4NK", "matmul_kernel.ttir");  // another variant
  std::string base = triton_stream(ir.ttir, ir.ttgir, ir.ttgir, ir.llir);
  std::string head = triton_stream(ttir_b, ir.ttgir, ir.ttgir, ir.llir);
  ExplainResult r = explain_streams(base, head);
  ASSERT_TRUE(r.found);
  EXPECT_TRUE(r.entry);
  EXPECT_EQ(r.label, "input of inline");
  EXPECT_FALSE(r.inputs_equal);
  EXPECT_EQ(r.equal_before, 0u);
}

// LLVM's print-after-all in the NVPTX backend: machine-code dumps (MIR).
// With floating-point fusion off the instruction selector emits FMUL + FADD
// where it emitted FMA: the first machine pass whose output differs.
std::string isel_stream(bool fused) {
  std::string body =
      fused
          ? "  %7:float32regs = nofpexcept FMA_rrr %5:float32regs, %6:float32regs, %4:float32regs\n"
          : "  %8:float32regs = nofpexcept FMUL_rr %5:float32regs, %6:float32regs\n"
            "  %7:float32regs = nofpexcept FADD_rr %8:float32regs, %4:float32regs\n";
  std::string llir =
      "define ptx_kernel void @add_kernel(ptr addrspace(1) %0, ptr addrspace(1) %1, float %2) {\n"
      "  %4 = load float, ptr addrspace(1) %0, align 4\n"
      "  %5 = load float, ptr addrspace(1) %1, align 4\n"
      "  %6 = fmul float %4, %2\n"
      "  %7 = fadd float %6, %5\n"
      "  store float %7, ptr addrspace(1) %0, align 4\n"
      "  ret void\n"
      "}\n";
  auto mir = [&](const std::string& pass, const std::string& arg, const std::string& insts) {
    return "# *** IR Dump After " + pass + " (" + arg +
           ") ***:\n"
           "# Machine code for function add_kernel: IsSSA, TracksLiveness\n"
           "Function Live Ins: $vrd1 in %0\n\n"
           "bb.0 (%ir-block.3):\n"
           "  %0:int64regs = LD_i64 0, 0, 101, 3, 64, &add_kernel_param_0, 0 :: (dereferenceable "
           "invariant load (s64), addrspace 101)\n"
           "  %4:float32regs = LD_f32 0, 0, 1, 3, 32, %0:int64regs, 0 :: (load (s32) from %ir.0, "
           "addrspace 1)\n" +
           insts +
           "  ST_f32 %7:float32regs, 0, 0, 1, 3, 32, %0:int64regs, 0 :: (store (s32) into %ir.0, "
           "addrspace 1)\n"
           "  Return\n\n"
           "# End machine code for function add_kernel.\n\n";
  };
  return "; *** IR Dump After InstCombinePass on add_kernel ***\n" + llir +
         "*** IR Dump After Expand Atomic instructions (atomic-expand) ***\n" + llir +
         mir("NVPTX DAG->DAG Pattern Instruction Selection", "nvptx-isel", body) +
         mir("Machine Common Subexpression Elimination", "machine-cse", body);
}

TEST(ExplainPasses, MachineCodeDumpsNameTheInstructionSelector) {
  ExplainResult r = explain_streams(isel_stream(true), isel_stream(false));
  ASSERT_TRUE(r.found);
  EXPECT_EQ(r.dialect, DumpDialect::kMachine);
  EXPECT_EQ(r.pass, "NVPTX DAG->DAG Pattern Instruction Selection");
  EXPECT_EQ(r.label, "nvptx-isel");
  EXPECT_TRUE(r.inputs_equal);
  EXPECT_EQ(r.previous_label, "atomic-expand");
  EXPECT_TRUE(r.notes.empty()) << r.notes[0];  // MIR normalizes by LLVM IR rules
  EXPECT_FALSE(explain_streams(isel_stream(false), isel_stream(false)).found);
}

TEST(ExplainPasses, MachineCodeDebugLocationsAreNoDifference) {
  // TRITON_DISABLE_LINE_INFO=1 on the H200: the same machine code without
  // `debug-location !N; file:line` and DBG_VALUE lines.
  auto stream = [](bool lines) {
    std::string loc = lines ? ", debug-location !8; suite_kernels.py:78:24" : "";
    return "# *** IR Dump After NVPTX DAG->DAG Pattern Instruction Selection (nvptx-isel) ***:\n"
           "# Machine code for function k: IsSSA, TracksLiveness\n"
           "bb.0 (%ir-block.7):\n"
           "  %50:b32 = INT_PTX_SREG_TID_x" +
           std::string(lines ? " debug-location !7; a.py:3:1" : "") +
           "\n  %51:b32 = AND_b32ri %50:b32, 255" + loc + "\n" +
           (lines ? "  DBG_VALUE %51:b32, $noreg, !\"x\", !DIExpression(), debug-location !9\n"
                  : "") +
           "  Return\n# End machine code for function k.\n";
  };
  ExplainResult r = explain_streams(stream(true), stream(false));
  EXPECT_FALSE(r.found) << r.label;
  EXPECT_TRUE(explain_streams(stream(true), isel_stream(true)).found);
}

TEST(ExplainPasses, EmptyAndHostileStreams) {
  ExplainResult r = explain_passes({}, {});
  EXPECT_FALSE(r.found);
  EXPECT_EQ(r.base_snapshots, 0u);
  // IR that does not normalize (an unterminated string) is compared by bytes
  // and a note says so.
  std::string bad = mlir_before("CSE", "cse", "module {\n  %0 = \"unterminated\n}");
  std::string bad2 = mlir_before("CSE", "cse", "module {\n  %1 = \"unterminated\n}");
  ExplainResult b = explain_streams(bad, bad2);
  ASSERT_TRUE(b.found);
  EXPECT_FALSE(b.notes.empty());
  EXPECT_FALSE(b.diff.fallback.empty());
}

}  // namespace
}  // namespace ksnap::diff

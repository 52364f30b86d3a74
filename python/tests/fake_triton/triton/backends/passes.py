"""The stand-in's compiler pipeline: small MLIR / LLVM IR texts changed by
named passes, dumped the way Triton 3.6 dumps them.

Like Triton, the backend (backends/compiler.py) lists the passes of each
stage (make_ttir, make_ttgir, make_llir) on a PassManager; running it with
MLIR_ENABLE_DUMP=1 prints, before each pass, ``// -----// IR Dump Before
NAME (ARG) ('builtin.module' operation) //----- //`` and the module to file
descriptor 2 (Triton's MLIR printing: module scope, Before dumps only), and
with LLVM_IR_ENABLE_DUMP=1 the LLVM passes print ``; *** IR Dump After NAME
on FN ***`` and the instruction selector ``# *** IR Dump After ... (nvptx-isel)
***:`` with machine code. What each pass does, and what the knobs change:

* cse: drops the duplicate constant the frontend emits;
* convert-triton-to-tritongpu: the #blocked layout (warpsPerCTA = num_warps)
  and, for BLOCK >= 64, a ``ttg.convert_layout`` of the loaded tensor;
* tritongpu-coalesce: sizePerThread [1] -> [4];
* tritongpu-accelerate-matmul: the dot's #mma layout, versionMajor 3, or 2
  under DISABLE_MMA_V3 (as Triton's AccelerateMatmul reads it);
* tritongpu-remove-layout-conversions: removes the convert_layout (so a
  pipeline without it changes the BLOCK >= 64 variants only);
* the instruction selector fuses mul + add into FMA when enable_fp_fusion.
"""

import os
import re

_TRUE = ("1", "true", "on")


def env_on(name):
    return os.environ.get(name, "").lower() in _TRUE


def _dump(text):
    os.write(2, text.encode())


class PassManager:
    """Passes by (name, argument), run in order on an MLIR text."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.passes = []

    def add(self, name, argument):
        self.passes.append((name, argument))

    def run(self, ir):
        dump = env_on("MLIR_ENABLE_DUMP")
        for name, arg in self.passes:
            if dump:
                _dump(f"// -----// IR Dump Before {name} ({arg}) ('builtin.module' operation) "
                      f"//----- //\n{ir}\n\n")
            ir = PASSES[arg](ir, self.ctx)
        return ir


def frontend(name, args, block, num_warps):
    """The TTIR the "frontend" makes for a kernel: loads, mul + add, a dot, a store."""
    params = ", ".join(f"%{a}: !tt.ptr<f32>" for a in args) or "%x: !tt.ptr<f32>"
    first = f"%{args[0]}" if args else "%x"
    t = f"tensor<{block}xf32>"
    return (f"module {{\n"
            f"  tt.func public @{name}({params}) attributes {{noinline = false}} {{\n"
            f"    %c{block}_i32 = arith.constant {block} : i32\n"
            f"    %c{block}_i32_0 = arith.constant {block} : i32\n"
            f"    %pid = tt.get_program_id x : i32\n"
            f"    %start = arith.muli %pid, %c{block}_i32 : i32\n"
            f"    %offs = tt.make_range {{end = {block} : i32, start = 0 : i32}} : tensor<{block}xi32>\n"
            f"    %ptrs = tt.splat {first} : !tt.ptr<f32> -> tensor<{block}x!tt.ptr<f32>>\n"
            f"    %x = tt.load %ptrs : tensor<{block}x!tt.ptr<f32>>\n"
            f"    %y = arith.mulf %x, %x : {t}\n"
            f"    %z = arith.addf %y, %x : {t}\n"
            f"    %acc = tt.dot %z, %z, %z : {t} * {t} -> {t}\n"
            f"    tt.store %ptrs, %acc : tensor<{block}x!tt.ptr<f32>>\n"
            f"    tt.return\n"
            f"  }}\n"
            f"}}\n")


def _noop(ir, ctx):
    return ir


def _cse(ir, ctx):
    return "".join(l for l in ir.splitlines(True) if not re.search(r"%c\d+_i32_0 = ", l))


def _to_ttgir(ir, ctx):
    w = ctx["num_warps"]
    head = (f"#blocked = #ttg.blocked<{{sizePerThread = [1], threadsPerWarp = [32], "
            f"warpsPerCTA = [{w}], order = [0]}}>\n")
    ir = ir.replace("module {", f'module attributes {{"ttg.num-warps" = {w} : i32, '
                                f'ttg.target = "{ctx["target"]}"}} {{', 1)
    ir = re.sub(r"tensor<([^<>]*(?:<[^<>]*>[^<>]*)?)>", r"tensor<\1, #blocked>", ir)
    if ctx["block"] >= 64:
        lines = ir.splitlines(True)
        at = next(i for i, l in enumerate(lines) if "%x = tt.load" in l)
        t = f"tensor<{ctx['block']}xf32, #blocked>"
        lines.insert(at + 1, f"    %xc = ttg.convert_layout %x : {t} -> {t}\n")
        ir = "".join(lines[:at + 2]) + "".join(lines[at + 2:]).replace("%x,", "%xc,").replace(
            "%x :", "%xc :")
    return head + ir


def _coalesce(ir, ctx):
    return ir.replace("sizePerThread = [1]", "sizePerThread = [4]", 1)


def _accelerate_matmul(ir, ctx):
    if "tt.dot" not in ir:
        return ir
    major = 2 if env_on("DISABLE_MMA_V3") else 3
    mma = (f"#mma = #ttg.nvidia_mma<{{versionMajor = {major}, versionMinor = 0, "
           f"warpsPerCTA = [{ctx['num_warps']}, 1], instrShape = [16, 8]}}>\n")
    out = []
    for line in ir.splitlines(True):
        if "tt.dot" in line:
            line = line.rstrip("\n").rsplit("-> ", 1)
            line = line[0] + "-> " + line[1].replace("#blocked", "#mma") + "\n"
        out.append(line)
    return mma + "".join(out)


def _remove_layout_conversions(ir, ctx):
    out = [l for l in ir.splitlines(True) if "ttg.convert_layout" not in l]
    return "".join(out).replace("%xc,", "%x,").replace("%xc :", "%x :")


_LLVM_OPS = {"arith.constant": "llvm.mlir.constant", "arith.muli": "llvm.mul",
             "arith.mulf": "llvm.fmul", "arith.addf": "llvm.fadd", "tt.load": "llvm.load",
             "tt.store": "llvm.store", "tt.dot": "nvgpu.wgmma", "tt.splat": "llvm.insertelement",
             "tt.make_range": "llvm.mlir.undef", "tt.get_program_id": "nvvm.read.ptx.sreg.ctaid.x",
             "ttg.convert_layout": "llvm.shufflevector", "tt.return": "llvm.return",
             "tt.func": "llvm.func"}


def _to_llvm_dialect(ir, ctx):
    for k, v in _LLVM_OPS.items():
        ir = ir.replace(k + " ", v + " ")
    return ir


PASSES = {
    "inline": _noop, "canonicalize": _noop, "triton-combine": _noop, "cse": _cse,
    "convert-triton-to-tritongpu": _to_ttgir, "tritongpu-coalesce": _coalesce,
    "tritongpu-accelerate-matmul": _accelerate_matmul,
    "tritongpu-remove-layout-conversions": _remove_layout_conversions,
    "convert-triton-gpu-to-llvm": _to_llvm_dialect,
}


def translate_to_llvm(mlir, name, block):
    """The LLVM IR of the LLVM-dialect module: one instruction per op it holds."""
    body = []
    n = 1
    for line in mlir.splitlines():
        m = re.match(r"\s+(?:%\w+ = )?([a-z_]+\.[a-z_.]+)", line)
        if not m or m.group(1) in ("llvm.func", "llvm.return", "tt.return"):
            continue
        op = m.group(1)
        if op in ("llvm.fmul", "llvm.fadd"):
            body.append(f"  %{n} = {op[5:]} float %{n - 1}, %{n - 1}")
        elif op == "llvm.shufflevector":
            body.append(f"  %{n} = shufflevector <4 x float> %{n - 1}, <4 x float> poison, "
                        f"<4 x i32> <i32 0, i32 1, i32 2, i32 3>")
        else:
            body.append(f"  %{n} = call i32 @{op.replace('.', '_')}(i32 %{n - 1})")
        n += 1
    mma = re.search(r"versionMajor = (\d)", mlir)
    attrs = f' "mma-version"="{mma.group(1)}"' if mma else ""
    return (f"define ptx_kernel void @{name}(ptr addrspace(1) %0) #0 {{\n"
            + "\n".join(body) + "\n  ret void\n}\n\n"
            f"attributes #0 = {{ \"nvvm.maxntid\"=\"{block}\"{attrs} }}\n")


def optimize(llvm, name):
    """The LLVM "middle end" (none under DISABLE_LLVM_OPT, as in Triton):
    InstCombinePass turns the integer multiply into a shift, SimplifyCFGPass
    leaves the IR as it is; each printed after it runs."""
    if env_on("DISABLE_LLVM_OPT"):
        return llvm
    for p in ("InstCombinePass", "SimplifyCFGPass"):
        if p == "InstCombinePass":
            llvm = llvm.replace("call i32 @llvm_mul(", "call i32 @llvm_shl(")
        if env_on("LLVM_IR_ENABLE_DUMP"):
            _dump(f"; *** IR Dump After {p} on {name} ***\n{llvm}\n")
    return llvm


def run_llvm_middle_end(llvm, name):
    """Through the native binding, as Triton's make_llir calls it (the
    recompile worker may wrap it to print its input)."""
    from .._C.libtriton import llvm as binding

    mod = binding.Module(llvm, name)
    binding.optimize_module(mod, binding.OPTIMIZE_O3)
    return str(mod)


def codegen(llvm, name, fusion):
    """Machine code by instruction selection (fma when fusing) and the PTX."""
    fmul = len(re.findall(r"= fmul ", llvm))
    lines = []
    ptx = []
    for i in range(fmul):
        if fusion:
            lines.append(f"  %{10 + i}:float32regs = nofpexcept FMA_rrr %1:float32regs, "
                         f"%1:float32regs, %1:float32regs")
            ptx.append("\tfma.rn.f32 \t%f3, %f1, %f1, %f1;")
        else:
            lines.append(f"  %{20 + i}:float32regs = nofpexcept FMUL_rr %1:float32regs, "
                         f"%1:float32regs")
            lines.append(f"  %{10 + i}:float32regs = nofpexcept FADD_rr %{20 + i}:float32regs, "
                         f"%1:float32regs")
            ptx += ["\tmul.rn.f32 \t%f2, %f1, %f1;", "\tadd.rn.f32 \t%f3, %f2, %f1;"]
    mir = (f"# Machine code for function {name}: IsSSA, TracksLiveness\n\n"
           f"bb.0 (%ir-block.1):\n"
           f"  %1:float32regs = LD_f32 0, 0, 1, 3, 32, %0:int64regs, 0\n"
           + "\n".join(lines) + "\n  Return\n\n"
           f"# End machine code for function {name}.\n\n")
    if env_on("LLVM_IR_ENABLE_DUMP"):
        _dump("*** IR Dump After Pre-ISel Intrinsic Lowering (pre-isel-intrinsic-lowering) ***\n"
              + llvm + "\n")
        for p, a in (("NVPTX DAG->DAG Pattern Instruction Selection", "nvptx-isel"),
                     ("Machine Common Subexpression Elimination", "machine-cse")):
            _dump(f"# *** IR Dump After {p} ({a}) ***:\n{mir}")
    return "\n".join(ptx) + "\n"

"""Tests of the corpus tools that run without Triton: the independent
canonicalizer the truth rests on, the noise generator, the tutorial loader,
the packer, and the truth of the committed fixture."""

import json
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REALWORLD = os.path.dirname(HERE)
ROOT = os.path.dirname(os.path.dirname(REALWORLD))
sys.path.insert(0, REALWORLD)

import indep_norm  # noqa: E402
import make_noise  # noqa: E402
import tutorial_loader  # noqa: E402

MLIR = """#loc = loc("/t/01.py":30:0)
module {
  tt.func public @k(%x_ptr: !tt.ptr<f32> loc("x_ptr"(#loc))) {
    %pid = tt.get_program_id x : i32 loc(#loc2)
    %r = "tt.reduce"(%pid) <{axis = 0 : i32}> ({
    ^bb0(%a: i32 loc(unknown), %b: i32 loc(unknown)):
      %s = arith.addi %a, %b : i32 loc(#loc3)
      tt.reduce.return %s : i32 loc(#loc3)
    }) : (i32) -> i32 loc(#loc3)
    tt.return loc(#loc4)
  } loc(#loc)
} loc(#loc)
#loc2 = loc("pid"(#loc))
"""


@pytest.mark.parametrize("rename", [
    {"%pid": "%0", "%a": "%arg1", "%b": "%arg2", "%s": "%1", "%r": "%2", "%x_ptr": "%arg0"},
    {"%a": "%b_7", "%b": "%a_7"},  # sibling region arguments that swap names
])
def test_mlir_names_and_locations_do_not_count(rename):
    other = MLIR
    # simultaneous, whole-name renaming
    other = re.sub(r"%[\w.]+", lambda m: rename.get(m.group(0), m.group(0)), other)
    other = other.replace('loc("pid"(#loc))', "loc(#loc)")
    assert other != MLIR
    assert indep_norm.canon("ttir", other) == indep_norm.canon("ttir", MLIR)


def test_mlir_real_change_counts():
    assert indep_norm.canon("ttir", MLIR.replace("arith.addi", "arith.muli")) != indep_norm.canon("ttir", MLIR)
    # two uses swapped is a change even though the names are consistent
    swapped = MLIR.replace("arith.addi %a, %b", "arith.addi %b, %a")
    assert indep_norm.canon("ttir", swapped) != indep_norm.canon("ttir", MLIR)


LLVM = """; ModuleID = 'LLVMDialectModule'
source_filename = "LLVMDialectModule"

define ptx_kernel void @k(ptr addrspace(1) %0, i32 %1) local_unnamed_addr #0 !dbg !4 {
  %3 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !7
  %4 = shl i32 %3, 10, !dbg !8
  ret void, !dbg !9
}

attributes #0 = { nounwind }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3}
!0 = distinct !DICompileUnit(language: DW_LANG_C, file: !1, producer: "triton")
!1 = !DIFile(filename: "01.py", directory: "/a")
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !{i32 4, !"nvvm-reflect-ftz", i32 1}
!4 = distinct !DISubprogram(name: "k", scope: !1, file: !1, line: 30, type: !5)
!5 = !DISubroutineType(cc: DW_CC_normal, types: !6)
!6 = !{}
!7 = !DILocation(line: 39, column: 24, scope: !4)
!8 = !DILocation(line: 44, column: 24, scope: !4)
!9 = !DILocation(line: 45, column: 4, scope: !4)
"""

LLVM_NO_DEBUG = """; ModuleID = 'LLVMDialectModule'
source_filename = "LLVMDialectModule"

define ptx_kernel void @k(ptr addrspace(1) %a, i32 %b) local_unnamed_addr #0 {
  %c = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %d = shl i32 %c, 10
  ret void
}

attributes #0 = { nounwind }

!llvm.module.flags = !{!0, !1}
!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 4, !"nvvm-reflect-ftz", i32 1}
"""


def test_llvm_debug_info_and_names_do_not_count():
    assert indep_norm.canon("llir", LLVM) == indep_norm.canon("llir", LLVM_NO_DEBUG)
    assert indep_norm.canon("llir", LLVM.replace("shl i32 %3, 10", "shl i32 %3, 11")) != \
        indep_norm.canon("llir", LLVM)
    # semantic metadata is kept
    assert indep_norm.canon("llir", LLVM.replace('"nvvm-reflect-ftz", i32 1', '"nvvm-reflect-ftz", i32 0')) != \
        indep_norm.canon("llir", LLVM)


PTX = """.visible .entry k(
	.param .u64 k_param_0
)
{
	.loc	1 30 0                          // 01.py:30:0
$L__func_begin0:
	mov.u32 	%r1, %ctaid.x;              // a comment
$L__tmp0:
	ret;
$L__func_end0:
}
	.file	1 "/a/01.py"
	.section	.debug_abbrev
	{
.b8 1                                   // Abbreviation Code
	}
	.section	.debug_info
	{
.b32 76
	}
"""


def test_ptx_line_info_does_not_count():
    bare = ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\tmov.u32 \t%r1, %ctaid.x;\n\tret;\n}\n"
    assert indep_norm.canon("ptx", PTX) == indep_norm.canon("ptx", bare)
    assert indep_norm.canon("ptx", PTX.replace("%ctaid.x", "%ctaid.y")) != indep_norm.canon("ptx", PTX)


KERNELS = '''import triton
import triton.language as tl

SCALE = 2


@triton.jit
def k(X, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(X + offs, mask=mask)
    tl.store(X + offs, x * SCALE, mask=mask)


def wrapper(x):
    offs = 3  # a host function: not renamed
    k[(1,)](x, x.numel(), BLOCK=offs)


print("side effect")
out = wrapper(None)
'''


def test_noise_renames_jit_locals_only():
    out, renames = make_noise.perturb(KERNELS, header_lines=7)
    assert renames == {"k": {"mask": "mask_r", "offs": "offs_r", "pid": "pid_r", "x": "x_r"}}
    assert out.count("\n") == KERNELS.count("\n") + 7
    assert "offs_r = pid_r * BLOCK" in out and "    offs = 3" in out and "BLOCK=offs)" in out


def test_noise_refuses_a_change_beyond_names():
    with pytest.raises(ValueError):
        make_noise._check(KERNELS, KERNELS.replace("x * SCALE", "x + SCALE"), {})


def test_loader_runs_only_what_the_names_need(tmp_path, capsys):
    path = tmp_path / "tut.py"
    path.write_text(KERNELS.replace("import triton\nimport triton.language as tl\n", "")
                    .replace("@triton.jit\n", "").replace(": tl.constexpr", ""))
    mod = tutorial_loader.load(str(path), "tut_test_loader", ["k"])
    assert not hasattr(mod, "out") and "side effect" not in capsys.readouterr().out
    assert mod.SCALE == 2 and mod.KEPT == [2, 5]


def test_pack_round_trip(tmp_path):
    work = tmp_path / "work"
    for build, text in (("base", "ttir A"), ("repeat", "ttir A"), ("knob", "ttir B")):
        d = work / build / "cache" / "H"
        d.mkdir(parents=True)
        (d / "k.ttir").write_text(text)
        (d / "k.llir").write_text("llir " + build)
        (d / "launcher.so").write_bytes(b"\0")
    subprocess.run([sys.executable, os.path.join(REALWORLD, "pack.py"), str(work), str(tmp_path / "out"),
                    "--tmp", str(tmp_path / "t")], check=True, capture_output=True)
    subprocess.run([sys.executable, os.path.join(REALWORLD, "unpack.py"), str(tmp_path / "out"),
                    str(tmp_path / "back")], check=True, capture_output=True)
    back = tmp_path / "back"
    assert (back / "knob/cache/H/k.ttir").read_text() == "ttir B"
    assert (back / "repeat/cache/H/k.llir").read_text() == "llir repeat"
    assert not (back / "base/cache/H/launcher.so").exists()


def test_fixture_truth_is_current_and_explained(tmp_path):
    fixture = os.path.join(ROOT, "tests", "fixtures", "realworld")
    with open(os.path.join(fixture, "truth.json")) as f:
        committed = json.load(f)
    assert committed["unexplained"] == []
    assert len(committed["pairs"]) == 22
    unstable = tmp_path / "unstable.json"
    unstable.write_text(json.dumps({"unstable": committed["unstable"]}))
    out = tmp_path / "truth.json"
    subprocess.run([sys.executable, os.path.join(REALWORLD, "make_truth.py"), fixture, str(out),
                    "--unstable-from", str(unstable), "--jobs", "1"], check=True, capture_output=True)
    assert json.loads(out.read_text())["pairs"] == committed["pairs"]

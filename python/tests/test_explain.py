"""Comparing two compilers (issue 17): `recompile --python` rebuilds a capture
with another interpreter's Triton, and `ksnap explain` names the first pass
whose output differs.

The second "Triton" is a copy of the stand-in whose make_ttgir drops
tritongpu-remove-layout-conversions, run through a wrapper interpreter that
puts the copy first on PYTHONPATH. That pass removes the layout conversion
the BLOCK >= 64 variants carry (fake_triton/triton/backends/passes.py), so
exactly those variants change, in ttgir and llir (the LLVM IR is made from
the TTGIR's ops; the PTX only from its arithmetic). The knob pairs are
checked as on the H200: DISABLE_MMA_V3 names tritongpu-accelerate-matmul,
TRITON_DEFAULT_FP_FUSION=0 the instruction selector, DISABLE_LLVM_OPT the
first middle-end pass (it ran only in BASE), TRITON_DISABLE_LINE_INFO none.
"""

import json
import os
import shutil
import stat
import sys

import pytest

from conftest import FAKE_TRITON, load_manifest, run_python
from test_ksnap_binary import ksnap, run as ksnap_run  # noqa: F401 (the fixture)

TESTS = os.path.dirname(os.path.abspath(__file__))
STAGES = ("ttir", "ttgir", "llir", "ptx")
DROPPED = "tritongpu-remove-layout-conversions"


def capture(out, env=None):
    r = run_python(["-m", "ksnap_triton", "capture", "-o", str(out), "--",
                    os.path.join(TESTS, "explain_script.py")], env_extra=env, cwd=TESTS)
    assert r.returncode == 0, r.stderr
    return out


def patched_triton(root):
    """A copy of the stand-in whose make_ttgir no longer adds DROPPED, and an
    interpreter (a wrapper script) that imports it instead of the original."""
    copy = root / "triton-next"
    shutil.copytree(FAKE_TRITON, copy)
    path = copy / "triton" / "backends" / "compiler.py"
    lines = path.read_text().splitlines(True)
    kept = [ln for ln in lines if DROPPED not in ln]
    assert len(kept) == len(lines) - 1
    path.write_text("".join(kept))
    wrapper = root / "python-next"
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH="{copy}${{PYTHONPATH:+:$PYTHONPATH}}" '
                       f'exec "{sys.executable}" "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    return str(wrapper)


def bodies(cap):
    """BLOCK -> stage -> text without the stand-in's header comment line."""
    out = {}
    for e in load_manifest(cap)["entries"]:
        d = out.setdefault(e["constexprs"]["BLOCK"], {})
        for s in STAGES:
            with open(os.path.join(cap, e["stages"][s])) as f:
                d[s] = f.read().split("\n", 1)[1]
    return out


@pytest.fixture(scope="module")
def two_tritons(tmp_path_factory):
    root = tmp_path_factory.mktemp("explain")
    cap = capture(root / "cap")
    python_next = patched_triton(root)
    outs = {}
    for name, extra in (("now", []), ("next", ["--python", python_next])):
        r = run_python(["-m", "ksnap_triton", "recompile", str(cap), "-o", str(root / name)]
                       + extra, cwd=TESTS)
        assert r.returncode == 0, r.stderr
        outs[name] = root / name
    return {"root": root, "cap": cap, "python_next": python_next, **outs}


def test_recompile_under_another_triton_changes_exactly_those_variants_and_stages(two_tritons):
    now, nxt = bodies(two_tritons["now"]), bodies(two_tritons["next"])
    changed = {(b, s) for b in now for s in STAGES if now[b][s] != nxt[b][s]}
    assert changed == {(64, "ttgir"), (64, "llir"), (128, "ttgir"), (128, "llir")}
    assert "ttg.convert_layout" in nxt[64]["ttgir"] and "ttg.convert_layout" not in now[64]["ttgir"]
    report = json.load(open(two_tritons["next"] / "recompile.json"))
    assert report["python"] == two_tritons["python_next"]
    assert report["rebuilt"] == 4 and not report["failed"]


def test_recompile_python_must_be_an_interpreter(two_tritons, tmp_path):
    r = run_python(["-m", "ksnap_triton", "recompile", str(two_tritons["cap"]), "-o",
                    str(tmp_path / "x"), "--python", str(tmp_path / "no-such-python")], cwd=TESTS)
    assert r.returncode == 2
    assert "--python" in r.stderr and "not an executable" in r.stderr


def test_explain_compile_writes_the_dump_stream(two_tritons, tmp_path):
    e = load_manifest(two_tritons["cap"])["entries"][0]
    r = run_python(["-m", "ksnap_triton", "explain-compile", str(two_tritons["cap"]),
                    "--cache-dir", e["cache_dir"], "--kernel", e["kernel"], "-o",
                    str(tmp_path / "side"), "--env", "DISABLE_MMA_V3=true"], cwd=TESTS)
    assert r.returncode == 0, r.stderr
    rep = json.load(open(tmp_path / "side" / "explain.json"))
    assert rep["ok"] and rep["environment"] == {"DISABLE_MMA_V3": "true"}
    log = (tmp_path / "side" / "passes.log").read_text()
    # MLIR Before dumps, the worker's optimize_module input, LLVM and machine dumps, in order.
    heads = [ln for ln in log.splitlines() if "IR Dump" in ln]
    assert heads[0].startswith("// -----// IR Dump Before Inliner (inline)")
    i = heads.index("; *** IR Dump Before TritonLLVMOptimizeModule "
                    "(triton-llvm-optimize-module) ***")
    assert heads[i + 1] == "; *** IR Dump After InstCombinePass on scaled ***"
    assert heads[-1].startswith("# *** IR Dump After Machine Common Subexpression")
    assert "versionMajor = 2" in log  # the knob reached the compile
    bad = run_python(["-m", "ksnap_triton", "explain-compile", str(two_tritons["cap"]),
                      "--cache-dir", "NOPE", "--kernel", e["kernel"], "-o", str(tmp_path / "y")],
                     cwd=TESTS)
    assert bad.returncode == 2 and "no variant of kernel" in bad.stderr


# --- through the ksnap executable ---------------------------------------------------------

def test_diff_of_the_two_recompiles_names_exactly_those_variants(ksnap, two_tritons):
    r = ksnap_run(ksnap, ["diff", str(two_tritons["now"]), str(two_tritons["next"]),
                          "--format", "json"])
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    changed = {(v["constexprs"]["BLOCK"], s) for v in d["variants"]
               for s, st in v["stages"].items() if st["status"] != "unchanged"}
    assert changed == {(64, "ttgir"), (64, "llir"), (128, "ttgir"), (128, "llir")}


def test_recompile_python_through_ksnap(ksnap, two_tritons, tmp_path):
    r = ksnap_run(ksnap, ["recompile", str(two_tritons["cap"]), "-o", str(tmp_path / "o"),
                          "--python", two_tritons["python_next"]])
    assert r.returncode == 0, r.stderr
    assert bodies(tmp_path / "o") == bodies(two_tritons["next"])


def explain(ksnap, base, head, variant, *extra):
    r = ksnap_run(ksnap, ["explain", str(base), str(head), "--variant", variant,
                          "--format", "json", *extra])
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_explain_names_the_pass_the_other_triton_dropped(ksnap, two_tritons):
    cap = two_tritons["cap"]
    j = explain(ksnap, cap, cap, "BLOCK=64", "--head-python", two_tritons["python_next"])
    d = j["first_difference"]
    assert d["label"] == DROPPED and d["only_in"] == "base" and d["inputs_equal"]
    assert any("ttg.convert_layout" in ln["text"] for h in d["hunks"] for ln in h["lines"])
    # A variant the dropped pass does nothing to: no pass output differs.
    j16 = explain(ksnap, cap, cap, "BLOCK=16", "--head-python", two_tritons["python_next"])
    assert j16["found"] is False
    # The dropped pass left this IR as it was: skipped, every other output equal.
    assert j16["base"]["pass_outputs"] == j16["head"]["pass_outputs"] + 1 == j16["equal_before"] + 1
    assert j16["head"]["python"] == two_tritons["python_next"]


@pytest.mark.parametrize("knob,variant,label,only_in,dialect", [
    ("DISABLE_MMA_V3=1", "BLOCK=16", "tritongpu-accelerate-matmul", None, "mlir"),
    ("TRITON_DEFAULT_FP_FUSION=0", "BLOCK=16", "nvptx-isel", None, "machine"),
    ("DISABLE_LLVM_OPT=1", "BLOCK=16", "InstCombinePass", "base", "llvm"),
    ("TRITON_DISABLE_LINE_INFO=1", "BLOCK=16", None, None, None),
    # A variant that chose its fusion at launch: the fusion knob changes nothing.
    ("TRITON_DEFAULT_FP_FUSION=0", "BLOCK=32", None, None, None),
])
def test_explain_on_the_knob_pairs(ksnap, two_tritons, knob, variant, label, only_in, dialect):
    name, value = knob.split("=")
    head = capture(two_tritons["root"] / f"launch-{name}", {name: value})
    j = explain(ksnap, two_tritons["cap"], head, variant)
    # Each side compiles under its recorded environment: HEAD's knob from its metadata.
    assert j["head"]["environment"] == {name: "true" if value == "1" else "false"}
    assert j["base"]["environment"] == {} and j["base"]["unset"] == [name]
    if label is None:
        assert j["found"] is False
        return
    d = j["first_difference"]
    assert (d["label"], d["only_in"], d["dialect"]) == (label, only_in, dialect)
    assert d["inputs_equal"]

"""Real recompile records (Triton 3.6 on the H200, tests/fixtures/recompile):
they plan, and their kernels rebuild from the recorded text alone (against
the Triton stand-in here) with the original names, file and lines."""

import ast
import inspect
import json
import os

import pytest

from conftest import REPO
from ksnap_triton import kernelsrc, manifest, recompile as rc

FIX = os.path.join(REPO, "tests", "fixtures", "recompile")


def entries(name):
    return manifest.read_manifest(os.path.join(FIX, name, "manifest.json"))["entries"]


def test_records_plan_for_the_captured_target():
    es = entries("suite")
    assert rc.default_target(es) == {"backend": "cuda", "arch": 90, "warp_size": 32}
    p = rc.plan(es)
    assert len(p.tasks) == 4 and not p.skipped
    assert [t.cost for t in p.tasks] == sorted((t.cost for t in p.tasks), reverse=True)


@pytest.mark.parametrize("name", ["suite", "s16", "sm80", "hipA"])
def test_records_are_complete(name):
    for e in entries(name):
        rec = e["recompile"]
        assert rec["version"] == 1 and "problems" not in rec
        doc = json.load(open(os.path.join(FIX, name, rec["source"])))
        assert doc["format"] == kernelsrc.FORMAT and doc["root"] == e["qualname"]
        fn = doc["functions"][doc["root"]]
        ast.parse(fn["text"].replace("@triton.jit", "", 1).lstrip())
        snap = doc["files"][fn["file"]].splitlines(keepends=True)
        lines = fn["text"].splitlines(keepends=True)
        assert snap[fn["first_line"] - 1:fn["first_line"] - 1 + len(lines)] == lines
        names = [n for n, _ in rec["signature"]]
        assert [r[0] for r in e["signature"]] == names
        # Raw key strings and the backend's parse agree.
        parsed = {tuple(p): v for p, v in rec["attrs_parsed"]}
        for p, s in rec["attrs"]:
            assert parsed[tuple(p)] == ([["tt.divisibility", 16]] if s == "D" else [])
        consts = {tuple(p): v for p, v in rec["constexprs"]}
        for cname, value in e["constexprs"].items():
            assert consts[(names.index(cname),)] == value


def test_real_record_rebuilds_the_function(fake_triton):
    e = next(e for e in entries("suite") if e["kernel"] == "matmul_kernel")
    doc = json.load(open(os.path.join(FIX, "suite", e["recompile"]["source"])))
    fn = kernelsrc.build_function(doc, fake_triton)
    rec = doc["functions"][doc["root"]]
    assert fn.fn.__module__ == "suite_kernels" and fn.fn.__qualname__ == "matmul_kernel"
    assert fn.fn.__code__.co_filename == rec["file"]
    assert fn.starting_line_number == rec["first_line"]
    assert "".join(fn.raw_src) == rec["text"]
    assert fn.fn.__globals__["tl"].__name__ == "triton.language"
    assert fn.arg_names == [n for n, _ in e["recompile"]["signature"]]
    assert inspect.getsourcelines(fn.fn)[1] == rec["first_line"]

"""Hostile source records (issue 15 item 1): rebuilding a kernel for
``ksnap recompile`` runs nothing of the capture but the checked ``def``.

Each attack writes a marker file when its code runs; every test checks the
record is refused with a located error (``file:line``) and the marker is
absent. Real kernels (the recorded fixtures, gpu/capture/suite_kernels.py,
the test kernels) must still rebuild.
"""
import ast
import copy
import glob
import json
import os
import random
import sys

import pytest

from conftest import REPO
from ksnap_triton import kernelsrc

FIX = os.path.join(REPO, "tests", "fixtures", "recompile")
KERNEL_FILE = "/work/bench/kernels.py"  # a path no test creates


def _record(text, name="k", globs=None, module="bench_kernels", first=10, kind="triton"):
    key = f"{module}.{name}"
    return {"format": kernelsrc.FORMAT, "version": 1, "root": key, "files": {},
            "functions": {key: {"module": module, "qualname": name, "name": name,
                                "kind": kind, "file": KERNEL_FILE, "first_line": first,
                                "text": text, "future_annotations": False,
                                "globals": globs if globs is not None else
                                {"tl": {"module": "triton.language"},
                                 "triton": {"module": "triton"}}}}}


@pytest.fixture
def marker(tmp_path, monkeypatch):
    """The marker an attack would write (cwd-relative, as in the issue)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path / "PWNED"


def _refused(doc, triton, marker, where, trusted=()):
    with pytest.raises(kernelsrc.SourceError) as e:
        kernelsrc.build_functions(doc, triton, trusted)
    assert not marker.exists(), "the record's code ran"
    assert where in str(e.value), str(e.value)
    return str(e.value)


# -- the attacks of the issue ---------------------------------------------

HOSTILE_TEXTS = {
    "default": ("@triton.jit\ndef k(x, _p=open('PWNED', 'a').write('x')):\n    pass\n", 11),
    "kwonly default": ("@triton.jit\ndef k(x, *, _p=print(open('PWNED', 'a'))):\n    pass\n", 11),
    "annotation": ("@triton.jit\ndef k(x: open('PWNED', 'a').write('x')):\n    pass\n", 11),
    "return annotation": ("@triton.jit\ndef k(x) -> open('PWNED', 'a'):\n    pass\n", 11),
    "default calls constexpr of a call": (
        "@triton.jit\ndef k(x, B: tl.constexpr = tl.constexpr(open('PWNED', 'a'))):\n"
        "    pass\n", 11),
    "statement before def": ("open('PWNED', 'a')\n@triton.jit\ndef k(x):\n    pass\n", 10),
    "statement after def": ("@triton.jit\ndef k(x):\n    pass\nopen('PWNED', 'a')\n", 13),
    "class instead of def": ("class k:\n    open('PWNED', 'a')\n", 10),
    "body reaches builtins": ("@triton.jit\ndef k(x):\n    __builtins__['open']('PWNED')\n", 12),
    "body dunder attribute": ("@triton.jit\ndef k(x):\n    tl.__dict__\n", 12),
    "body calls open": ("@triton.jit\ndef k(x):\n    open('PWNED', 'a')\n", 12),
    "body calls getattr": ("@triton.jit\ndef k(x):\n    getattr(tl, 'x')\n", 12),
    "body walks to os": ("@triton.jit\ndef k(x):\n    triton.knobs.os.system('x')\n", 12),
    "other name": ("@triton.jit\ndef j(x):\n    pass\n", 11),
}


@pytest.mark.parametrize("case", sorted(HOSTILE_TEXTS))
def test_hostile_text_is_refused_and_nothing_runs(case, fake_triton, marker):
    text, line = HOSTILE_TEXTS[case]
    _refused(_record(text), fake_triton, marker, f"{KERNEL_FILE}:{line}: bench_kernels.k")


def test_decorators_are_never_evaluated(fake_triton, marker):
    text = ("@(open('PWNED', 'a').write('x') and triton.jit)\n"
            "@triton.heuristics({'E': lambda a: open('PWNED', 'a')})\n"
            "@triton.jit\ndef k(x, B: tl.constexpr = 128):\n    pass\n")
    fn = kernelsrc.build_function(_record(text), fake_triton)
    assert not marker.exists()
    assert "".join(fn.raw_src) == text and fn.starting_line_number == 10


@pytest.fixture
def pwn_module(tmp_path, monkeypatch):
    """An importable module that writes the marker when imported."""
    d = tmp_path / "site"
    d.mkdir()
    (d / "ksnap_pwn_lib.py").write_text(
        "open('PWNED', 'a').write('imported')\n"
        "def helper(x):\n    return x\n")
    monkeypatch.syspath_prepend(str(d))
    yield "ksnap_pwn_lib"
    sys.modules.pop("ksnap_pwn_lib", None)


@pytest.mark.parametrize("value", [{"module": "ksnap_pwn_lib"}, {"import": "ksnap_pwn_lib:helper"},
                                   {"module": "os"}, {"import": "os:system"},
                                   {"import": "triton.language:__class__"},
                                   {"tuple": [{"module": "ksnap_pwn_lib"}]}])
def test_globals_import_only_allowed_modules(value, fake_triton, marker, pwn_module):
    text = "@triton.jit\ndef k(x):\n    g\n"
    globs = {"tl": {"module": "triton.language"}, "g": value}
    msg = _refused(_record(text, globs=globs), fake_triton, marker, "bench_kernels.k: global g")
    assert "not allowed" in msg or "not a plain" in msg


def test_a_library_named_on_the_command_line_may_be_imported(fake_triton, marker, pwn_module):
    text = "@triton.jit\ndef k(x):\n    g(x)\n"
    globs = {"g": {"import": "ksnap_pwn_lib:helper"}}
    kernelsrc.build_function(_record(text, globs=globs), fake_triton, trusted=(pwn_module,))
    assert marker.read_text() == "imported"  # trusted: its import runs, as the user said


def test_constexpr_values_import_only_allowed_modules(fake_triton, marker, pwn_module):
    with pytest.raises(kernelsrc.SourceError, match="not allowed"):
        kernelsrc.decode_value({"import": "ksnap_pwn_lib:helper"}, fake_triton.language)
    assert not marker.exists()


def test_python_helpers_are_refused_unless_their_library_is_trusted(fake_triton, marker,
                                                                     pwn_module):
    doc = _record("@triton.jit\ndef k(x):\n    helper(x)\n",
                  globs={"helper": {"python": "ksnap_pwn_lib.helper"}})
    doc["functions"]["ksnap_pwn_lib.helper"] = {
        "module": "ksnap_pwn_lib", "qualname": "helper", "name": "helper", "kind": "python",
        "file": "/work/bench/lib.py", "first_line": 3, "globals": {},
        "text": "def helper(x):\n    open('PWNED', 'a')\n    return x\n"}
    _refused(doc, fake_triton, marker, "/work/bench/lib.py:3: ksnap_pwn_lib.helper")
    _, built = kernelsrc.build_functions(doc, fake_triton, trusted=(pwn_module,))
    assert built["ksnap_pwn_lib.helper"] is sys.modules[pwn_module].helper  # not the text


def test_snapshot_that_disagrees_with_the_text_is_refused(fake_triton, marker):
    text = "@triton.jit\ndef k(x):\n    pass\n"
    doc = _record(text, first=2)
    doc["files"] = {KERNEL_FILE: "\n@triton.jit\ndef k(x):\n    open('PWNED', 'a')\n"}
    _refused(doc, fake_triton, marker, f"{KERNEL_FILE}:2: bench_kernels.k: the file snapshot")
    # The snapshot's function goes on past the recorded text: also refused.
    doc["files"] = {KERNEL_FILE: "\n" + text + "    open('PWNED', 'a')\n"}
    _refused(doc, fake_triton, marker, "the file snapshot")


# -- real kernels still rebuild ------------------------------------------

def _fixture_docs():
    out = []
    for path in sorted(glob.glob(os.path.join(FIX, "*", "cache", "*", "__ksnap_source__*.json"))):
        with open(path) as f:
            out.append((os.path.relpath(path, FIX), json.load(f)))
    return out


def _records_of_file(path, module):
    """Source records of every decorated function of a real kernel file, as
    record_source writes them (text from the first decorator, globals tl/triton)."""
    with open(path) as f:
        src = f.read()
    lines = src.splitlines(keepends=True)
    docs = []
    for node in ast.parse(src).body:
        if isinstance(node, ast.FunctionDef) and node.decorator_list:
            first = node.decorator_list[0].lineno
            text = "".join(lines[first - 1:node.end_lineno])
            doc = _record(text, name=node.name, module=module, first=first)
            rec = doc["functions"][doc["root"]]
            rec["file"] = path
            doc["files"] = {path: src}
            docs.append((f"{os.path.basename(path)}:{node.name}", doc))
    return docs


def _real_docs():
    docs = _fixture_docs()
    for rel, module in (("gpu/capture/suite_kernels.py", "suite_kernels"),
                        ("python/tests/kernels_for_tests.py", "kernels_for_tests")):
        docs += _records_of_file(os.path.join(REPO, rel), module)
    return docs


HEURISTICS_TEXT = '''@triton.autotune(
    configs=[triton.Config({"BLOCK_M": 128}, num_warps=4)],
    key=["M"],
)
@triton.heuristics({"EVEN_M": lambda args: args["M"] % args["BLOCK_M"] == 0})
@triton.jit
def k(x_ptr, M, stride: int, eps: float = 1e-5, BLOCK_M: tl.constexpr = 128,
      EVEN_M: tl.constexpr = False, DTYPE: tl.constexpr = tl.float16,
      ACT: "tl.constexpr" = None, NEG: tl.constexpr = -1, SHAPE: tl.constexpr = (16, 16),
      C: tl.constexpr = tl.constexpr(2)) -> None:
    pid = tl.program_id(0)
    offs = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    x = tl.load(x_ptr + offs * stride, mask=offs < M)
    tl.store(x_ptr + offs, helper(x) * eps)
'''


def test_real_kernels_rebuild(fake_triton, marker):
    docs = _real_docs()
    assert len(docs) >= 20 + 4 + 3
    for name, doc in docs:
        fn = kernelsrc.build_function(doc, fake_triton)
        assert "".join(fn.raw_src) == doc["functions"][doc["root"]]["text"], name
    assert not marker.exists()


def test_autotune_heuristics_defaults_and_helpers_rebuild(fake_triton):
    doc = _record(HEURISTICS_TEXT, globs={"tl": {"module": "triton.language"},
                                          "helper": {"jit": "bench_kernels.helper"}})
    doc["functions"]["bench_kernels.helper"] = {
        "module": "bench_kernels", "qualname": "helper", "name": "helper", "kind": "triton",
        "file": KERNEL_FILE, "first_line": 40, "globals": {"tl": {"module": "triton.language"}},
        "text": "@triton.jit\ndef helper(x):\n    return tl.exp(x)\n"}
    root, built = kernelsrc.build_functions(doc, fake_triton)
    assert root.fn.__defaults__[-1] == fake_triton.language.constexpr(2)
    assert root.fn.__globals__["helper"] is built["bench_kernels.helper"]
    assert root.starting_line_number == 10


# -- mutations of real sources: refusal is clean ---------------------------

ATTACKS = [
    ("default", lambda f: f.args.defaults.append(ast.parse("open('PWNED','a')").body[0].value)
     or f.args.args.append(ast.arg(arg="_p"))),
    ("annotation", lambda f: setattr(f.args.args[0], "annotation",
                                     ast.parse("open('PWNED','a')").body[0].value)),
    ("returns", lambda f: setattr(f, "returns", ast.parse("open('PWNED','a')").body[0].value)),
    ("body", lambda f: f.body.insert(0, ast.parse("open('PWNED','a')").body[0])),
    ("dunder", lambda f: f.body.insert(0, ast.parse("x = tl.__loader__").body[0])),
]


def _mutated_texts(doc, rng):
    """(description, text, must_refuse) for one function's text: AST-level
    attacks (refused) and byte-level edits (refused or rebuilt, never more)."""
    rec = doc["functions"][doc["root"]]
    tree = ast.parse(rec["text"])
    for what, attack in ATTACKS:
        t = copy.deepcopy(tree)
        attack(t.body[0])
        yield what, ast.unparse(ast.fix_missing_locations(t)) + "\n", True
    text = rec["text"]
    for _ in range(6):
        i = rng.randrange(len(text))
        edit = rng.choice(["del", "dup", "nul", "paren", "indent"])
        if edit == "del":
            m = text[:i] + text[i + 1:]
        elif edit == "dup":
            m = text[:i] + text[i:i + 20] + text[i:]
        elif edit == "nul":
            m = text[:i] + "\0" + text[i:]
        elif edit == "paren":
            m = text[:i] + "(" * 300 + text[i:]
        else:
            m = text[:i] + "\n    open('PWNED','a')\n" + text[i:]
        yield f"{edit}@{i}", m, False


@pytest.mark.skipif(sys.version_info < (3, 9), reason="ast.unparse")
def test_mutated_real_sources_are_refused_cleanly(fake_triton, marker):
    rng = random.Random(15)
    counts = {"refused": 0, "rebuilt": 0}
    for name, doc in _real_docs()[::3]:
        for what, text, must_refuse in _mutated_texts(doc, rng):
            d = copy.deepcopy(doc)
            rec = d["functions"][d["root"]]
            rec["text"] = text
            d["files"] = {}  # the snapshot would disagree with the mutated text
            try:
                kernelsrc.build_functions(d, fake_triton)
                counts["rebuilt"] += 1
                assert not must_refuse, f"{name} {what}: not refused"
            except kernelsrc.SourceError as e:
                counts["refused"] += 1
                assert str(e).startswith(rec["file"] + ":"), f"{name} {what}: {e}"
            assert not marker.exists(), f"{name} {what}: the record's code ran"
    assert counts["refused"] >= 5 * len(_real_docs()[::3])


# -- end to end: python -m ksnap_triton recompile ---------------------------

from test_recompile import captured, recompile as run_recompile  # noqa: E402,F401


def test_recompile_reports_the_refused_record_by_file(captured, tmp_path):  # noqa: F811
    import shutil

    cap = tmp_path / "evil"
    shutil.copytree(captured, cap)
    marker = tmp_path / "PWNED"
    [path] = glob.glob(str(cap / "cache" / "*" / "__ksnap_source__scaled.json"))[:1]
    doc = json.load(open(path))
    rec = doc["functions"][doc["root"]]
    at = rec["text"].index("):\n", rec["text"].index("def "))
    rec["text"] = rec["text"][:at] + f", _p=open({str(marker)!r}, 'a')" + rec["text"][at:]
    doc["files"] = {}
    json.dump(doc, open(path, "w"))
    r = run_recompile(cap, tmp_path / "o", "--jobs", "1")
    assert r.returncode == 1, r.stderr
    assert not marker.exists()
    failed = json.load(open(tmp_path / "o" / "recompile.json"))["failed"]
    assert failed and all(f["kernel"] == "scaled" for f in failed)
    assert all(f["error"].startswith(f"{path}: refused: {rec['file']}:") for f in failed), failed
    assert "Traceback" not in r.stderr

import json
import os

import pytest

from ksnap_triton import benchmark_point, hooks
from ksnap_triton.recorder import Recorder


@pytest.fixture
def session(tmp_path, fake_triton):
    rec = Recorder(str(tmp_path / "cap"), argv=["bench.py", "--x"], script="bench.py",
                   triton_version=fake_triton.__version__)
    inst = hooks.install(rec)
    import kernels_for_tests as k

    yield rec, k, fake_triton
    inst.uninstall()
    del __import__("sys").modules["kernels_for_tests"]


def no_pytest_point():
    """pytest sets PYTEST_CURRENT_TEST for each test phase, which the recorder
    turns into a {"test": ...} point; tests of other points drop it."""
    os.environ.pop("PYTEST_CURRENT_TEST", None)


def test_jit_compile_records_full_entry(session):
    rec, k, triton = session
    no_pytest_point()
    k.add_kernel[(4,)](object(), object(), 1024, BLOCK=256)
    [e] = rec.entries()
    assert e["kernel"] == "add_kernel"
    assert e["qualname"] == "kernels_for_tests.add_kernel"
    assert e["source_file"] == os.path.abspath(k.__file__)
    src = open(k.__file__).read().splitlines()
    assert src[e["source_line"] - 1].startswith("def add_kernel(")
    assert e["constexprs"] == {"BLOCK": 256}
    assert e["options"] == {}
    assert e["signature"] == [["x", "*fp32", "D"], ["y", "*fp32", "D"], ["n", "i32", "D"],
                              ["BLOCK", "constexpr", 256]]
    assert e["key"].startswith("[('*fp32', 'D')")
    assert e["compile_s"] == 0.25 and e["cache_hit"] is False
    assert set(e["stages"]) == {"source", "ttir", "ttgir", "llir", "ptx", "cubin"}
    for path in list(e["stages"].values()) + [e["metadata"]]:
        assert os.path.isfile(os.path.join(rec.root, path))
        assert path.startswith(f"cache/{e['cache_dir']}/")
    assert e["arch"] == "sm90" and e["backend"] == "cuda"
    assert e["launched"] is True
    assert e["n_regs"] == 44 and e["n_spills"] == 0
    assert e["benchmark"] == {"script": "bench.py", "argv": ["bench.py", "--x"], "points": []}
    # the shard on disk has the same entry
    doc = json.load(open(rec.writer.path))
    assert [d["cache_dir"] for d in doc["entries"]] == [e["cache_dir"]]


def test_variants_differing_only_in_num_warps_are_separate(session):
    rec, k, _ = session
    no_pytest_point()
    for w in (2, 4, 8):
        k.add_kernel[(1,)](object(), object(), 64, BLOCK=64, num_warps=w)
    es = rec.entries()
    assert sorted(e["options"]["num_warps"] for e in es) == [2, 4, 8]
    assert len({e["cache_dir"] for e in es}) == 3


def test_specializations_of_one_config_are_separate(session):
    rec, k, _ = session
    no_pytest_point()
    for n in (64, 100, 1, 128):  # 64 and 128: the same 'D' specialization
        k.add_kernel[(1,)](object(), object(), n, BLOCK=64)
    specs = sorted(str(e["signature"][2]) for e in rec.entries())
    assert specs == sorted(str(s) for s in [["n", "constexpr", 1], ["n", "i32", ""],
                                            ["n", "i32", "D"]])


def test_option_named_constexpr_parameter_is_an_option(session):
    rec, k, _ = session
    no_pytest_point()
    k.staged_kernel[(1,)](object(), 64, BLOCK=64, num_stages=4, num_warps=8)
    [e] = rec.entries()
    assert e["constexprs"] == {"BLOCK": 64}
    assert e["options"] == {"num_warps": 8, "num_stages": 4}


def test_autotune_sweep_attributes_every_shape_to_every_config(session):
    rec, k, _ = session
    no_pytest_point()
    shapes = [(64, 64), (128, 64), (256, 256), (100, 100)]
    for m, n in shapes:
        k.mm_kernel[(1,)](object(), object(), m, n, n)
    es = rec.entries()
    # 3 configs x 2 specialization classes ('D' and None for M, N, stride)
    assert len(es) == 6
    for m, n in shapes:
        for block in (32, 64, 128):
            hits = [e for e in es if e["constexprs"]["BLOCK"] == block
                    and {"M": m, "N": n} in e["benchmark"]["points"]]
            assert len(hits) == 1, (m, n, block)


def test_explicit_point_and_disk_cache_hit(session, tmp_path):
    rec, k, triton = session
    no_pytest_point()
    with benchmark_point(case="small"):
        k.add_kernel[(1,)](object(), object(), 64, BLOCK=32)
    # a second JIT function object with the same source hits the disk cache
    from triton.runtime.jit import JITFunction

    again = JITFunction(k.add_kernel.fn)
    with benchmark_point(case="again"):
        again[(1,)](object(), object(), 64, BLOCK=32)
    [e] = rec.entries()
    assert e["benchmark"]["points"] == [{"case": "again"}, {"case": "small"}]
    assert e["cache_hit"] is False  # one of the two compiled it


def test_direct_compile_without_jit_hook_is_recorded_at_flush(session):
    rec, k, triton = session
    no_pytest_point()
    from triton.compiler.compiler import compile
    from triton.runtime.jit import ASTSource

    compile(ASTSource(k.add_kernel, {"x": "*fp32"}, {(3,): 16}, {}), options={"num_warps": 2})
    assert rec.entries() == []
    rec.flush()
    [e] = rec.entries()
    assert e["kernel"] == "add_kernel" and e["key"] is None
    assert e["cache_dir"] and e["compile_s"] == 0.25
    # the options the compile ran with come from its metadata
    assert e["options"]["num_warps"] == 2


def test_direct_compiles_differing_only_in_options_are_two_entries(session):
    rec, k, triton = session
    no_pytest_point()
    from triton.compiler.compiler import compile
    from triton.runtime.jit import ASTSource

    for warps in (2, 8):
        compile(ASTSource(k.add_kernel, {"x": "*fp32"}, {(3,): 16}, {}), options={"num_warps": warps})
    rec.flush()
    assert sorted(e["options"]["num_warps"] for e in rec.entries()) == [2, 8]


def test_pytest_test_id_is_a_point(session):
    rec, k, _ = session
    no_pytest_point()
    os.environ["PYTEST_CURRENT_TEST"] = "tests/test_x.py::test_y[8] (call)"
    try:
        k.add_kernel[(1,)](object(), object(), 64, BLOCK=8)
    finally:
        del os.environ["PYTEST_CURRENT_TEST"]
    [e] = rec.entries()
    assert e["benchmark"]["points"] == [{"test": "tests/test_x.py::test_y[8]"}]


def test_relaunch_under_a_new_test_or_point_is_noticed(session):
    rec, k, _ = session
    no_pytest_point()
    try:
        for test in ("t.py::a (call)", "t.py::b (call)", "t.py::b (call)"):
            os.environ["PYTEST_CURRENT_TEST"] = test
            k.add_kernel[(1,)](object(), object(), 64, BLOCK=8)
        os.environ.pop("PYTEST_CURRENT_TEST")
        for m in (1, 2, 1):
            with benchmark_point(M=m):
                k.add_kernel[(1,)](object(), object(), 64, BLOCK=8)
    finally:
        os.environ.pop("PYTEST_CURRENT_TEST", None)
    [e] = rec.entries()
    assert e["benchmark"]["points"] == [{"M": 1}, {"M": 2}, {"test": "t.py::a"}, {"test": "t.py::b"}]


def test_listener_and_hook_of_the_program_still_run(tmp_path, fake_triton):
    calls = []
    fake_triton.knobs.compilation.listener = lambda **kw: calls.append("listener")
    fake_triton.knobs.runtime.jit_post_compile_hook = lambda **kw: calls.append("post")
    rec = Recorder(str(tmp_path / "cap"))
    inst = hooks.install(rec)
    import kernels_for_tests as k

    k.add_kernel[(1,)](object(), object(), 64, BLOCK=32)
    assert calls == ["listener", "post"]
    assert len(rec.entries()) == 1
    inst.uninstall()
    assert fake_triton.knobs.compilation.listener is not None
    fake_triton.knobs.compilation.listener(src=None)  # the program's own, restored
    assert calls[-1] == "listener"
    del __import__("sys").modules["kernels_for_tests"]


def test_a_failing_recorder_never_breaks_the_program(session, monkeypatch, capsys):
    rec, k, _ = session
    no_pytest_point()

    def boom(**kw):
        raise RuntimeError("disk full")

    monkeypatch.setattr(rec, "on_post_compile", boom)
    # install() bound the method at install time; reinstall to pick up the failing one
    inst = hooks.install(rec)
    k.add_kernel[(1,)](object(), object(), 64, BLOCK=16)
    inst.uninstall()
    assert any("disk full" in e for e in rec.errors)
    assert "disk full" in capsys.readouterr().err

"""ksnap_triton.affected: `ksnap diff --affected --format json` -> pytest ids
and perf_report benchmarks narrowed to the affected points."""

import json

import pytest

from conftest import run_python
from ksnap_triton import affected


def doc(points, unattributed=()):
    return {"schema": "ksnap-affected", "schema_version": 1, "variants": 9,
            "changed_variants": len(points), "points": points, "unattributed": list(unattributed)}


def write(tmp_path, d):
    p = tmp_path / "affected.json"
    p.write_text(json.dumps(d))
    return str(p)


class Bench:  # shaped like triton.testing.Benchmark
    def __init__(self):
        self.x_names = ["M", "N", "K"]
        self.x_vals = [(256, 256, 256), (512, 512, 512), (1000, 1000, 1000)]
        self.line_arg = "provider"
        self.line_vals = ["triton", "cublas"]


def test_restrict_keeps_affected_x_and_line_values(tmp_path):
    path = write(tmp_path, doc([
        {"script": "/ci/bench.py", "point": {"M": 512, "N": 512, "K": 512, "provider": "triton"},
         "variants": ["v1"], "stages": ["ttgir"]},
        {"script": "/ci/other.py", "point": {"M": 256, "N": 256, "K": 256}, "variants": ["v2"],
         "stages": ["ptx"]}]))
    b = Bench()
    affected.restrict([b], affected.load(path, script="bench.py"))
    assert b.x_vals == [(512, 512, 512)] and b.line_vals == ["triton"]
    b2 = Bench()
    affected.restrict(b2, affected.load(path))
    assert b2.x_vals == [(256, 256, 256), (512, 512, 512)]


def test_pytest_ids_and_exit_codes(tmp_path):
    path = write(tmp_path, doc([
        {"script": None, "point": {"test": "tests/t.py::test_a[4]"}, "variants": ["v"], "stages": []},
        {"script": None, "point": {"test": "tests/t.py::test_b"}, "variants": ["w"], "stages": []}]))
    r = run_python(["-m", "ksnap_triton", "affected", path, "--pytest"])
    assert r.returncode == 0 and r.stdout.split() == ["tests/t.py::test_a[4]", "tests/t.py::test_b"]
    none = write(tmp_path, doc([]))
    r = run_python(["-m", "ksnap_triton", "affected", none, "--pytest"])
    assert r.returncode == 3 and r.stdout == ""
    unattr = write(tmp_path, doc([], unattributed=["k|{}|{}"]))
    assert run_python(["-m", "ksnap_triton", "affected", unattr]).returncode == 4
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    r = run_python(["-m", "ksnap_triton", "affected", str(bad)])
    assert r.returncode == 2 and "not a ksnap-affected document" in r.stderr


def test_read_rejects_non_json(tmp_path):
    p = tmp_path / "x.json"
    p.write_text("nope")
    with pytest.raises(affected.AffectedError, match="not JSON"):
        affected.read(str(p))

"""The committed GPU captures (tests/fixtures/gpu_capture, made on an H200 with
Triton 3.6 by gpu/capture/run_all.sh) checked without Triton, as CI does."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import REPO
from ksnap_triton import manifest, merge

FIXTURES = os.path.join(REPO, "tests", "fixtures", "gpu_capture")
CHECK = os.path.join(REPO, "gpu", "capture", "check_capture.py")


def run_check(*args):
    return subprocess.run([sys.executable, CHECK] + list(args), capture_output=True, text=True)


@pytest.mark.parametrize("run", ["run1", "run2"])
def test_fixture_has_every_shape_config_variant(run):
    r = run_check(os.path.join(FIXTURES, run))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "(shape, config) pairs covered 80/80" in r.stdout


def test_the_two_runs_are_the_same_variants_with_identical_files():
    r = run_check(os.path.join(FIXTURES, "run2"), "--same-as", os.path.join(FIXTURES, "run1"))
    assert r.returncode == 0, r.stdout + r.stderr
    a = manifest.read_manifest(os.path.join(FIXTURES, "run1", "manifest.json"))["entries"]
    b = manifest.read_manifest(os.path.join(FIXTURES, "run2", "manifest.json"))["entries"]
    volatile = {"compile_s", "shards"}
    strip = lambda es: [{k: v for k, v in e.items() if k not in volatile} for e in es]  # noqa: E731
    assert strip(a) == strip(b)


def test_check_script_fails_on_a_missing_variant(tmp_path):
    broken = tmp_path / "run1"
    shutil.copytree(os.path.join(FIXTURES, "run1"), broken)
    m = json.loads((broken / "manifest.json").read_text())
    m["entries"] = [e for e in m["entries"]
                    if not (e["kernel"] == "matmul_kernel" and e["constexprs"]["BLOCK_SIZE_N"] == 256
                            and e["constexprs"]["BLOCK_SIZE_M"] == 64)]
    (broken / "manifest.json").write_text(json.dumps(m))
    r = run_check(str(broken))
    assert r.returncode == 1
    assert "but the capture has no entry" in r.stdout and "no entry" in r.stdout


def test_fixture_shards_merge_back_into_the_same_manifest(tmp_path):
    copy = tmp_path / "run1"
    shutil.copytree(os.path.join(FIXTURES, "run1"), copy)
    before = json.loads((copy / "manifest.json").read_text())
    os.remove(copy / "manifest.json")
    after, warnings = merge.merge_captures(str(copy), build="run1")
    assert warnings == []
    # the trim step dropped llir from both; the rest is what the capture wrote
    before.pop("trimmed")
    assert after == before

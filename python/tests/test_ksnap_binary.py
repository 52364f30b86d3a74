"""`ksnap capture` / `ksnap merge` (tools/ksnap/capture_command.cc), run when a
built ksnap executable is found: $KSNAP_BINARY, else <repo>/build*/ksnap."""

import glob
import os
import subprocess
import sys

import pytest

from conftest import FAKE_TRITON, REPO, load_manifest

HERE = os.path.dirname(os.path.abspath(__file__))


def ksnap_binary():
    env = os.environ.get("KSNAP_BINARY")
    if env and os.access(env, os.X_OK):
        return env
    found = [p for p in sorted(glob.glob(os.path.join(REPO, "build*", "ksnap")))
             if os.access(p, os.X_OK)]
    return found[0] if found else None


@pytest.fixture
def ksnap():
    path = ksnap_binary()
    if path is None:
        pytest.skip("no built ksnap executable (set KSNAP_BINARY)")
    return path


def run(ksnap, args, **env_extra):
    env = dict(os.environ)
    env.pop("PYTEST_CURRENT_TEST", None)
    env.pop("KSNAP_PYTHONPATH", None)
    env["KSNAP_PYTHON"] = sys.executable
    env["PYTHONPATH"] = FAKE_TRITON  # the plugin's own folder is added by ksnap
    env.update(env_extra)
    return subprocess.run([ksnap] + args, env=env, cwd=HERE, capture_output=True, text=True,
                          timeout=120)


def test_ksnap_capture_runs_the_plugin(ksnap, tmp_path):
    out = str(tmp_path / "cap")
    r = run(ksnap, ["capture", "-o", out, "--build", "pr", "--", os.path.join(HERE, "sweep_script.py")])
    assert r.returncode == 0, r.stderr
    m = load_manifest(out)
    assert m["build"] == "pr" and len(m["entries"]) == 7


def test_ksnap_merge_and_its_errors(ksnap, tmp_path):
    r = run(ksnap, ["merge", str(tmp_path / "out"), str(tmp_path / "missing")])
    assert r.returncode == 2 and "not a capture folder" in r.stderr
    r = run(ksnap, ["merge", str(tmp_path / "out")], KSNAP_PYTHONPATH=str(tmp_path))
    assert r.returncode == 2 and "no ksnap_triton/ package folder" in r.stderr
    r = run(ksnap, ["merge", str(tmp_path / "out")], KSNAP_PYTHON="/no/such/python")
    assert r.returncode == 2 and "cannot run /no/such/python" in r.stderr
    r = run(ksnap, ["capture", "-o", str(tmp_path / "c")])
    assert r.returncode == 2 and "program is required" in r.stderr

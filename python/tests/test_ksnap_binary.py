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
    env["KSNAP_NO_SASS"] = "1"  # the stand-in's cubins are not real
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


def test_ksnap_recompile_and_diff_affected(ksnap, tmp_path):
    cap, same, sm80 = (str(tmp_path / n) for n in ("cap", "same", "sm80"))
    r = run(ksnap, ["capture", "-o", cap, "--", os.path.join(HERE, "sweep_script.py")])
    assert r.returncode == 0, r.stderr
    r = run(ksnap, ["recompile", cap, "-o", same, "--jobs", "2"])
    assert r.returncode == 0, r.stderr
    assert "recompiled 7/7 variants for cuda:90" in r.stderr
    r = run(ksnap, ["recompile", cap, "-o", sm80, "--target", "cuda:80", "--kernel", "mm_kernel"])
    assert r.returncode == 0, r.stderr
    assert {e["kernel"] for e in load_manifest(sm80)["entries"]} == {"mm_kernel"}
    # Nothing changed: no point to rerun.
    r = run(ksnap, ["diff", cap, same, "--affected"])
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("# 0 of 7 variants changed; 0 benchmark points affected")
    # sm_80 rebuilt mm_kernel (changed) and lacks add_kernel (removed).
    r = run(ksnap, ["diff", cap, sm80, "--affected", "--format", "json", "--exit-code"])
    assert r.returncode == 1, r.stderr
    import json

    d = json.loads(r.stdout)
    assert d["schema"] == "ksnap-affected" and d["variants"] == 7
    assert d["changed_variants"] == 7
    shapes = sorted((p["point"]["M"], p["point"]["N"]) for p in d["points"] if "M" in p["point"])
    assert shapes == [(64, 64), (96, 100), (128, 256), (512, 512)]
    assert all(p["script"].endswith("sweep_script.py") for p in d["points"])
    text = run(ksnap, ["diff", cap, sm80, "--affected"]).stdout.splitlines()
    assert text[0] == f"# 7 of 7 variants changed; {len(d['points'])} benchmark points affected"
    r = run(ksnap, ["diff", cap, sm80, "--affected", "--format", "markdown"])
    assert r.returncode == 2 and "--affected prints text or --format json" in r.stderr


def test_ksnap_recompile_usage_error(ksnap, tmp_path):
    r = run(ksnap, ["recompile", str(tmp_path / "missing"), "-o", str(tmp_path / "o")])
    assert r.returncode == 2 and "not a capture folder" in r.stderr

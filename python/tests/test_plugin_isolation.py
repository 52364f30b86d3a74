"""Recompile workers import nothing from the current folder (issue 15 item 2):
``python -m`` would put it first on sys.path, and an empty or relative
PYTHONPATH entry means it too (``site`` imports sitecustomize.py from there)."""
import os
import subprocess
import sys

from conftest import FAKE_TRITON
from ksnap_triton import isolate, recompile


def _hostile_cwd(tmp_path):
    d = tmp_path / "capture"
    d.mkdir()
    pwn = f"open({str(tmp_path / 'PWNED')!r}, 'a').write(__name__ + '\\n')\n"
    for name in ("json.py", "sitecustomize.py", "triton.py"):
        (d / name).write_text(pwn)
    return d


def _start_worker(argv, cwd, tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(["", ".", FAKE_TRITON]))
    env = recompile._worker_env(str(tmp_path / "out"))
    return subprocess.run(argv, cwd=cwd, env=env, input=b"", capture_output=True, timeout=60)


def test_worker_starts_without_the_current_folder(tmp_path, monkeypatch):
    cwd = _hostile_cwd(tmp_path)
    r = _start_worker(isolate.module_argv(sys.executable, "ksnap_triton.recompile_worker"),
                      cwd, tmp_path, monkeypatch)
    assert r.returncode == 0, r.stderr
    assert not (tmp_path / "PWNED").exists(), (tmp_path / "PWNED").read_text()


def test_python_dash_m_would_have_run_them(tmp_path, monkeypatch):
    # The attack the isolation stops: the same worker started with -m.
    cwd = _hostile_cwd(tmp_path)
    _start_worker([sys.executable, "-m", "ksnap_triton.recompile_worker"], cwd, tmp_path,
                  monkeypatch)
    assert (tmp_path / "PWNED").exists()


def test_worker_pythonpath_keeps_only_absolute_entries(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(["", ".", "rel/dir", "/abs/dir"]))
    parts = recompile._worker_env("/tmp/out")["PYTHONPATH"].split(os.pathsep)
    assert parts[1:] == ["/abs/dir"] and all(os.path.isabs(p) for p in parts)

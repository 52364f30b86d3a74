"""Shared helpers: import ksnap_triton from this checkout; a Triton stand-in."""

import json
import os
import subprocess
import sys

import pytest

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAKE_TRITON = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_triton")
REPO = os.path.dirname(PYTHON_DIR)
CORPUS = os.environ.get("KSNAP_CORPUS_DIR") or os.path.join(os.path.dirname(REPO), "shared", "corpus")

if PYTHON_DIR not in sys.path:
    sys.path.insert(0, PYTHON_DIR)


@pytest.fixture(autouse=True)
def _restore_linecache():
    """Rebuilding a kernel (kernelsrc) puts its recorded source lines into
    ``linecache`` under the kernel's file name, as a recompile worker must;
    in this one test process that would change what ``inspect`` reads for
    the same file in later tests. Each test gets the cache back as it was."""
    import linecache

    saved = dict(linecache.cache)
    yield
    linecache.cache.clear()
    linecache.cache.update(saved)


@pytest.fixture
def fake_triton(monkeypatch):
    """Imports the Triton stand-in as `triton` for this test, then forgets it."""
    monkeypatch.syspath_prepend(FAKE_TRITON)
    monkeypatch.setenv("KSNAP_NO_SASS", "1")  # the stand-in's cubins are not real
    for name in [m for m in sys.modules if m == "triton" or m.startswith("triton.")]:
        monkeypatch.delitem(sys.modules, name)
    import triton

    yield triton
    for name in [m for m in sys.modules if m == "triton" or m.startswith("triton.")]:
        del sys.modules[name]


def run_python(args, env_extra=None, cwd=None, timeout=120):
    """Runs this interpreter with the checkout and the stand-in on PYTHONPATH."""
    env = dict(os.environ)
    env.pop("PYTEST_CURRENT_TEST", None)
    env["PYTHONPATH"] = os.pathsep.join([PYTHON_DIR, FAKE_TRITON])
    env["KSNAP_NO_SASS"] = "1"  # the stand-in's cubins are not real; test_sass.py turns it on
    env.update(env_extra or {})
    return subprocess.run([sys.executable] + list(args), env=env, cwd=cwd, timeout=timeout,
                          capture_output=True, text=True)


def load_manifest(out):
    with open(os.path.join(out, "manifest.json")) as f:
        return json.load(f)

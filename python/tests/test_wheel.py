"""scripts/build_wheel.py: the plugin's wheel, built with the standard library.

What pip relies on (PEP 427): every file of the package, a dist-info with
METADATA, WHEEL and a RECORD whose hashes and sizes match; no bytecode; the
same bytes from the same source. The install into a plain venv is checked by
tests/package/run.sh (from the .deb) as well.
"""
import base64
import hashlib
import os
import shutil
import subprocess
import sys
import zipfile

from conftest import PYTHON_DIR, REPO

SCRIPT = os.path.join(REPO, "scripts", "build_wheel.py")


def build(tmp_path, name="out", source=PYTHON_DIR, env=None):
    out = tmp_path / name
    r = subprocess.run([sys.executable, SCRIPT, str(out), "--source", str(source)],
                       capture_output=True, text=True, env=env)
    return r, out


def version():
    import ksnap_triton
    return ksnap_triton.__version__


def test_the_wheel_holds_the_package_and_a_valid_record(tmp_path):
    r, out = build(tmp_path)
    assert r.returncode == 0, r.stderr
    path = r.stdout.strip()
    assert os.path.basename(path) == f"ksnap_triton-{version()}-py3-none-any.whl"
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        info = f"ksnap_triton-{version()}.dist-info"
        assert {f"{info}/METADATA", f"{info}/WHEEL", f"{info}/RECORD"} <= set(names)
        expected = set()
        for folder, dirs, files in os.walk(os.path.join(PYTHON_DIR, "ksnap_triton")):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            for f in files:
                if not f.endswith(".pyc"):
                    expected.add(os.path.relpath(os.path.join(folder, f), PYTHON_DIR))
        assert expected <= set(names)
        assert "ksnap_triton/_bootstrap/sitecustomize.py" in names
        assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
        meta = z.read(f"{info}/METADATA").decode()
        assert f"Version: {version()}\n" in meta and "Requires-Python: >=3.9" in meta
        assert "Root-Is-Purelib: true" in z.read(f"{info}/WHEEL").decode()
        rows = [line.split(",") for line in z.read(f"{info}/RECORD").decode().splitlines()]
        assert sorted(row[0] for row in rows) == sorted(names)
        for name, digest, size in rows:
            if name.endswith("/RECORD"):
                assert digest == "" and size == ""
                continue
            data = z.read(name)
            want = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert digest == "sha256=" + want, name
            assert int(size) == len(data), name


def test_the_same_source_gives_the_same_bytes(tmp_path):
    r1, out1 = build(tmp_path, "a")
    r2, out2 = build(tmp_path, "b")
    assert r1.returncode == 0 and r2.returncode == 0
    with open(r1.stdout.strip(), "rb") as a, open(r2.stdout.strip(), "rb") as b:
        assert a.read() == b.read()


def test_a_source_without_the_plugin_is_a_named_error(tmp_path):
    bogus = tmp_path / "src"
    (bogus / "ksnap_triton").mkdir(parents=True)
    (bogus / "ksnap_triton" / "__init__.py").write_text("# no version here\n")
    r, out = build(tmp_path, source=bogus)
    assert r.returncode == 2
    assert str(bogus / "ksnap_triton" / "__init__.py") in r.stderr
    assert not out.exists() or not list(out.iterdir())


def test_a_link_in_the_package_is_refused(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(os.path.join(PYTHON_DIR, "ksnap_triton"), src / "ksnap_triton",
                    ignore=shutil.ignore_patterns("__pycache__"))
    os.symlink("/etc/passwd", src / "ksnap_triton" / "passwd.py")
    r, _ = build(tmp_path, source=src)
    assert r.returncode == 2
    assert "passwd.py: a link in the package" in r.stderr

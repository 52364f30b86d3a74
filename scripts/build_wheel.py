#!/usr/bin/env python3
"""Builds the capture plugin's wheel with the standard library alone.

    python3 scripts/build_wheel.py OUT_DIR [--source python/]
    => OUT_DIR/ksnap_triton-<version>-py3-none-any.whl

A wheel is a zip file (PEP 427): the package's files, and a
`ksnap_triton-<version>.dist-info/` with METADATA (PEP 566), WHEEL and RECORD
(every file's sha256 and size). No setuptools, wheel or network is needed to
build it, and `pip install ksnap_triton-*.whl` needs none to install it, in
any Python >= 3.9 (pyenv, conda, a venv). The archive is reproducible: files
in sorted order, one fixed timestamp (SOURCE_DATE_EPOCH, else 2020-01-01),
fixed permissions; bytecode and __pycache__ are left out.

Exit status: 0 on success; 2 when the source is not the plugin (an error
naming the file).
"""
import argparse
import base64
import hashlib
import os
import re
import sys
import time
import zipfile

PACKAGE = "ksnap_triton"
DIST = "ksnap_triton"  # the normalized distribution name (PEP 503 / 427)
SUMMARY = ("Capture the IR of every Triton kernel variant a program compiles "
           "(the ksnap capture plugin)")


def version_of(init_path):
    with open(init_path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r'^__version__\s*=\s*"([0-9][0-9A-Za-z.+-]*)"', text, re.M)
    if not m:
        raise ValueError(f"{init_path}: no __version__ = \"...\" line")
    return m.group(1)


def package_files(src):
    """Relative paths of the package's files, sorted; no bytecode."""
    out = []
    root = os.path.join(src, PACKAGE)
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in files:
            if name.endswith((".pyc", ".pyo")):
                continue
            path = os.path.join(folder, name)
            if os.path.islink(path):
                raise ValueError(f"{path}: a link in the package (a wheel holds files)")
            out.append(os.path.relpath(path, src).replace(os.sep, "/"))
    return sorted(out)


def record_hash(data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode("ascii")


def build(src, out_dir):
    version = version_of(os.path.join(src, PACKAGE, "__init__.py"))
    info = f"{DIST}-{version}.dist-info"
    metadata = (
        "Metadata-Version: 2.1\n"
        f"Name: ksnap-triton\n"
        f"Version: {version}\n"
        f"Summary: {SUMMARY}\n"
        "Requires-Python: >=3.9\n"
        "Classifier: Programming Language :: Python :: 3\n"
        "Classifier: Topic :: Software Development :: Compilers\n"
        "Description-Content-Type: text/plain\n"
        "\n"
        "Run a Triton program unchanged and record every kernel variant it compiles;\n"
        "see docs/capture.md of ksnap. Standard library only; it finds the program's\n"
        "own Triton at run time.\n")
    wheel = ("Wheel-Version: 1.0\n"
             "Generator: ksnap scripts/build_wheel.py\n"
             "Root-Is-Purelib: true\n"
             "Tag: py3-none-any\n")
    entries = []
    for rel in package_files(src):
        with open(os.path.join(src, rel), "rb") as f:
            entries.append((rel, f.read()))
    entries.append((f"{info}/METADATA", metadata.encode("utf-8")))
    entries.append((f"{info}/WHEEL", wheel.encode("utf-8")))
    record = "".join(f"{name},{record_hash(data)},{len(data)}\n" for name, data in entries)
    record += f"{info}/RECORD,,\n"
    entries.append((f"{info}/RECORD", record.encode("utf-8")))

    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "1577836800"))
    stamp = time.gmtime(max(epoch, 315532800))[:6]  # zip starts in 1980
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"{DIST}-{version}-py3-none-any.whl")
    tmp = path + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries:
            zi = zipfile.ZipInfo(name, date_time=stamp)
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
    os.replace(tmp, path)  # never a half-written wheel under the final name
    return path


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out_dir")
    p.add_argument("--source", default=os.path.join(here, "..", "python"),
                   help="the folder holding ksnap_triton/ (default: the repository's python/)")
    a = p.parse_args(argv)
    try:
        print(build(os.path.abspath(a.source), a.out_dir))
    except (OSError, ValueError) as e:
        print(f"build_wheel: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Rebuilds the corpus work folder from the parts pack.py wrote.

    unpack.py PARTS_DIR DEST

Joins ``tierN.tar.zst.NN`` (or ``.xz``) parts, decompresses, and writes every
path of each tier's ``index.json`` from its blob. Identical files become
hard links of one another (they were one blob). Refuses paths that would
leave DEST.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile


def join_parts(parts_dir: str) -> list[str]:
    groups: dict[str, list[str]] = {}
    for p in glob.glob(os.path.join(parts_dir, "tier*.tar.*.[0-9][0-9]")):
        groups.setdefault(p[:-3], []).append(p)
    out = []
    for whole, parts in sorted(groups.items()):
        with open(whole, "wb") as f:
            for part in sorted(parts):
                with open(part, "rb") as src:
                    f.write(src.read())
        out.append(whole)
    return out


def decompress(path: str) -> str:
    tar = re.sub(r"\.(zst|xz)$", "", path)
    if path.endswith(".zst"):
        subprocess.run(["zstd", "-q", "-d", "-f", "--long=30", path, "-o", tar], check=True)
    else:
        with open(tar, "wb") as f:
            subprocess.run(["xz", "-d", "-c", path], stdout=f, check=True)
    return tar


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("parts_dir")
    p.add_argument("dest")
    p.add_argument("--scratch", default=None)
    a = p.parse_args()
    dest = os.path.abspath(a.dest)
    scratch = a.scratch or a.dest + ".parts"
    os.makedirs(scratch, exist_ok=True)
    for f in glob.glob(os.path.join(a.parts_dir, "tier*")):
        shutil.copyfile(f, os.path.join(scratch, os.path.basename(f)))
    for whole in join_parts(scratch):
        tar_path = decompress(whole)
        with tarfile.open(tar_path) as tar:
            index = json.load(tar.extractfile("index.json"))
            blobs = {m.name[len("blobs/"):]: m for m in tar.getmembers() if m.name.startswith("blobs/")}
            first: dict[str, str] = {}
            for rel, h in sorted(index["files"].items()):
                out = os.path.abspath(os.path.join(dest, rel))
                if not out.startswith(dest + os.sep):
                    sys.exit(f"{rel}: path leaves {dest}")
                os.makedirs(os.path.dirname(out), exist_ok=True)
                if h in first:
                    os.link(first[h], out)
                    continue
                with open(out, "wb") as f:
                    f.write(tar.extractfile(blobs[h]).read())
                first[h] = out
        print(f"{os.path.basename(whole)}: tier {index['tier']}, {len(index['files'])} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())

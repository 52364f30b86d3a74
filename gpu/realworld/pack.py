"""Packs the corpus work folder into at most N files of at most 15 MiB for
the trip back from the GPU machine, most important content first.

    pack.py WORK OUTDIR [--max-files 7] [--max-bytes 62914560] [--zstd PATH]

Captures of different builds share most of their files (a knob leaves most
stages byte-identical), so files are stored once by content: an archive
holds ``index.json`` (path -> sha256 of every kept file, per tier) and the
unique blobs ``blobs/<sha256>``, ordered by file name so that similar IR
sits close together for the compressor. Tiers, each its own .tar.zst, split
into 15 MiB parts, added while the budget lasts:

  1. manifests, shards, reports, logs, Triton metadata (.json) and the TTIR,
     TTGIR, PTX and AMDGCN stages;
  2. LLVM IR;  3. ``source`` (TTIR before optimization);  4. cubin / hsaco.

Launchers (``*.so``) are never packed. unpack.py rebuilds the folders.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile

PART = 15 * 1024 * 1024


def tier_of(rel: str) -> int | None:
    name = os.path.basename(rel)
    if name.endswith(".so") or "/__pycache__/" in rel or ".tmp." in name:
        return None
    ext = name.rsplit(".", 1)[-1] if "." in name else ""
    if ext == "llir":
        return 2
    if ext == "source":
        return 3
    if ext in ("cubin", "hsaco"):
        return 4
    return 1


def collect(work: str) -> dict[int, dict[str, str]]:
    tiers: dict[int, dict[str, str]] = {1: {}, 2: {}, 3: {}, 4: {}}
    blobs: dict[str, str] = {}
    for root, dirs, files in os.walk(work):
        dirs.sort()
        for f in sorted(files):
            path = os.path.join(root, f)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            rel = os.path.relpath(path, work)
            t = tier_of(rel)
            if t is None:
                continue
            h = hashlib.sha256(open(path, "rb").read()).hexdigest()
            blobs.setdefault(h, path)
            tiers[t][rel] = h
    collect.blobs = blobs  # type: ignore[attr-defined]
    return tiers


def build_tar(index: dict[str, str], blobs: dict[str, str], tier: int, dest: str) -> None:
    order = sorted(set(index.values()),
                   key=lambda h: (os.path.basename(blobs[h]).rsplit(".", 1)[-1],
                                  os.path.basename(blobs[h]), blobs[h]))
    with tarfile.open(dest, "w", format=tarfile.PAX_FORMAT) as tar:
        data = json.dumps({"tier": tier, "files": index}, indent=0, sort_keys=True).encode()
        info = tarfile.TarInfo("index.json")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
        for h in order:
            tar.add(blobs[h], arcname=f"blobs/{h}", recursive=False)


def compress(src: str, dest: str, zstd: str | None) -> str:
    if zstd:
        r = subprocess.run([zstd, "-q", "-f", "-T0", "-17", "--long=30", src, "-o", dest + ".zst"],
                           capture_output=True, text=True)
        if r.returncode == 0:
            return dest + ".zst"
        print(f"zstd failed ({r.stderr.strip()[:200]}); using xz", file=sys.stderr)
    subprocess.run(["xz", "-T0", "-6", "-k", "-f", "-c", src], stdout=open(dest + ".xz", "wb"), check=True)
    return dest + ".xz"


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("work")
    p.add_argument("outdir")
    p.add_argument("--max-files", type=int, default=7)
    p.add_argument("--max-bytes", type=int, default=60 * 1024 * 1024)
    p.add_argument("--zstd", default=shutil.which("zstd"))
    p.add_argument("--tmp", default="/tmp/ksnap-pack")
    a = p.parse_args()
    shutil.rmtree(a.tmp, ignore_errors=True)
    os.makedirs(a.tmp)
    os.makedirs(a.outdir, exist_ok=True)
    tiers = collect(a.work)
    blobs = collect.blobs  # type: ignore[attr-defined]
    files_left, bytes_left = a.max_files, a.max_bytes
    summary = []
    for tier in (1, 2, 3, 4):
        index = tiers[tier]
        if not index:
            continue
        raw = os.path.join(a.tmp, f"tier{tier}.tar")
        build_tar(index, blobs, tier, raw)
        packed = compress(raw, raw, a.zstd)
        size = os.path.getsize(packed)
        nparts = max(1, -(-size // PART))
        row = {"tier": tier, "files": len(index), "unique": len(set(index.values())),
               "raw_bytes": os.path.getsize(raw), "packed_bytes": size, "parts": nparts}
        if nparts > files_left or size > bytes_left:
            row["dropped"] = "over the budget of files coming back"
            summary.append(row)
            print(json.dumps(row), flush=True)
            continue
        base = os.path.join(a.outdir, os.path.basename(packed))
        with open(packed, "rb") as f:
            for i in range(nparts):
                with open(f"{base}.{i:02d}", "wb") as out:
                    out.write(f.read(PART))
        files_left -= nparts
        bytes_left -= size
        summary.append(row)
        print(json.dumps(row), flush=True)
    with open(os.path.join(a.work, "pack-summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Copies a capture into a small test fixture.

    trim_fixture.py CAPTURE DEST [--drop-stage llir ...] [--max-bytes N]

Keeps manifest.json, the manifest.d/ shards and the cache folders entries name (IR
stages, cubin, metadata, Triton's __grp__ file); drops everything else in
cache/ (the compiled `.so` launchers and utility modules). --drop-stage
removes a stage from every entry (file and `stages` key) and lists it under
the manifest's top-level "trimmed". Fails if DEST ends up over --max-bytes.
"""

import argparse
import json
import os
import shutil
import sys


def trim(src, dest, drop, max_bytes):
    m = json.load(open(os.path.join(src, "manifest.json")))
    if os.path.exists(dest):
        shutil.rmtree(dest)
    os.makedirs(os.path.join(dest, "cache"))
    kept_dirs = sorted({e["cache_dir"] for e in m["entries"]})
    for d in kept_dirs:
        os.makedirs(os.path.join(dest, "cache", d))
        for f in sorted(os.listdir(os.path.join(src, "cache", d))):
            if f.endswith(".so") or any(f.endswith("." + s) for s in drop):
                continue
            shutil.copyfile(os.path.join(src, "cache", d, f), os.path.join(dest, "cache", d, f))
    for e in m["entries"]:
        for s in drop:
            (e.get("stages") or {}).pop(s, None)
    if drop:
        m["trimmed"] = {"dropped_stages": sorted(drop)}
    with open(os.path.join(dest, "manifest.json"), "w") as f:
        json.dump(m, f, indent=1)
        f.write("\n")
    shard_dir = os.path.join(src, "manifest.d")
    if os.path.isdir(shard_dir):
        os.makedirs(os.path.join(dest, "manifest.d"))
        for f in sorted(os.listdir(shard_dir)):
            if not f.endswith(".json") or f.startswith("."):
                continue
            shard = json.load(open(os.path.join(shard_dir, f)))
            for e in shard.get("entries", []):
                for s in drop:
                    (e.get("stages") or {}).pop(s, None)
            with open(os.path.join(dest, "manifest.d", f), "w") as out:
                json.dump(shard, out, indent=1)
                out.write("\n")
    total = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(dest) for f in fs)
    print(f"{dest}: {len(m['entries'])} entries, {len(kept_dirs)} cache folders, {total} bytes")
    if max_bytes and total > max_bytes:
        sys.exit(f"{dest}: {total} bytes > --max-bytes {max_bytes}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("capture")
    p.add_argument("dest")
    p.add_argument("--drop-stage", action="append", default=[])
    p.add_argument("--max-bytes", type=int, default=0)
    a = p.parse_args()
    trim(a.capture, a.dest, a.drop_stage, a.max_bytes)


if __name__ == "__main__":
    main()

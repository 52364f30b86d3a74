"""Cuts the committed recompile fixtures out of the H200 captures.

    cut_fixture.py SRC DEST [--kernels a,b] [--matmul N] [--drop-stage llir ...]

Keeps the entries of the named kernels plus the first N matmul_kernel
entries (manifest order), their cache folders (IR stages, binaries, sass,
metadata, the __ksnap_source__ record) and drops the listed stages, the
shards and Triton's launcher modules. Prints the size.
"""

import argparse
import json
import os
import shutil


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("dest")
    ap.add_argument("--kernels", default="softmax_kernel,layer_norm_fwd,attn_fwd")
    ap.add_argument("--matmul", type=int, default=1)
    ap.add_argument("--drop-stage", action="append", default=[])
    a = ap.parse_args()
    m = json.load(open(os.path.join(a.src, "manifest.json")))
    wanted = set(a.kernels.split(","))
    keep, mm = [], 0
    for e in m["entries"]:
        if e["kernel"] in wanted or (e["kernel"] == "matmul_kernel" and mm < a.matmul):
            mm += e["kernel"] == "matmul_kernel"
            keep.append(e)
    if os.path.exists(a.dest):
        shutil.rmtree(a.dest)
    for e in keep:
        src_dir = os.path.join(a.src, "cache", e["cache_dir"])
        dst_dir = os.path.join(a.dest, "cache", e["cache_dir"])
        os.makedirs(dst_dir, exist_ok=True)
        for f in sorted(os.listdir(src_dir)):
            if f.endswith(".so") or any(f.endswith("." + s) for s in a.drop_stage):
                continue
            shutil.copyfile(os.path.join(src_dir, f), os.path.join(dst_dir, f))
        for s in a.drop_stage:
            e["stages"].pop(s, None)
        e.pop("shards", None)
    m["entries"] = keep
    if a.drop_stage:
        m["trimmed"] = {"dropped_stages": sorted(a.drop_stage)}
    with open(os.path.join(a.dest, "manifest.json"), "w") as f:
        json.dump(m, f, indent=1)
        f.write("\n")
    size = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(a.dest) for f in fs)
    print(f"{a.dest}: {len(keep)} entries, {size} bytes")


if __name__ == "__main__":
    main()

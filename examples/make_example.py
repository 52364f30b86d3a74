#!/usr/bin/python3
"""Copies a small subset of the shared Triton corpus into examples/corpus.

The subset (8 of the 19 variants, every build, every stage, cubins included,
Python launcher .so files left out) is what the README demo and the golden CLI
tests run on, so that a fresh clone works without ../shared. truth.json is cut
to the same variants.

Usage: examples/make_example.py [SHARED_CORPUS] [OUT]
"""
import json
import os
import shutil
import sys

KEEP = [
    ("add_kernel", {"BLOCK_SIZE": 256}),
    ("add_kernel", {"BLOCK_SIZE": 1024}),
    ("softmax_kernel", {"BLOCK_SIZE": 256}),
    ("softmax_kernel", {"BLOCK_SIZE": 1024}),
    ("layer_norm_fwd", {"BLOCK_SIZE": 1024}),
    ("matmul_kernel", {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8}),
    ("matmul_kernel", {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8}),
    ("attn_fwd", {"HEAD_DIM": 64, "BLOCK_M": 64, "BLOCK_N": 32, "CAUSAL": True}),
]


def kept(entry):
    return any(entry["kernel"] == k and entry["constexprs"] == c for k, c in KEEP)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "shared", "corpus")
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "corpus")
    if os.path.exists(out):
        shutil.rmtree(out)
    ids = set()
    for build in ("base", "noise", "no_licm", "fusion_off"):
        with open(os.path.join(src, build, "manifest.json")) as f:
            m = json.load(f)
        m["entries"] = [e for e in m["entries"] if kept(e)]
        assert len(m["entries"]) == len(KEEP), (build, len(m["entries"]))
        for e in m["entries"]:
            d_in = os.path.join(src, build, "cache", e["cache_dir"])
            d_out = os.path.join(out, build, "cache", e["cache_dir"])
            os.makedirs(d_out)
            for name in sorted(os.listdir(d_in)):
                if not name.endswith(".so"):
                    shutil.copyfile(os.path.join(d_in, name), os.path.join(d_out, name))
            ids.add(e["kernel"] + "|" + json.dumps(e["constexprs"], sort_keys=True))
        with open(os.path.join(out, build, "manifest.json"), "w") as f:
            json.dump(m, f, indent=1)
            f.write("\n")
    with open(os.path.join(src, "truth.json")) as f:
        truth = json.load(f)
    for pair in truth["pairs"].values():
        pair["rows"] = {k: v for k, v in pair["rows"].items()
                        if "|".join(k.split("|")[:2]) in ids}
        pair["changed"] = sum(1 for v in pair["rows"].values() if v["changed"])
    truth["note"] += " (cut to the examples/corpus subset by examples/make_example.py)"
    with open(os.path.join(out, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()

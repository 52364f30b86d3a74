"""Checks a capture of bench_suite.py: every (shape, config) variant is there.

    check_capture.py CAPTURE [--quick] [--no-launch] [--arch sm80] [--same-as OTHER]

Asserts, reading only the capture (no Triton needed):
* manifest.json is format ksnap-capture v1 and every entry's stage files exist;
* every `<hash>/<kernel>.json` Triton wrote into cache/ has an entry (nothing
  compiled went unrecorded) and every entry's cache folder exists;
* for each matmul shape and each of the 8 autotune configs, exactly one
  matmul entry has that config's constexprs and num_warps/num_stages and the
  shape among its benchmark points (for a real run also: launched, n_regs);
* softmax, layer norm and attention each have one entry;
* --same-as OTHER: both captures hold the same variants (kernel, constexprs,
  options, signature, Triton cache hash) with byte-identical stage files.
Prints a summary; exits 1 with the failures listed.
"""

import argparse
import filecmp
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

MATMUL_CONFIG_TABLE = [  # same as suite_kernels.MATMUL_CONFIG_TABLE (no torch import here)
    (128, 256, 64, 8, 3, 8), (64, 256, 32, 8, 4, 4), (128, 128, 32, 8, 4, 4),
    (128, 64, 32, 8, 4, 4), (64, 128, 32, 8, 4, 4), (128, 32, 32, 8, 4, 4),
    (64, 32, 32, 8, 5, 2), (32, 64, 32, 8, 5, 2),
]


def load_shapes(quick):
    text = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_suite.py")).read()
    ns = {}
    start = text.index("MATMUL_SHAPES = [")
    exec(text[start:text.index("]\n", start) + 2], ns)  # the literal list only
    shapes = [tuple(s) for s in ns["MATMUL_SHAPES"]]
    return shapes[:3] if quick else shapes


def variant_id(e):
    return json.dumps([e["kernel"], e.get("constexprs"), e.get("options"), e.get("signature")],
                      sort_keys=True)


def check(root, quick, no_launch, arch, same_as):
    failures = []
    m = json.load(open(os.path.join(root, "manifest.json")))
    if m.get("format") != "ksnap-capture" or m.get("format_version") != 1:
        failures.append(f"format is {m.get('format')!r} v{m.get('format_version')!r}")
    entries = m["entries"]
    for e in entries:
        for stage, rel in (e.get("stages") or {}).items():
            if not os.path.isfile(os.path.join(root, rel)):
                failures.append(f"{e['kernel']}: {stage} file {rel} missing")
        if not os.path.isdir(os.path.join(root, "cache", e["cache_dir"])):
            failures.append(f"{e['kernel']}: cache folder {e['cache_dir']} missing")
        if arch and e.get("arch") != arch:
            failures.append(f"{e['kernel']}: arch {e.get('arch')} != {arch}")
        if no_launch and e.get("launched"):
            failures.append(f"{e['kernel']}: launched under --no-launch")
    recorded = {(e["cache_dir"], e["kernel"]) for e in entries}
    cache = os.path.join(root, "cache")
    compiled = set()
    for d in sorted(os.listdir(cache)):
        for f in os.listdir(os.path.join(cache, d)):
            if f.endswith(".json") and not f.startswith("__grp__"):
                compiled.add((d, f[: -len(".json")]))
    for d, k in sorted(compiled - recorded):
        failures.append(f"Triton compiled {k} into cache/{d} but the capture has no entry")

    mm = [e for e in entries if e["kernel"] == "matmul_kernel"]
    shapes = load_shapes(quick)
    covered = 0
    for (bm, bn, bk, g, stages, warps) in MATMUL_CONFIG_TABLE:
        want_c = {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": g}
        of_config = [e for e in mm if e["constexprs"] == want_c
                     and e["options"].get("num_warps") == warps
                     and e["options"].get("num_stages") == stages]
        if not of_config:
            failures.append(f"matmul config {want_c} w{warps} s{stages}: no entry")
        for (M, N, K) in shapes:
            hits = [e for e in of_config
                    if any(p.get("M") == M and p.get("N") == N and p.get("K") == K
                           for p in e["benchmark"]["points"])]
            if len(hits) != 1:
                failures.append(f"matmul {M}x{N}x{K} config {bm}/{bn}/{bk} w{warps} s{stages}: "
                                f"{len(hits)} entries")
                continue
            covered += 1
            if not no_launch and not (hits[0]["launched"] and isinstance(hits[0]["n_regs"], int)):
                failures.append(f"matmul {M}x{N}x{K} {bm}/{bn}/{bk}: not launched or no n_regs")
    for kernel in ("softmax_kernel", "layer_norm_fwd", "attn_fwd"):
        n = sum(1 for e in entries if e["kernel"] == kernel)
        if n != 1:
            failures.append(f"{kernel}: {n} entries, expected 1")
    same = None
    if same_as:
        other = json.load(open(os.path.join(same_as, "manifest.json")))["entries"]
        mine = {variant_id(e): e for e in entries}
        theirs = {variant_id(e): e for e in other}
        if set(mine) != set(theirs):
            failures.append(f"--same-as: {len(set(mine) ^ set(theirs))} variants differ")
        same = 0
        for vid in sorted(set(mine) & set(theirs)):
            a, b = mine[vid], theirs[vid]
            if a["cache_dir"] != b["cache_dir"]:
                failures.append(f"--same-as: {a['kernel']} cache hash {a['cache_dir']} != {b['cache_dir']}")
            for stage, rel in a["stages"].items():
                rel_b = b["stages"].get(stage)
                if rel_b and filecmp.cmp(os.path.join(root, rel), os.path.join(same_as, rel_b),
                                         shallow=False):
                    same += 1
                else:
                    failures.append(f"--same-as: {a['kernel']} {stage} differs")
    kernels = sorted({e["kernel"] for e in entries})
    print(f"{root}: {len(entries)} entries ({len(mm)} matmul) of {kernels}; "
          f"{len(compiled)} compiled variants in cache/; "
          f"(shape, config) pairs covered {covered}/{len(shapes) * len(MATMUL_CONFIG_TABLE)}"
          + (f"; {same} stage files identical to {same_as}" if same is not None else ""))
    return failures


def main():
    p = argparse.ArgumentParser()
    p.add_argument("capture")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--no-launch", action="store_true")
    p.add_argument("--arch")
    p.add_argument("--same-as")
    a = p.parse_args()
    failures = check(a.capture, a.quick, a.no_launch, a.arch, a.same_as)
    for f in failures:
        print("FAIL", f)
    print("OK" if not failures else f"{len(failures)} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

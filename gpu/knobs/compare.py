"""Agreement of launched and recompiled captures under each knob (issue 17, item 1).

    compare.py KSNAP CAPTURES_DIR   (the folders gpu/knobs/run_knobs.sh brought back)

For every knob K: `ksnap diff base launch-K` (what a launch under the knob
changed) against `ksnap diff base rc-K` (what a recompile of base under the
knob changed), variant by variant and stage by stage; then `ksnap diff
launch-K rc-K`, which must report no IR change. Prints one table row per knob
and every disagreement; exits 1 on any.
"""

import json
import os
import subprocess
import sys

KNOBS = ["triton-default-fp-fusion", "disable-llvm-opt", "disable-mma-v3",
         "triton-disable-line-info"]


def diff(ksnap: str, a: str, b: str) -> dict:
    r = subprocess.run([ksnap, "diff", a, b, "--format", "json"], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"ksnap diff {a} {b}: exit {r.returncode}: {r.stderr[:400]}")
    return json.loads(r.stdout)


def changed(report: dict) -> set:
    """(variant id, stage) of every stage that is not unchanged, and the pairing."""
    out = set()
    for v in report["variants"]:
        for stage, s in v["stages"].items():
            if s["status"] != "unchanged":
                out.add((v["id"], stage, s["status"]))
    return out


def main() -> int:
    ksnap, root = sys.argv[1], sys.argv[2]
    base = os.path.join(root, "base")
    bad = 0
    print("| knob | variants | launched: variants changed | stages changed | recompiled: variants "
          "changed | stages changed | agree | launched vs recompiled |")
    print("|---|---|---|---|---|---|---|---|")
    for k in KNOBS:
        launched = diff(ksnap, base, os.path.join(root, f"launch-{k}"))
        rebuilt = diff(ksnap, base, os.path.join(root, f"rc-{k}"))
        direct = diff(ksnap, os.path.join(root, f"launch-{k}"), os.path.join(root, f"rc-{k}"))
        cl, cr, cd = changed(launched), changed(rebuilt), changed(direct)
        agree = cl == cr
        bad += (not agree) + bool(cd)
        vl = {c[0] for c in cl}
        vr = {c[0] for c in cr}
        n = len(launched["variants"])
        print(f"| `{k}` | {n} | {len(vl)} | {len(cl)} | {len(vr)} | {len(cr)} | "
              f"{'yes' if agree else 'NO'} | {'no IR change' if not cd else f'{len(cd)} stages differ'} |")
        for c in sorted(cl - cr):
            print(f"    only launched: {c}")
        for c in sorted(cr - cl):
            print(f"    only recompiled: {c}")
        for c in sorted(cd)[:10]:
            print(f"    launch vs recompile: {c}")
    none = changed(diff(ksnap, base, os.path.join(root, "rc-none")))
    print(f"\nbase vs its recompile without a knob: {len(none)} stages changed")
    bad += bool(none)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

"""Cuts the raw real-world corpus (every build's capture, ~1.4 GB) into the
test fixture tests/fixtures/realworld/<build>/ under a byte budget.

    trim_corpus.py RAW DEST [--budget 11200000] [--amd-share 0.33]

The same logical variants and stages are kept in every build of a target
(NVIDIA, gfx942), so pairs stay comparable; what is kept is chosen in
priority order while the budget lasts (file sizes summed over the builds):

  1. every kernel, in every build: its smallest variant (among those every
     build has) with its first IR stage (TTIR; TTGIR for Gluon kernels,
     which have no TTIR) and metadata;
  2. variants that make a pair interesting, first IR stage: each build's
     own autotune winner of the leaky_relu matmul (its constexprs differ
     between builds: one removed + one added variant) wherever it was
     compiled, one variant only no_launch lacks, and the two smallest warp-specialized variants whose
     IR differs between base and repeat (compiler nondeterminism; their TTGIR
     too, where the nondeterminism starts);
  3. every other stage of the step-1 variants, cheapest (kernel, stage)
     first, so that as many kernels as possible keep as many stages as
     possible (the attention backward's 8.8 MB of LLVM IR does not fit);
  4. the special variants' other stages, cheapest first.

Dropped always: ``source`` (TTIR before optimization; ksnap diffs it only
when asked), cubin/hsaco (binary), Triton's ``__grp__`` index, the launcher
``.so`` files and the manifest.d shards. The manifest keeps every field of
the kept entries, their ``stages`` lists only the kept files, and
``trimmed`` records what was cut and how many variants the raw build had.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import builds  # noqa: E402
from corpus_index import identity, load_build, stage_path  # noqa: E402

IR_ORDER = ("ttir", "ttgir", "ptx", "amdgcn", "llir")


def fsize(path: str | None) -> int:
    return os.path.getsize(path) if path and os.path.exists(path) else 0


def same_bytes(a: str | None, b: str | None) -> bool:
    if not a or not b:
        return a == b
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def select(raw: str, group: list[str], budget: int) -> tuple[dict, int]:
    """-> ({identity: set(stages)}, bytes) for one target's builds."""
    idx = {b: load_build(os.path.join(raw, b)) for b in group if os.path.isdir(os.path.join(raw, b))}
    base = group[0]
    everywhere = set(idx[base])

    def cost(ident: str, stage: str) -> int:
        return sum(fsize(stage_path(os.path.join(raw, b), idx[b][ident], stage))
                   for b in idx if ident in idx[b])

    def meta_cost(ident: str) -> int:
        return sum(fsize(os.path.join(raw, b, idx[b][ident]["metadata"])) + 1500
                   for b in idx if ident in idx[b])

    chosen: dict[str, set] = defaultdict(set)
    used = 0

    def add(ident: str, stage: str) -> bool:
        nonlocal used
        if stage in chosen.get(ident, ()):
            return True
        c = cost(ident, stage) + (0 if ident in chosen else meta_cost(ident))
        if c == 0 or used + c > budget:
            return False
        chosen[ident].add(stage)
        used += c
        return True

    def first_stage(ident: str) -> str:
        st = idx[base].get(ident, next(idx[b][ident] for b in idx if ident in idx[b]))["stages"]
        return "ttir" if "ttir" in st else "ttgir"

    def full(ident: str) -> int:
        return sum(cost(ident, s) for s in IR_ORDER)

    by_kernel: dict[str, list[str]] = defaultdict(list)
    for ident, e in idx[base].items():
        by_kernel[e["qualname"]].append(ident)
    in_all = {i for i in everywhere if all(i in idx[b] for b in idx)}
    smallest = {q: min(ids, key=lambda i: (i not in in_all, full(i))) for q, ids in sorted(by_kernel.items())}

    # Variants that make a pair interesting.
    all_ids = set().union(*(set(v) for v in idx.values()))
    special: list[str] = sorted(all_ids - everywhere)  # only in some builds (autotune winners)
    # Variants some build lacks: every autotune winner (they differ between
    # builds), and the cheapest of those only --no-launch lacks (its result
    # checks stop a tutorial step early).
    lacking = {i: [b for b in idx if i not in idx[b]] for i in everywhere - in_all}
    special += sorted(i for i, bs in lacking.items() if any(builds.knob_of(b) != "no_launch" for b in bs))
    special += sorted((i for i, bs in lacking.items()
                       if all(builds.knob_of(b) == "no_launch" for b in bs)), key=full)[:1]
    rep = next((b for b in idx if builds.knob_of(b) == "repeat"), None)
    unstable_kept: list[str] = []
    if rep:
        unstable = [i for i in in_all if not all(
            same_bytes(stage_path(os.path.join(raw, base), idx[base][i], s),
                       stage_path(os.path.join(raw, rep), idx[rep][i], s)) for s in IR_ORDER)]
        unstable_kept = sorted(unstable, key=full)[:2]
        special += unstable_kept
    special = list(dict.fromkeys(i for i in special if i not in smallest.values()))

    def rest(i: str) -> list[str]:
        return [s for s in IR_ORDER if s != first_stage(i) and cost(i, s)]

    for q in sorted(smallest):  # 1: every kernel, first IR stage
        add(smallest[q], first_stage(smallest[q]))
    for i in special:  # 2: the special variants' first stage
        add(i, first_stage(i))
    for i in unstable_kept:  # the nondeterminism shows from TTGIR on
        add(i, "ttgir")
    # 3: every other (kernel, stage) of the step-1 variants, cheapest first,
    # so that as many kernels as possible keep as many stages as possible;
    # 4: then the special variants' other stages.
    for ids in (list(smallest.values()), special):
        items = sorted((cost(i, s), i, s) for i in ids for s in rest(i))
        for _, i, s in items:
            add(i, s)
    return chosen, used


def write_build(raw: str, dest: str, build: str, chosen: dict) -> tuple[int, int]:
    src = os.path.join(raw, build)
    with open(os.path.join(src, "manifest.json")) as f:
        manifest = json.load(f)
    out_dir = os.path.join(dest, build)
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    kept = []
    for e in manifest["entries"]:
        stages = chosen.get(identity(e))
        if not stages:
            continue
        e = json.loads(json.dumps(e))
        e["stages"] = {s: p for s, p in e["stages"].items() if s in stages}
        for rel in list(e["stages"].values()) + [e["metadata"]]:
            os.makedirs(os.path.join(out_dir, os.path.dirname(rel)), exist_ok=True)
            shutil.copyfile(os.path.join(src, rel), os.path.join(out_dir, rel))
        kept.append(e)
    raw_count = len(manifest["entries"])
    manifest["entries"] = kept
    manifest["trimmed"] = {
        "dropped_stages": ["source", "cubin", "hsaco"],
        "kept_variants": len(kept), "raw_variants": raw_count,
        "how": "gpu/realworld/trim_corpus.py: a subset of variants and stages chosen under a byte "
               "budget; the same subset in every build of a target",
    }
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=False)
        f.write("\n")
    return len(kept), raw_count


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("raw")
    p.add_argument("dest")
    p.add_argument("--budget", type=int, default=11_200_000)
    p.add_argument("--amd-share", type=float, default=0.33)
    a = p.parse_args()
    groups = [list(builds.NVIDIA), list(builds.GFX942)]
    budgets = [int(a.budget * (1 - a.amd_share)), int(a.budget * a.amd_share)]
    total = 0
    for group, budget in zip(groups, budgets):
        chosen, used = select(a.raw, group, budget)
        for b in group:
            if os.path.isdir(os.path.join(a.raw, b)):
                kept, raw_count = write_build(a.raw, a.dest, b, chosen)
                print(f"{b}: {kept} of {raw_count} variants", file=sys.stderr)
        stages = defaultdict(int)
        for s in chosen.values():
            for x in s:
                stages[x] += 1
        print(f"{group[0]}..: {len(chosen)} variants, stages {dict(stages)}, ~{used} bytes", file=sys.stderr)
        total += used
    real = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(a.dest) for f in fs)
    print(f"total {real} bytes on disk", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

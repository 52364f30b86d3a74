"""Writes the ground truth of the real-world corpus: for every pair of builds
the tests diff, which variants pair, which stages really changed, which are
unstable (compiler nondeterminism), and which stages the pair's knob can
touch.

    make_truth.py CORPUS OUT.json [--unstable-from RAW_TRUTH.json] [--jobs 2]
                  [--no-plain-diff]

Nothing here uses ksnap. Variants pair by the truth identity of
corpus_index.py (qualified name + Triton's JIT key; kernel + constexprs +
options for direct compiles), every build's variants found in its own
manifest. A stage changed iff its two files differ after indep_norm.canon
(locations, debug info, comments and names removed; everything else kept).

Checks, so the truth is explained rather than fitted:

* a variant-stage that differs between two runs of the same source in the
  same environment (base vs repeat, base vs no_launch) is compiler
  nondeterminism; since one rerun shows it in some configs only, every
  variant of such a kernel is marked ``unstable`` in the stages where any of
  its variants differed, in every pair (taken from ``--unstable-from`` when
  the corpus is a subset of a larger one);
* in a noise pair (noise_path, noise_lineinfo) nothing may change;
* in a knob pair, a changed stage outside the knob's ``can_touch``
  (builds.py, read from Triton's source) must be unstable; anything else
  is listed under ``unexplained`` and the script exits 1.

Rows are keyed ``<BASE cache folder>|<stage>``; ``variants`` maps each BASE
cache folder to the HEAD cache folder it pairs with (exact pairing), with
ksnap's ``kernel|constexprs|options`` id for messages, and ``ids`` when
several variants (other JIT keys, same compile) share the folder.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from multiprocessing import Pool

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import builds  # noqa: E402
from corpus_index import ksnap_id, load_build, stage_path  # noqa: E402
from indep_norm import canon  # noqa: E402

STAGES = ("ttir", "ttgir", "llir", "ptx", "amdgcn")  # what `ksnap diff` compares by default
# Reruns of the same source and environment: any difference is nondeterminism.
RERUNS = ("repeat", "no_launch")


def _canon_hash(job: tuple[str, str]) -> tuple[str, str]:
    stage, path = job
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = canon(stage, f.read())
    return path, hashlib.sha1("\n".join(lines).encode()).hexdigest()


def plain_diff_lines(a: str, b: str) -> int:
    r = subprocess.run(["diff", a, b], capture_output=True, text=True, errors="replace")
    return sum(1 for line in r.stdout.splitlines() if line[:1] in "<>")


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("corpus")
    p.add_argument("out")
    p.add_argument("--unstable-from")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--no-plain-diff", action="store_true")
    a = p.parse_args()

    present = [b for b in builds.ALL if os.path.isdir(os.path.join(a.corpus, b))]
    idx = {b: load_build(os.path.join(a.corpus, b)) for b in present}
    folder = {b: os.path.join(a.corpus, b) for b in present}

    # Raw content hashes of every stage file; the canonical form is computed
    # only for contents that differ from the file they are compared with.
    def raw_hash(path: str) -> str:
        with open(path, "rb") as f:
            return hashlib.sha1(f.read()).hexdigest()

    raw = {stage_path(folder[b], e, s): "" for b in present for e in idx[b].values()
           for s in STAGES if stage_path(folder[b], e, s)}
    for path in raw:
        raw[path] = raw_hash(path)
    comparisons = [(b, hd) for b, hd in builds.pairs() if b in idx and hd in idx]
    for base in ("base", "gfx942_base"):
        for other in RERUNS:
            head = base[: -len("base")] + other
            if base in idx and head in idx:
                comparisons.append((base, head))
    need: dict[str, tuple[str, str]] = {}  # raw hash -> (stage, a path with that content)
    for base, head in comparisons:
        for ident in set(idx[base]) & set(idx[head]):
            for s in STAGES:
                pa = stage_path(folder[base], idx[base][ident], s)
                pb = stage_path(folder[head], idx[head][ident], s)
                if pa and pb and raw[pa] != raw[pb]:
                    need.setdefault(raw[pa], (s, pa))
                    need.setdefault(raw[pb], (s, pb))
    with Pool(a.jobs) as pool:
        done = dict(pool.map(_canon_hash, sorted(need.values()), chunksize=4))
    by_raw = {raw[path]: c for path, c in done.items()}
    print(f"{len(raw)} stage files, {len(need)} distinct contents canonicalized", file=sys.stderr)

    def h(b: str, ident: str, s: str) -> str | None:
        path = stage_path(folder[b], idx[b][ident], s)
        if not path:
            return None
        return by_raw.get(raw[path]) or "raw:" + raw[path]

    # Nondeterminism: differences where nothing may change.
    unstable: dict[str, set] = {}
    if a.unstable_from:
        with open(a.unstable_from) as f:
            for ident, stages in json.load(f)["unstable"].items():
                unstable.setdefault(ident, set()).update(stages)
    for base in ("base", "gfx942_base"):
        if base not in idx:
            continue
        prefix = base[: -len("base")]
        for other in RERUNS:
            b = prefix + other
            if b not in idx:
                continue
            for ident in set(idx[base]) & set(idx[b]):
                for s in STAGES:
                    if h(base, ident, s) != h(b, ident, s):
                        unstable.setdefault(ident, set()).add(s)

    # Nondeterminism is a property of how a kernel is compiled (e.g. Hopper
    # warp specialization orders two barrier arrivals differently from one
    # process to the next), and one rerun shows it in only some configs: every
    # variant of a kernel that was seen to differ between reruns is unstable
    # in the stages where any of its variants differed.
    qualname = {ident: e.get("qualname") for b in present for ident, e in idx[b].items()}
    kernel_stages: dict[str, set] = {}
    evidence: dict[str, int] = {}
    for ident, stages in unstable.items():
        q = qualname.get(ident, ident.split("|", 1)[0])
        kernel_stages.setdefault(q, set()).update(stages)
        evidence[q] = evidence.get(q, 0) + 1
    for ident, q in qualname.items():
        if q in kernel_stages:
            unstable.setdefault(ident, set()).update(kernel_stages[q])

    truth = {
        "note": "Ground truth of the real-world corpus (docs/realworld-corpus.md). Rows are keyed "
                "'<BASE cache folder>|<stage>'; 'changed' is decided by an independent canonicalizer "
                "(gpu/realworld/indep_norm.py), 'unstable' marks compiler nondeterminism (either "
                "report is right), 'variants' gives the exact pairing by cache folder.",
        "stages": list(STAGES),
        "can_touch": {k: v.get("can_touch", {"cuda": [], "hip": []}) for k, v in builds.NVIDIA.items()},
        "unstable_kernels": {q: {"stages": sorted(st), "variants_seen_differing": evidence[q]}
                             for q, st in sorted(kernel_stages.items())},
        "unstable": {k: sorted(v) for k, v in sorted(unstable.items())},
        "pairs": {},
        "unexplained": [],
    }
    for base, head in builds.pairs():
        if base not in idx or head not in idx:
            continue
        backend = builds.backend_of(head)
        knob = builds.knob_of(head)
        kind = builds.NVIDIA[knob]["kind"]
        base_kind = builds.NVIDIA[builds.knob_of(base)]["kind"]
        can_touch = set(builds.NVIDIA[knob].get("can_touch", {}).get(backend, []))
        A, B = idx[base], idx[head]
        pair = {"base": base, "head": head, "backend": backend, "kind": kind,
                "can_touch": sorted(can_touch) if kind == "knob" else [],
                "variants": {}, "removed": [], "added": [], "rows": {}}
        for ident in sorted(set(A) - set(B)):
            pair["removed"].append({"base_dir": A[ident]["cache_dir"], "id": ksnap_id(A[ident])})
        for ident in sorted(set(B) - set(A)):
            pair["added"].append({"head_dir": B[ident]["cache_dir"], "id": ksnap_id(B[ident])})
        for ident in sorted(set(A) & set(B)):
            ea, eb = A[ident], B[ident]
            v = pair["variants"].get(ea["cache_dir"])
            if v is None:
                pair["variants"][ea["cache_dir"]] = {"head_dir": eb["cache_dir"], "id": ksnap_id(ea)}
            else:
                # Two JIT variants (other keys) compiled to one cache folder
                # (07's asin with and without an explicit extern_libs naming
                # the default libdevice): each must pair with its own kind.
                v.setdefault("ids", [v["id"]]).append(ksnap_id(ea))
                if v["head_dir"] != eb["cache_dir"]:
                    truth["unexplained"].append({"pair": f"{base}..{head}", "id": ksnap_id(ea),
                                                 "why": "variants sharing a BASE cache folder "
                                                        "pair with different HEAD folders"})
                continue
            for s in STAGES:
                ha, hb = h(base, ident, s), h(head, ident, s)
                if ha is None and hb is None:
                    continue
                row = {"changed": ha != hb}
                if s in unstable.get(ident, ()):
                    row["unstable"] = True
                if not a.no_plain_diff and ha is not None and hb is not None:
                    row["plain_diff_lines"] = plain_diff_lines(stage_path(folder[base], ea, s),
                                                               stage_path(folder[head], eb, s))
                pair["rows"][f"{ea['cache_dir']}|{s}"] = row
                if row["changed"] and not row.get("unstable"):
                    allowed = can_touch if (kind == "knob") else set()
                    if s not in allowed:
                        truth["unexplained"].append(
                            {"pair": f"{base}..{head}", "id": ksnap_id(ea), "stage": s,
                             "why": f"{kind} pair (base is {base_kind}); {s} may not change"})
        rows = pair["rows"].values()
        pair["summary"] = {
            "variants": len(pair["variants"]), "removed": len(pair["removed"]),
            "added": len(pair["added"]), "rows": len(pair["rows"]),
            "changed": sum(1 for r in rows if r["changed"] and not r.get("unstable")),
            "unstable": sum(1 for r in rows if r.get("unstable")),
        }
        truth["pairs"][f"{base}..{head}"] = pair
        print(f"{base}..{head}: {pair['summary']}", file=sys.stderr)
    with open(a.out, "w") as f:
        json.dump(truth, f, indent=1, sort_keys=False)
        f.write("\n")
    for u in truth["unexplained"][:40]:
        print("UNEXPLAINED", u, file=sys.stderr)
    return 1 if truth["unexplained"] else 0


if __name__ == "__main__":
    sys.exit(main())

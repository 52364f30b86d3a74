"""Counts of a ``ksnap diff --format json`` report: variants paired, identical, changed.

    diff_summary.py REPORT.json LABEL    -> one line, and the changed variants
"""

import json
import sys


def main() -> None:
    path, label = sys.argv[1], sys.argv[2]
    d = json.load(open(path))
    variants = d["variants"]
    changed = [v for v in variants if v["changed"]]
    pairings = {}
    for v in variants:
        pairings[v["pairing"]] = pairings.get(v["pairing"], 0) + 1
    stages = {s["stage"]: s for s in d["summary"]}
    stage_txt = " ".join(f"{k}:{s['unchanged']}={s['changed']}~{s['added']}+{s['removed']}-"
                         for k, s in stages.items())
    print(f"{label}: {len(variants)} variants ({pairings}), {len(variants) - len(changed)} "
          f"identical, {len(changed)} changed; stages unchanged=changed~added+removed-: {stage_txt}")
    for v in changed[:20]:
        st = {k: s["status"] for k, s in v["stages"].items() if s["status"] != "unchanged"}
        print(f"  changed {v['id']} {st} {v.get('option_changes', [])}")


if __name__ == "__main__":
    main()

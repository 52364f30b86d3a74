"""Rerun only what changed: read ``ksnap diff --affected --format json``.

``ksnap diff BASE HEAD --affected --format json`` lists the benchmark points
whose variants changed (docs/recompile.md). This module turns that list into
what a suite needs:

* :func:`pytest_ids` - the pytest node ids of affected points (``{"test": id}``);
* :func:`restrict` - narrows ``triton.testing.Benchmark`` objects to the
  affected ``x_vals`` / ``line_vals`` before ``perf_report``'s ``run()``.

``python3 -m ksnap_triton affected FILE --pytest`` prints the node ids, one
per line; exit status 3 when nothing is affected, 4 when a changed variant
has no recorded point (the caller should then run everything), 2 on a bad file.

Worked example::

    points = load("affected.json", script="bench.py")
    # [{"M": 512, "N": 512, "K": 512, "provider": "triton"}]
    restrict(bench.benchmarks, points)      # x_vals -> [(512, 512, 512)]
"""

from __future__ import annotations

import json
import os
from typing import Any, Iterable

__all__ = ["AffectedError", "read", "load", "pytest_ids", "restrict", "main"]

EXIT_NONE, EXIT_UNATTRIBUTED = 3, 4


class AffectedError(ValueError):
    """A file that is not ``ksnap diff --affected --format json`` output."""


def read(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise AffectedError(f"{path}: cannot read: {e.strerror}") from None
    except ValueError as e:
        raise AffectedError(f"{path}: not JSON: {e}") from None
    if not isinstance(doc, dict) or doc.get("schema") != "ksnap-affected":
        raise AffectedError(f"{path}: not a ksnap-affected document")
    if not isinstance(doc.get("points"), list):
        raise AffectedError(f"{path}: \"points\" is not a list")
    return doc


def load(path: str, script: str | None = None) -> list[dict]:
    """The affected points (label objects) of ``script`` (matched by file
    name; None: all scripts)."""
    doc = read(path)
    want = os.path.basename(script) if script else None
    out = []
    for p in doc["points"]:
        s = p.get("script")
        if want and (not isinstance(s, str) or os.path.basename(s) != want):
            continue
        if isinstance(p.get("point"), dict):
            out.append(p["point"])
    return out


def pytest_ids(doc: dict) -> list[str]:
    ids = {p["point"]["test"] for p in doc["points"]
           if isinstance(p.get("point"), dict) and isinstance(p["point"].get("test"), str)}
    return sorted(ids)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and \
            not isinstance(a, bool) and not isinstance(b, bool):
        return float(a) == float(b)
    return a == b


def restrict(benchmarks: Any, points: Iterable[dict]) -> None:
    """Keeps in each ``triton.testing.Benchmark`` only affected x/line values.

    A point matches an x value when every one of the benchmark's ``x_names``
    it labels has that value; ``line_vals`` keep the ``line_arg`` values the
    matching points name (all of them when no point names one).
    """
    points = list(points)
    for b in benchmarks if isinstance(benchmarks, (list, tuple)) else [benchmarks]:
        names = list(b.x_names)
        kept_x = []
        lines: set = set()
        for x in b.x_vals:
            xs = list(x) if isinstance(x, (list, tuple)) else [x] * len(names)
            hits = [p for p in points
                    if all(n in p for n in names) and all(_same(p[n], v) for n, v in zip(names, xs))]
            if hits:
                kept_x.append(x)
                lines |= {json.dumps(p[b.line_arg]) for p in hits if b.line_arg in p}
        b.x_vals = kept_x
        if lines:
            b.line_vals = [v for v in b.line_vals if json.dumps(v) in lines]


def main(argv: list[str]) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="ksnap_triton affected")
    ap.add_argument("file", help="ksnap diff --affected --format json output")
    ap.add_argument("--pytest", action="store_true", help="print the pytest node ids")
    ap.add_argument("--script", help="only points of this benchmark script")
    a = ap.parse_args(argv)
    try:
        doc = read(a.file)
    except AffectedError as e:
        print(f"ksnap_triton: affected: {e}", file=__import__("sys").stderr)
        return 2
    if a.pytest:
        lines = pytest_ids(doc)
    else:
        lines = [json.dumps(p, sort_keys=True) for p in load(a.file, a.script)]
    for line in lines:
        print(line)
    if doc.get("unattributed"):
        return EXIT_UNATTRIBUTED
    return 0 if lines else EXIT_NONE

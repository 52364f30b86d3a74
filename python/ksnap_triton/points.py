"""Benchmark points: which shape / x-value / test a kernel variant ran for.

A *point* is a small JSON object of labels (``{"M": 512, "N": 512, "K": 512}``).
The capture attaches the point current at each compile and launch to the
variant, so benchmark results can later be attributed to compiled variants.
Points come from, innermost first:

1. ``benchmark_point(**labels)`` blocks in the program (explicit);
2. the automatic sources the Triton hooks push: ``triton.testing.perf_report``
   x-values and line value, and an autotuner's key arguments;
3. ``KSNAP_BENCHMARK_POINT`` (a JSON object) in the environment;
4. pytest's ``PYTEST_CURRENT_TEST`` (as ``{"test": node id}``).

Labels of inner sources override outer ones of the same name.

Worked example::

    >>> with benchmark_point(M=512, provider="triton"):
    ...     with benchmark_point(M=1024, K=64):
    ...         current_point()
    {'K': 64, 'M': 1024, 'provider': 'triton'}
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from typing import Any, Iterator

__all__ = ["benchmark_point", "push_point", "pop_point", "current_point", "label_value",
           "point_token"]

_local = threading.local()


def _stack() -> list[dict]:
    s = getattr(_local, "stack", None)
    if s is None:
        s = _local.stack = []
    return s


def label_value(value: Any) -> Any:
    """A JSON scalar for a label: numbers, bools and strings stay; objects with
    a ``shape`` (tensors) become their shape list; others their ``str``."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    shape = getattr(value, "shape", None)
    if shape is not None:
        try:
            return [int(d) for d in shape]
        except (TypeError, ValueError):
            pass
    if isinstance(value, (list, tuple)):
        return [label_value(v) for v in value]
    return str(value)


def _bump() -> None:
    _local.changes = getattr(_local, "changes", 0) + 1


def push_point(labels: dict) -> None:
    _stack().append({str(k): label_value(v) for k, v in labels.items()})
    _bump()


def pop_point() -> None:
    s = _stack()
    if s:
        s.pop()
        _bump()


# os.environ's backing dict (bytes keys on POSIX): reading it directly costs
# ~0.05 us against ~1.4 us for os.environ.get, and this runs on every launch.
_ENV_DATA = getattr(os.environ, "_data", None)
_ENV_KEYS = (b"KSNAP_BENCHMARK_POINT", b"PYTEST_CURRENT_TEST")


def point_token() -> tuple:
    """Cheap value that changes whenever current_point() may have changed
    (this thread's pushes/pops, the two environment variables)."""
    changes = getattr(_local, "changes", 0)
    if isinstance(_ENV_DATA, dict):
        return (changes, _ENV_DATA.get(_ENV_KEYS[0]), _ENV_DATA.get(_ENV_KEYS[1]))
    return (changes, os.environ.get("KSNAP_BENCHMARK_POINT"),
            os.environ.get("PYTEST_CURRENT_TEST"))


@contextlib.contextmanager
def benchmark_point(**labels: Any) -> Iterator[None]:
    """Labels every variant compiled or launched inside the block."""
    push_point(labels)
    try:
        yield
    finally:
        pop_point()


def _environment_point() -> dict:
    out: dict = {}
    raw = os.environ.get("KSNAP_BENCHMARK_POINT")
    if raw:
        try:
            data = json.loads(raw)
            if isinstance(data, dict):
                out.update({str(k): label_value(v) for k, v in data.items()})
            else:
                out["point"] = str(data)
        except ValueError:
            out["point"] = raw
    test = os.environ.get("PYTEST_CURRENT_TEST")
    if test:
        # "tests/x.py::test_y[a] (call)" -> "tests/x.py::test_y[a]"
        out.setdefault("test", test.rsplit(" (", 1)[0])
    return out


def current_point() -> dict | None:
    """The merged labels now in force (sorted keys), or None when there are none."""
    merged = _environment_point()
    for labels in _stack():
        merged.update(labels)
    if not merged:
        return None
    return {k: merged[k] for k in sorted(merged)}

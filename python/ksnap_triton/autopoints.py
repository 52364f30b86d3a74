"""Automatic benchmark points from Triton's autotuner and ``perf_report``.

* ``Autotuner.run``: while an autotuned kernel is called, its autotune key
  arguments (``key=['M', 'N', 'K']``) are the point, so the configs the
  autotuner benchmarks for one shape are all attributed to that shape.
* ``triton.testing.Mark`` (what ``@perf_report`` returns): while the
  benchmark function runs for one x-value and line value, those arguments
  (``x_names`` and ``line_arg``) are the point.

Each wrapper returns an undo callable. The classes are passed in so that the
logic is testable with stand-ins.

Worked example::

    undo = wrap_autotuner(Autotuner)
    matmul(a, b)   # inside: current_point() == {"K": 512, "M": 512, "N": 512}
    undo()
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from .points import pop_point, push_point

__all__ = ["wrap_autotuner", "wrap_mark", "autotune_labels", "perf_report_names"]


def autotune_labels(tuner: Any, args: tuple, kwargs: dict) -> dict:
    """The autotune key arguments of one call, by name."""
    names = list(getattr(tuner, "arg_names", None) or [])
    keys = list(getattr(tuner, "keys", None) or [])
    bound = dict(zip(names, args))
    bound.update(kwargs)
    return {k: bound[k] for k in keys if k in bound}


def wrap_autotuner(cls: Any) -> Callable[[], None]:
    original = cls.run

    @functools.wraps(original)
    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        labels = autotune_labels(self, args, kwargs)
        if not labels:
            return original(self, *args, **kwargs)
        push_point(labels)
        try:
            return original(self, *args, **kwargs)
        finally:
            pop_point()

    cls.run = run
    return lambda: setattr(cls, "run", original)


def perf_report_names(benchmarks: Any) -> list[str]:
    """x_names and line_arg of one Benchmark or a list of them."""
    items = benchmarks if isinstance(benchmarks, (list, tuple)) else [benchmarks]
    names: list[str] = []
    for b in items:
        for n in list(getattr(b, "x_names", None) or []) + [getattr(b, "line_arg", None)]:
            if isinstance(n, str) and n not in names:
                names.append(n)
    return names


def wrap_mark(cls: Any) -> Callable[[], None]:
    original = cls.__init__

    @functools.wraps(original)
    def __init__(self: Any, fn: Any, benchmarks: Any, *args: Any, **kwargs: Any) -> None:
        original(self, fn, benchmarks, *args, **kwargs)
        names = perf_report_names(benchmarks)
        inner = self.fn

        @functools.wraps(inner)
        def labelled(*a: Any, **kw: Any) -> Any:
            push_point({n: kw[n] for n in names if n in kw})
            try:
                return inner(*a, **kw)
            finally:
                pop_point()

        self.fn = labelled

    cls.__init__ = __init__
    return lambda: setattr(cls, "__init__", original)

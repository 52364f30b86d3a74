"""ksnap_triton: record every Triton kernel variant a program compiles.

Run a program under capture (``python -m ksnap_triton capture -o OUT -- ...``
or ``ksnap capture``); see docs/capture.md and docs/capture-format.md.

A program may label what it benchmarks, so that results can be attributed
to variants; outside a capture this costs nothing::

    from ksnap_triton import benchmark_point
    with benchmark_point(M=m, N=n, K=k):
        matmul(a, b)

``ksnap_triton.autotune`` is a drop-in for ``triton.autotune`` that tunes on
the program's own calls (docs/autotune.md, "Triton drop-in"); it is imported
on first use, so importing ksnap_triton imports neither triton nor torch.
"""

from .manifest import FORMAT, FORMAT_VERSION
from .points import benchmark_point, current_point

__version__ = "0.1.0"

__all__ = ["FORMAT", "FORMAT_VERSION", "autotune", "benchmark_point", "current_point",
           "__version__"]


def __getattr__(name):
    """``autotune``, imported on first use (PEP 562): the submodule of that
    name, which is callable as the decorator itself."""
    if name == "autotune":
        import importlib

        return importlib.import_module(".autotune", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

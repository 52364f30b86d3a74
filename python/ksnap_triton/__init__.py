"""ksnap_triton: record every Triton kernel variant a program compiles.

Run a program under capture (``python -m ksnap_triton capture -o OUT -- ...``
or ``ksnap capture``); see docs/capture.md and docs/capture-format.md.

A program may label what it benchmarks, so that results can be attributed
to variants; outside a capture this costs nothing::

    from ksnap_triton import benchmark_point
    with benchmark_point(M=m, N=n, K=k):
        matmul(a, b)
"""

from .manifest import FORMAT, FORMAT_VERSION
from .points import benchmark_point, current_point

__version__ = "0.1.0"

__all__ = ["FORMAT", "FORMAT_VERSION", "benchmark_point", "current_point", "__version__"]

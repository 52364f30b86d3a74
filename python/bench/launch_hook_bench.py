"""Prints what the capture costs per kernel launch and per recorded variant.

    /usr/bin/python3 python/bench/launch_hook_bench.py

Runs against the Triton stand-in (python/tests/fake_triton), so it measures
the plugin's own Python work: the launch_enter_hook path (a launch of a
variant already seen at the same point, then launches alternating between
two points) and recording a new variant (entry + atomic shard rewrite, with
the stand-in's "compile" writing its 8 small files).
"""

import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), os.path.join(os.path.dirname(HERE), "tests", "fake_triton"),
                os.path.join(os.path.dirname(HERE), "tests")]
os.environ.pop("PYTEST_CURRENT_TEST", None)

from ksnap_triton import benchmark_point, hooks  # noqa: E402
from ksnap_triton.recorder import Recorder  # noqa: E402


def per_call(fn, n):
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - start) / n


def main():
    rec = Recorder(tempfile.mkdtemp(prefix="ksnap-bench-"))
    hooks.install(rec)
    import kernels_for_tests as k

    k.add_kernel[(1,)](0, 0, 64, BLOCK=32)
    kernel = next(iter(k.add_kernel.device_caches[0][0].values()))
    md = kernel.launch_metadata((1,), 0)
    rec.on_launch(md)
    same = min(per_call(lambda: rec.on_launch(md), 100000) for _ in range(3))
    def alternate():
        with benchmark_point(M=1):
            rec.on_launch(md)
        with benchmark_point(M=2):
            rec.on_launch(md)

    alternating = min(per_call(alternate, 20000) for _ in range(3)) / 2
    n_new = 200
    start = time.perf_counter()
    for i in range(n_new):
        k.add_kernel[(1,)](0, 0, 64, BLOCK=64 + i)
    new_variant = (time.perf_counter() - start) / n_new
    print(f"launch hook, same variant and point:   {same * 1e6:8.2f} us/launch")
    print(f"launch hook, point changes each launch: {alternating * 1e6:8.2f} us/launch")
    print(f"new variant recorded (incl. stand-in compile), {n_new} variants: "
          f"{new_variant * 1e3:8.2f} ms/variant")


if __name__ == "__main__":
    main()

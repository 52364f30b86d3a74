"""A benchmark-style program against the Triton stand-in: an autotuned
kernel swept over shapes through perf_report, plus one plain kernel.
Prints how many kernels really launched (the stand-in counts them)."""

import sys

import triton
import triton.testing
from triton.compiler.compiler import LAUNCHES

import kernels_for_tests as k

SHAPES = [(64, 64), (128, 256), (96, 100), (512, 512)]


@triton.testing.perf_report(triton.testing.Benchmark(
    x_names=["M", "N"], x_vals=SHAPES, line_arg="provider", line_vals=["triton"]))
def bench(M, N, provider):
    k.mm_kernel[(1,)](object(), object(), M, N, N)
    return 1.0


if __name__ == "__main__":
    bench.run()
    k.add_kernel[(1,)](object(), object(), 64, BLOCK=128)
    print(f"launches={len(LAUNCHES)} argv={sys.argv[1:]}")
    sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 0)

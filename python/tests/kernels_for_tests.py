"""Kernels written against the Triton stand-in (see fake_triton/)."""

import triton
from triton.runtime.autotuner import Config

CONFIGS = [Config({"BLOCK": 32}, num_warps=2, num_stages=2),
           Config({"BLOCK": 64}, num_warps=4, num_stages=3),
           Config({"BLOCK": 128}, num_warps=8, num_stages=4)]


@triton.jit
def add_kernel(x, y, n, BLOCK: "tl.constexpr"):
    pass


@triton.autotune(configs=CONFIGS, key=["M", "N"])
@triton.jit
def mm_kernel(a, b, M, N, stride, BLOCK: "tl.constexpr"):
    pass


@triton.jit
def staged_kernel(x, n, BLOCK: "tl.constexpr", num_stages: "tl.constexpr"):
    pass

"""Kernels for the recompile tests (Triton stand-in): globals of every kind
the source recorder handles, a helper JIT function, a closure kernel."""

import math

import triton
import triton.language as tl

import recompile_helpers as helpers

SCALE = tl.constexpr(2)
EPS = 1e-5
DT = tl.float16
NAN = float("nan")
PAIR = (1, "two")
TABLE = {"a": 1}  # a dict global: not recordable


@triton.jit
def helper(x):
    return x * SCALE


@triton.jit(noinline=True)
def scaled(x, n, BLOCK: tl.constexpr):
    y = helper(x) + EPS + math.pi + helpers.OFFSET
    z = (DT, NAN, PAIR)
    return y, z


@triton.jit
def other(x, n, BLOCK: tl.constexpr):
    for i in range(BLOCK):
        x = x + i
    return x


@triton.jit
def reads_table(x, BLOCK: tl.constexpr):
    return TABLE


def make_closure_kernel(k):
    @triton.jit
    def closure_kernel(x, BLOCK: tl.constexpr):
        return x + k

    return closure_kernel

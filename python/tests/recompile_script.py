"""Captured by test_recompile.py: several variants of several kernels."""

import recompile_kernels as k

for block in (16, 32, 64):
    k.scaled[(1,)](object(), 1024, BLOCK=block)
k.scaled[(1,)](object(), 100, BLOCK=32, num_warps=8)
k.other[(1,)](object(), 64, BLOCK=8)
k.make_closure_kernel(5)[(1,)](object(), BLOCK=4)
if "--table" in __import__("sys").argv:
    k.reads_table[(1,)](object(), BLOCK=4)

"""Captured by test_explain.py: four variants, two of them (BLOCK >= 64) with
a layout conversion that the stand-in's remove-layout-conversions pass
removes, one that chooses its floating-point fusion at launch."""

import recompile_kernels as k

for block in (16, 64, 128):
    k.scaled[(1,)](object(), 1024, BLOCK=block)
k.scaled[(1,)](object(), 1024, BLOCK=32, enable_fp_fusion=False)

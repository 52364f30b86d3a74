"""Captured by test_recompile_knobs.py: one variant on the defaults, one that
chooses its floating-point fusion explicitly at launch."""

import recompile_kernels as k

k.scaled[(1,)](object(), 1024, BLOCK=16)
k.scaled[(1,)](object(), 1024, BLOCK=32, enable_fp_fusion=False)

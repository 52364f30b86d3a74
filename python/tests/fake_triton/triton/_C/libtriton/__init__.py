"""Stand-in for Triton's native module: only ``llvm.optimize_module``, the
binding whose input the recompile worker prints for ``ksnap explain``."""

from . import llvm  # noqa: F401

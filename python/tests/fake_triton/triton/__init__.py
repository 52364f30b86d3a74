"""A stand-in for Triton 3.6, shaped like it where ksnap_triton touches it.

Only for tests on machines without Triton: the same hook names and call
orders as triton/knobs.py, compiler/compiler.py and runtime/jit.py (listener
inside compile, on cache hits too; jit_post_compile_hook after; launch hooks
from the launcher; CompiledKernel.run -> _init_handles), but "compiling" just
writes small text files into the cache folder.
"""

__version__ = "3.6.0-fake"

from . import knobs  # noqa: E402,F401
from .runtime.jit import jit  # noqa: E402,F401
from .runtime.autotuner import Config, autotune  # noqa: E402,F401
from . import language  # noqa: E402,F401
from .compiler.compiler import compile  # noqa: E402,F401


def constexpr_function(fn):
    return fn

"""Prints the Triton sources the capture plugin relies on (read on the GPU
machine to check hook names and call order of the installed Triton)."""

import inspect

import triton
from triton import knobs, testing
from triton.compiler import compiler
from triton.runtime import autotuner, jit

print("triton", triton.__version__, triton.__file__)
for obj in (knobs.runtime_knobs, knobs.compilation_knobs, jit.JITFunction._call_hook,
            jit.JITFunction.run, jit.JITFunction._do_compile, compiler.compile,
            compiler.CompiledKernel, autotuner.Autotuner.__init__, autotuner.Autotuner.run,
            testing.Mark.__init__, testing.Benchmark.__init__):
    try:
        src = inspect.getsource(obj)
    except (TypeError, OSError) as e:
        src = f"<no source: {e}>"
    print(f"===== {getattr(obj, '__qualname__', obj)}\n{src}")
try:
    from triton.backends.nvidia import compiler as nv

    src = inspect.getsource(nv.CUDABackend.parse_options)
    print("===== CUDABackend.parse_options\n" + src)
except Exception as e:  # noqa: BLE001
    print("no nvidia backend source:", e)

from .compiler import CompiledKernel, compile  # noqa: F401

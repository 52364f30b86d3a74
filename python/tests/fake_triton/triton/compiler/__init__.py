from .compiler import CompiledKernel, compile, make_backend  # noqa: F401
from ..runtime.jit import ASTSource  # noqa: F401

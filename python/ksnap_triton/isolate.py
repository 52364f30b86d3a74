"""Starting ksnap's own Python processes so that nothing in the current
folder is imported.

``python -m M`` puts the current folder first on ``sys.path`` (and ``-c``
puts ``""``, the same folder): a recompile worker started inside a
downloaded capture that holds ``json.py`` would run it. ``-P`` exists only
from Python 3.11, and ``-I`` also drops PYTHONPATH, where the user's Triton
may be; so the worker is started with ``-c`` and a first line that removes
the current folder, and PYTHONPATH keeps only absolute folders (an empty or
relative entry would again mean the current folder, and ``site`` imports
``sitecustomize`` from it before any code of ours runs).
"""

from __future__ import annotations

import os

__all__ = ["module_argv", "absolute_path_list"]

_BOOT = ("import sys\n"
         "sys.path[:] = [p for p in sys.path if p]\n"  # "" is the current folder
         "import runpy\n"
         "runpy.run_module({module!r}, run_name='__main__', alter_sys=True)\n")


def module_argv(python: str, module: str) -> list[str]:
    """argv that runs ``module`` as ``__main__`` without the current folder
    on ``sys.path`` (the module is found on PYTHONPATH)."""
    return [python, "-c", _BOOT.format(module=module)]


def absolute_path_list(value: str, drop: tuple = ()) -> list[str]:
    """The absolute, non-empty entries of a PYTHONPATH value, less ``drop``."""
    return [p for p in value.split(os.pathsep) if p and os.path.isabs(p) and p not in drop]

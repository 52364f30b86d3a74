"""Run a callback right after a module is first imported.

A ``sys.meta_path`` finder that, for the watched names only, finds the module
through the remaining finders and wraps its loader's ``exec_module`` so the
callback runs once the module body has executed. Used to hook Triton when
the program imports it (and ``triton.testing`` when, if ever, it is
imported), without importing anything early ourselves.

Worked example::

    when_imported("triton", lambda mod: print("triton", mod.__version__))
    import triton   # prints after triton/__init__.py ran
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from typing import Any, Callable

__all__ = ["when_imported"]

_callbacks: dict[str, list[Callable[[Any], None]]] = {}


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name not in _callbacks:
            return None
        callbacks = _callbacks.pop(name)
        if not _callbacks:
            _uninstall()
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader = spec.loader
        original = loader.exec_module

        def exec_module(module: Any) -> None:
            original(module)
            loader.exec_module = original  # type: ignore[method-assign]
            for cb in callbacks:
                cb(module)

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


_finder = _Finder()


def _uninstall() -> None:
    try:
        sys.meta_path.remove(_finder)
    except ValueError:
        pass


def when_imported(name: str, callback: Callable[[Any], None]) -> None:
    """Calls ``callback(module)`` now if ``name`` is imported, else after its import."""
    module = sys.modules.get(name)
    if module is not None:
        callback(module)
        return
    _callbacks.setdefault(name, []).append(callback)
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)

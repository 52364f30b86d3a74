"""Installs a Recorder into a running Triton through its own hooks.

Triton 3.6 (``triton/knobs.py``) offers, without patching Triton:

* ``knobs.compilation.listener`` - called by ``triton.compile`` after every
  compile *and* every on-disk cache hit, with the group of cache files;
* ``knobs.runtime.jit_post_compile_hook`` - called by the JIT after it
  compiled (or loaded from disk) a new variant: JIT key, repr, function;
* ``knobs.runtime.launch_enter_hook`` - a HookChain called before launches;
* ``knobs.runtime.override_arch`` - target another architecture (``sm80``);
* ``knobs.cache.dir`` - where Triton's cache lives (the capture's cache/).

A variant the JIT already holds in memory compiles no more and fires no
hook; that is fine, because each process starts with an empty in-memory
cache. Existing listeners/hooks of the program are kept and called first.
Compile-only mode additionally wraps ``CompiledKernel._init_handles``
(nolaunch.py); benchmark points wrap ``Autotuner.run`` and
``triton.testing.Mark`` (autopoints.py).

Worked example::

    rec = Recorder(out_dir)
    inst = install(rec, no_launch=False, arch=None)
    ...  # run kernels
    inst.uninstall(); rec.flush()
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable

from . import autopoints, nolaunch
from .postimport import when_imported
from .recorder import Recorder

__all__ = ["install", "Installation", "normalize_arch"]


class Installation:
    """What install() changed, so tests (and nested use) can undo it."""

    def __init__(self) -> None:
        self.undo: list[Callable[[], None]] = []

    def uninstall(self) -> None:
        while self.undo:
            try:
                self.undo.pop()()
            except Exception:  # noqa: BLE001 - best effort
                pass


def normalize_arch(arch: str) -> str:
    """``sm_80``/``sm80``/``80`` -> ``sm80``; AMD ``gfx942`` stays.

    Raises ValueError for anything else.
    """
    import re

    a = arch.strip().lower()
    m = re.fullmatch(r"(?:sm_?)?(\d{2,3}[af]?)", a)
    if m:
        return "sm" + m.group(1)
    if re.fullmatch(r"gfx[0-9a-f]{3,4}", a):
        return a
    raise ValueError(f"unknown architecture {arch!r} (expected e.g. sm_80, sm90a, gfx942)")


def _guard(rec: Recorder, what: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """A hook must never break the program: errors are reported, not raised."""

    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except Exception as e:  # noqa: BLE001
            rec._error(f"{what} failed: {type(e).__name__}: {e}")
            return None

    return call


def _chain_single(obj: Any, name: str, ours: Callable[..., Any], inst: Installation) -> None:
    """Sets a single-callable knob to call the program's hook, then ours."""
    previous = getattr(obj, name, None)

    if previous is None:
        hook = ours
    else:
        def hook(*args: Any, **kwargs: Any) -> Any:
            result = previous(*args, **kwargs)
            ours(*args, **kwargs)
            return result

    setattr(obj, name, hook)
    inst.undo.append(lambda: setattr(obj, name, previous))


def _add_launch_hook(runtime: Any, ours: Callable[[Any], None], inst: Installation) -> None:
    chain = getattr(runtime, "launch_enter_hook", None)
    if hasattr(chain, "add") and hasattr(chain, "remove"):
        chain.add(ours)
        inst.undo.append(lambda: chain.remove(ours))
    else:  # older Triton: a single optional callable
        _chain_single(runtime, "launch_enter_hook", ours, inst)


def _wrap_when_imported(inst: Installation, module: str, attr: str,
                        wrap: Callable[[Any], Callable[[], None]]) -> None:
    """Wraps ``module.attr`` now or when the program imports ``module``
    (never importing it ourselves: triton.testing may pull in torch)."""

    def apply(mod: Any) -> None:
        cls = getattr(mod, attr, None)
        if cls is None:
            print(f"ksnap_triton: no {module}.{attr}; points from it are off", file=sys.stderr)
            return
        inst.undo.append(wrap(cls))

    when_imported(module, apply)


def install(rec: Recorder, *, no_launch: bool = False, arch: str | None = None,
            track_launches: bool = True) -> Installation:
    """Hooks ``rec`` into the imported Triton; returns what to undo."""
    import triton  # noqa: F401 - the real (or, in tests, a stand-in) package
    from triton import knobs

    inst = Installation()
    cache_dir = os.path.join(rec.root, "cache")
    os.makedirs(cache_dir, exist_ok=True)
    prev_cache = knobs.cache.__dict__.get("dir")
    knobs.cache.dir = cache_dir
    inst.undo.append(lambda: setattr(knobs.cache, "dir", prev_cache) if prev_cache
                     else knobs.cache.__dict__.pop("dir", None))
    if arch:
        knobs.runtime.override_arch = arch
        inst.undo.append(lambda: knobs.runtime.__dict__.pop("override_arch", None))

    _chain_single(knobs.compilation, "listener", _guard(rec, "compilation listener",
                                                        rec.on_compile), inst)
    _chain_single(knobs.runtime, "jit_post_compile_hook",
                  _guard(rec, "jit_post_compile_hook", rec.on_post_compile), inst)

    if no_launch:
        from triton.compiler.compiler import CompiledKernel

        inst.undo.append(nolaunch.patch(
            CompiledKernel, load=not arch,
            on_call=_guard(rec, "no-launch stand-in",
                           lambda k: rec.on_kernel_call(k, executed=False))))
    elif track_launches:
        _add_launch_hook(knobs.runtime, _guard(rec, "launch_enter_hook", rec.on_launch), inst)

    _wrap_when_imported(inst, "triton.runtime.autotuner", "Autotuner",
                        autopoints.wrap_autotuner)
    _wrap_when_imported(inst, "triton.testing", "Mark", autopoints.wrap_mark)
    return inst

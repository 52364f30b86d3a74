"""Compile-only mode: kernels are compiled and recorded but never executed.

Triton's JIT launches a variant through ``CompiledKernel.run``, a property that
first calls ``CompiledKernel._init_handles()`` (load the binary onto the
device, build the launcher) and then returns the launcher. ``patch`` wraps
``_init_handles`` on the class so that after it the launcher is a stand-in
that records the call and returns: nothing runs on the device.

* For the device's own architecture the binary is still loaded, so register
  and spill counts are recorded and ``OutOfResources`` (too much shared
  memory) still reaches the autotuner, as in a real run.
* For another architecture (``--arch``) loading fails; the failure is kept
  quiet and the variant has no register counts.
* Everything else in the program runs: tensors are allocated, PyTorch ops
  execute, ``do_bench`` times empty launches. Kernel outputs are never
  written, so any result the program checks is wrong, and an autotuner picks
  its "best" config from meaningless timings.

Worked example (objects shaped like Triton's, see tests/test_nolaunch.py)::

    undo = patch(CompiledKernel, on_call=lambda k: seen.append(k), load=True)
    kernel.run(1, 1, 1, stream, fn, packed, md, enter, exit, *args)  # no launch
    undo()
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["patch", "is_stand_in"]


def is_stand_in(run: Any) -> bool:
    return bool(getattr(run, "_ksnap_no_launch", False))


def _stand_in(kernel: Any, on_call: Callable[[Any], None]) -> Callable[..., None]:
    def run(*_args: Any, **_kwargs: Any) -> None:
        on_call(kernel)

    run._ksnap_no_launch = True  # type: ignore[attr-defined]
    return run


def patch(cls: Any, *, on_call: Callable[[Any], None], load: bool = True) -> Callable[[], None]:
    """Makes every ``cls`` (CompiledKernel) launch a no-op; returns an undo.

    ``load``: still load binaries (to read registers; fails quietly for a
    foreign architecture). Resource errors (class name ``OutOfResources``)
    propagate as they would in a real launch.
    """
    original = cls._init_handles

    def _init_handles(self: Any) -> None:
        if load and not getattr(self, "_ksnap_load_failed", False):
            try:
                original(self)
            except Exception as e:  # noqa: BLE001 - a driver error of a foreign arch
                if type(e).__name__ == "OutOfResources":
                    raise
                self._ksnap_load_failed = True
        if not is_stand_in(getattr(self, "_run", None)):
            self._run = _stand_in(self, on_call)

    _init_handles._ksnap_original = original  # type: ignore[attr-defined]
    cls._init_handles = _init_handles

    def undo() -> None:
        cls._init_handles = original

    return undo

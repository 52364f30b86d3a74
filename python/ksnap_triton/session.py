"""A capture session inside one Python process, configured by environment.

``ksnap_triton capture`` exports the settings below and puts the bootstrap
folder (``_bootstrap/sitecustomize.py``) on ``PYTHONPATH``. Every Python
process the captured program starts (pytest-xdist workers, subprocesses,
shard jobs) then records into the same capture: at start-up it arms an
import hook, and when the process imports ``triton`` the recorder is
installed right after Triton's own initialisation. Processes that never
import Triton pay nothing.

| variable                 | meaning                                        |
| ------------------------ | ---------------------------------------------- |
| KSNAP_CAPTURE_DIR        | the capture folder (required)                  |
| KSNAP_CAPTURE_NO_LAUNCH  | "1": compile-only mode                         |
| KSNAP_CAPTURE_ARCH       | target architecture (``sm80``)                 |
| KSNAP_CAPTURE_ARGV       | JSON list: the captured program's command line |
| KSNAP_CAPTURE_SCRIPT     | the program's main script, if any              |
| KSNAP_CAPTURE_NO_TRACK   | "1": do not follow launches (no points)        |

Worked example::

    os.environ["KSNAP_CAPTURE_DIR"] = "/tmp/cap"
    arm_import_hook()
    import triton          # -> recorder installed, flushed at exit
"""

from __future__ import annotations

import atexit
import json
import os
import sys
from typing import Any

from .postimport import when_imported

ENV_DIR = "KSNAP_CAPTURE_DIR"
ENV_NO_LAUNCH = "KSNAP_CAPTURE_NO_LAUNCH"
ENV_ARCH = "KSNAP_CAPTURE_ARCH"
ENV_ARGV = "KSNAP_CAPTURE_ARGV"
ENV_SCRIPT = "KSNAP_CAPTURE_SCRIPT"
ENV_NO_TRACK = "KSNAP_CAPTURE_NO_TRACK"
ENV_PLUGIN = "KSNAP_CAPTURE_PLUGIN"  # the capturing package's folder (bootstrap)

_active: Any = None  # (Recorder, Installation) of this process

__all__ = ["start_from_env", "arm_import_hook", "active_recorder"]


def active_recorder() -> Any:
    return _active[0] if _active else None


def _argv() -> list[str]:
    raw = os.environ.get(ENV_ARGV)
    if raw:
        try:
            value = json.loads(raw)
            if isinstance(value, list):
                return [str(v) for v in value]
        except ValueError:
            pass
    return list(sys.argv)


def start_from_env() -> Any:
    """Creates and installs this process's recorder (once); returns it.

    Returns None when KSNAP_CAPTURE_DIR is unset or Triton cannot be hooked
    (the reason is printed; the program itself keeps running).
    """
    global _active
    if _active is not None:
        return _active[0]
    root = os.environ.get(ENV_DIR)
    if not root:
        return None
    from .hooks import install
    from .recorder import Recorder

    try:
        import triton

        version = getattr(triton, "__version__", None)
    except Exception as e:  # noqa: BLE001
        print(f"ksnap_triton: cannot import triton ({e}); nothing is captured", file=sys.stderr)
        return None
    arch = os.environ.get(ENV_ARCH) or None
    no_launch = os.environ.get(ENV_NO_LAUNCH) == "1"
    rec = Recorder(root, argv=_argv(), script=os.environ.get(ENV_SCRIPT) or None,
                   executes=not no_launch, arch_override=arch, triton_version=version)
    try:
        inst = install(rec, no_launch=no_launch, arch=arch,
                       track_launches=os.environ.get(ENV_NO_TRACK) != "1")
    except Exception as e:  # noqa: BLE001
        print(f"ksnap_triton: cannot hook this Triton ({type(e).__name__}: {e}); "
              "nothing is captured", file=sys.stderr)
        return None
    _active = (rec, inst)
    atexit.register(rec.flush)
    rec.flush()  # an (empty) shard marks that this process took part
    return rec


def arm_import_hook() -> None:
    """Installs on the first ``import triton`` (or now, if already imported)."""
    if not os.environ.get(ENV_DIR):
        return
    when_imported("triton", lambda _module: start_from_env())

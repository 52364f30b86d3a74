"""Bootstrap for captured child processes (on PYTHONPATH only during capture).

Arms ksnap_triton's import hook when KSNAP_CAPTURE_DIR is set, then runs the
``sitecustomize`` this one shadows (the next one on sys.path), if any, so
the environment's own start-up customisation still happens.
"""

import os
import sys


def _arm() -> None:
    if not os.environ.get("KSNAP_CAPTURE_DIR"):
        return
    try:
        from ksnap_triton.session import arm_import_hook

        arm_import_hook()
    except Exception as e:  # noqa: BLE001 - never break the interpreter start
        print(f"ksnap_triton: bootstrap failed: {type(e).__name__}: {e}", file=sys.stderr)


def _chain() -> None:
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    for folder in sys.path:
        folder = os.path.abspath(folder or ".")
        if folder == here:
            continue
        candidate = os.path.join(folder, "sitecustomize.py")
        if os.path.isfile(candidate):
            spec = importlib.util.spec_from_file_location("_ksnap_next_sitecustomize", candidate)
            if spec is not None and spec.loader is not None:
                module = importlib.util.module_from_spec(spec)
                try:
                    spec.loader.exec_module(module)
                except Exception as e:  # noqa: BLE001
                    print(f"ksnap_triton: {candidate}: {type(e).__name__}: {e}", file=sys.stderr)
            return


_arm()
_chain()

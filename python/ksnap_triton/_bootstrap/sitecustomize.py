"""Bootstrap for captured child processes (on PYTHONPATH only during capture).

Arms ksnap_triton's import hook when KSNAP_CAPTURE_DIR is set, then runs the
``sitecustomize`` this one shadows (the next one on sys.path), if any, so
the environment's own start-up customisation still happens.
"""

import os
import sys


def _load_capturing_plugin() -> None:
    """Imports the ksnap_triton that started the capture (KSNAP_CAPTURE_PLUGIN,
    its package folder) by path, so that an installed plugin never needs its
    site-packages folder on PYTHONPATH, where it would shadow the child's own."""
    plugin = os.environ.get("KSNAP_CAPTURE_PLUGIN")
    if not plugin or "ksnap_triton" in sys.modules:
        return
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "ksnap_triton", os.path.join(plugin, "__init__.py"), submodule_search_locations=[plugin])
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["ksnap_triton"] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules["ksnap_triton"]
        raise


def _arm() -> None:
    if not os.environ.get("KSNAP_CAPTURE_DIR"):
        return
    try:
        _load_capturing_plugin()
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

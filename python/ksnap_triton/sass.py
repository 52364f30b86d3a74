"""SASS text of a cubin, when NVIDIA's disassembler is at hand.

Triton's wheel ships ``nvdisasm`` and ``cuobjdump`` in
``triton/backends/nvidia/bin/``; a CUDA toolkit has them in ``bin/``. The
capture plugin and ``recompile`` write ``<kernel>.sass`` (the ``sass`` stage)
beside each cubin with :func:`write_sass`; ksnap normalizes it
(src/normalize/sass.cc). Nothing here imports Triton.

Worked example::

    tool = find_tool()                      # ('nvdisasm', '/.../bin/nvdisasm') or None
    text = disassemble("k.cubin", tool)     # "\\t.headerflags ...\\nk:\\n /*0000*/ LDC R1, ..."
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

__all__ = ["find_tool", "disassemble", "write_sass", "ENV_TOOL", "ENV_OFF"]

ENV_TOOL = "KSNAP_SASS_TOOL"  # path of nvdisasm or cuobjdump to use
ENV_OFF = "KSNAP_NO_SASS"     # "1": never write a sass stage

_cached: dict = {}


def _triton_bin() -> str | None:
    """triton/backends/nvidia/bin of an importable Triton, without importing it."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("triton")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        path = os.path.join(root, "backends", "nvidia", "bin")
        if os.path.isdir(path):
            return path
    return None


def find_tool() -> tuple[str, str] | None:
    """(kind, path) of the disassembler to use: ``$KSNAP_SASS_TOOL``, else
    nvdisasm then cuobjdump from Triton's wheel, PATH, CUDA_HOME, /usr/local/cuda."""
    if os.environ.get(ENV_OFF) == "1":
        return None
    if "tool" in _cached:
        return _cached["tool"]
    found = None
    env = os.environ.get(ENV_TOOL)
    if env:
        if os.path.isfile(env) and os.access(env, os.X_OK):
            kind = "cuobjdump" if "cuobjdump" in os.path.basename(env) else "nvdisasm"
            found = (kind, env)
        else:
            print(f"ksnap_triton: {ENV_TOOL}={env} is not an executable; no sass stage",
                  file=sys.stderr)
    else:
        dirs = [d for d in (_triton_bin(),) if d]
        dirs += [os.path.join(os.environ[v], "bin") for v in ("CUDA_HOME", "CUDA_PATH")
                 if os.environ.get(v)]
        dirs.append("/usr/local/cuda/bin")
        for kind in ("nvdisasm", "cuobjdump"):
            for d in dirs:
                p = os.path.join(d, kind)
                if os.path.isfile(p) and os.access(p, os.X_OK):
                    found = (kind, p)
                    break
            if found is None:
                p = shutil.which(kind)
                found = (kind, p) if p else None
            if found:
                break
    _cached["tool"] = found
    return found


def disassemble(cubin_path: str, tool: tuple[str, str], timeout: float = 120) -> str:
    """SASS text of one cubin. Raises OSError / subprocess errors with the
    tool's message."""
    kind, path = tool
    args = [path, "-c", cubin_path] if kind == "nvdisasm" else [path, "-sass", cubin_path]
    r = subprocess.run(args, capture_output=True, timeout=timeout)
    if r.returncode != 0:
        msg = (r.stderr or r.stdout).decode("utf-8", "replace").strip()
        raise OSError(f"{os.path.basename(path)} failed on {cubin_path}: {msg[:500]}")
    return r.stdout.decode("utf-8", "replace")


def write_sass(cubin_path: str, tool: tuple[str, str] | None = None) -> str | None:
    """Writes ``<kernel>.sass`` beside ``<kernel>.cubin``; returns its path,
    or None when no disassembler is available. Raises OSError when it fails."""
    tool = tool or find_tool()
    if tool is None:
        return None
    out = cubin_path[: -len(".cubin")] + ".sass" if cubin_path.endswith(".cubin") \
        else cubin_path + ".sass"
    if os.path.exists(out):
        return out
    text = disassemble(cubin_path, tool)
    tmp = f"{out}.tmp.{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, out)
    return out

"""``explain-compile CAPTURE --cache-dir D --kernel K -o OUT``: rebuild one
variant with IR dumped after every pass (one side of ``ksnap explain``).

The variant is the capture's manifest entry with that kernel and cache
folder. It is rebuilt exactly as ``recompile`` rebuilds it (the same worker,
source record and option plan), in one worker process started with
``--python`` (default: this interpreter) and an environment that turns on
Triton's dumps: ``MLIR_ENABLE_DUMP=1`` (every MLIR pass manager prints the
module before each pass), ``LLVM_IR_ENABLE_DUMP=1`` (LLVM's print-after-all,
the middle end and the backend's machine passes), ``TRITON_ALWAYS_COMPILE=1``
and an empty cache under OUT; ``MLIR_DUMP_PATH`` is removed so that every
dump lands, in order, on the worker's stderr, which goes to
``OUT/passes.log``. The worker also prints the LLVM module that
``llvm.optimize_module`` receives (recompile_worker.OPTIMIZE_HEADER): the
output of make_llir's MLIR passes and the translation, which no Triton dump
shows. ``--env NAME=VALUE`` and ``--unset NAME`` set the side's knobs (ksnap
explain passes the ones the variant's metadata recorded).

``OUT/explain.json``: {"format": "ksnap-explain-compile", "ok", "phase",
"error", "triton_version", "python", "environment", "unset", "compile_s",
"wall_s", "dump": "passes.log", "dump_bytes", "stages"}. Exit status: 0
rebuilt; 1 the compile failed (the dump holds what ran before it); 2 usage
or input error.

Worked example::

    python3 -m ksnap_triton explain-compile ci/pr --cache-dir QBIQ... --kernel attn_fwd \\
        -o /tmp/x/head --env DISABLE_MMA_V3=true
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any, Sequence

from . import manifest, recompile

__all__ = ["explain_compile", "main_args", "DUMP_ENV"]

# Set for every explain compile (Triton 3.6 knobs; docs/recompile.md).
DUMP_ENV = {"MLIR_ENABLE_DUMP": "1", "LLVM_IR_ENABLE_DUMP": "1", "TRITON_ALWAYS_COMPILE": "1"}
# Removed: they would send dumps elsewhere or change what is printed.
DUMP_UNSET = ("MLIR_DUMP_PATH", "TRITON_KERNEL_DUMP", "TRITON_KERNEL_OVERRIDE",
              "TRITON_LLVM_DEBUG_ONLY", "TRITON_ENABLE_LLVM_DEBUG")


def _parse_env(items: Sequence[str]) -> dict:
    out = {}
    for kv in items:
        name, eq, value = kv.partition("=")
        if not eq or not name:
            raise recompile.RecompileError(f"--env {kv!r}: expected NAME=VALUE")
        out[name] = value
    return out


def explain_compile(capture: str, out: str, *, cache_dir: str, kernel: str,
                    python: str | None = None, env: Sequence[str] = (),
                    unset: Sequence[str] = (), timeout: float = 900.0,
                    trusted: Sequence[str] = (), stream: Any = None) -> int:
    stream = stream or sys.stderr
    python = recompile.check_python(python) if python else sys.executable
    capture = os.path.abspath(capture)
    out = os.path.abspath(out)
    if capture == out:
        raise recompile.RecompileError("-o must be a folder other than the capture")
    path = os.path.join(capture, "manifest.json")
    if not os.path.isfile(path):
        raise recompile.RecompileError(f"{capture}: not a capture folder (no manifest.json)")
    try:
        m = manifest.read_manifest(path)
    except manifest.ManifestError as e:
        raise recompile.RecompileError(str(e)) from None
    found = [(i, e) for i, e in enumerate(m["entries"])
             if e.get("kernel") == kernel and e.get("cache_dir") == cache_dir]
    if not found:
        raise recompile.RecompileError(
            f"{path}: no variant of kernel {kernel!r} in cache folder {cache_dir!r}")
    index, entry = found[0]
    p = recompile.plan([entry])
    if not p.tasks:
        raise recompile.RecompileError(f"{kernel}: cannot be rebuilt: {p.skipped[0]['reason']}")
    target = recompile._entry_target(entry) or recompile.default_target(m["entries"])
    set_env = _parse_env(env)
    os.makedirs(os.path.join(out, "cache"), exist_ok=True)
    dump = os.path.join(out, "passes.log")
    with open(dump, "wb"):
        pass  # the worker appends: start empty
    wenv = recompile._worker_env(out)
    for k in DUMP_UNSET:
        wenv.pop(k, None)
    for k in unset:
        wenv.pop(k, None)
    wenv.update(set_env)
    wenv.update(DUMP_ENV)
    result: dict = {}

    def payload(t: recompile.Task) -> dict:
        return {"id": index, "capture": capture, "out": out, "entry": t.entry, "target": target,
                "sass": False, "trusted": list(trusted), "dump_to": dump}

    def on_result(t: recompile.Task, msg: dict) -> None:
        result.update(msg)

    t0 = time.monotonic()
    info = recompile.run_pool(p.tasks, payload, 1, python=python, env=wenv, timeout=timeout,
                              on_result=on_result)
    wall = time.monotonic() - t0
    ok = bool(result.get("ok"))
    rebuilt = result.get("entry") or {}
    report = {
        "format": "ksnap-explain-compile", "format_version": 1,
        "capture": capture, "kernel": kernel, "cache_dir": cache_dir,
        "ok": ok, "phase": None if ok else result.get("phase", "?"),
        "error": None if ok else result.get("error", ""),
        "triton_version": info.get("triton_version"), "python": python,
        "environment": set_env, "unset": sorted(set(unset)),
        "compile_s": rebuilt.get("compile_s"), "wall_s": round(wall, 3),
        "dump": "passes.log", "dump_bytes": os.path.getsize(dump),
        "stages": rebuilt.get("stages") or {},
    }
    manifest.write_json_atomic(os.path.join(out, "explain.json"), report)
    if ok:
        stream.write(f"ksnap_triton: explain-compile: {kernel} rebuilt with pass dumps in "
                     f"{wall:.1f} s ({report['dump_bytes']} bytes of dumps) -> {dump}\n")
        return recompile.EXIT_OK
    err = (result.get("error") or "").strip().splitlines()
    stream.write(f"ksnap_triton: explain-compile: {kernel}: {report['phase']}: "
                 f"{err[-1] if err else 'failed'}\n")
    return recompile.EXIT_FAILED


def main_args(args: Any) -> int:
    """Entry from cli.py with parsed arguments."""
    try:
        return explain_compile(args.capture, args.output, cache_dir=args.cache_dir,
                               kernel=args.kernel, python=args.python, env=args.env or (),
                               unset=args.unset or (), timeout=args.timeout,
                               trusted=args.trust_module or ())
    except recompile.RecompileError as e:
        print(f"ksnap_triton: explain-compile: {e}", file=sys.stderr)
        return recompile.EXIT_USAGE
    except OSError as e:
        print(f"ksnap_triton: explain-compile: {e.filename or ''}: {e.strerror}", file=sys.stderr)
        return recompile.EXIT_USAGE

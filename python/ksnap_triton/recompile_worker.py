"""One recompile worker process: rebuilds variants with the installed Triton.

Started by recompile.py as ``python -m ksnap_triton.recompile_worker``. It
imports Triton once, says hello, then reads one JSON task per line on stdin
and answers one JSON line per task on the protocol descriptor (the original
stdout; Triton's own prints go to stderr). No tensors, no launches, no GPU
driver: ``triton.compile(ASTSource(...), target=GPUTarget(...))`` compiles for
an explicit target.

Task:   {"id": 3, "capture": IN, "out": OUT, "entry": {...}, "target": {...},
         "sass": true}
Answer: {"id": 3, "ok": true, "entry": {... the rebuilt entry ...}, "seconds": 0.41}
        {"id": 3, "ok": false, "phase": "source|options|compile|write", "error": "..."}

Worked example (what the driver does for each variant)::

    fn = kernelsrc.build_function(doc, triton)          # from the recorded text
    src = ASTSource(fn, signature, constexprs, attrs)
    k = triton.compile(src, target=GPUTarget("cuda", 80, 32), options=opts)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
from typing import Any

from . import kernelsrc, keyparse, sass
from .recorder import stage_files

__all__ = ["main", "compile_task", "plan_options", "TaskError", "TARGET_DERIVED", "BACKEND_OWN"]

# Options a backend derives from the target (or the machine): never carried.
TARGET_DERIVED = frozenset({
    "arch", "warp_size", "backend_name", "extern_libs", "supported_fp8_dtypes",
    "deprecated_fp8_dot_operand_dtypes", "deprecated_fp8_dtypes",
    "max_num_imprecise_acc_default",
})
# Options whose meaning is one backend's own: carried only within a backend.
BACKEND_OWN = frozenset({
    "allowed_dot_input_precisions", "default_dot_input_precision", "matrix_instr_nonkdim",
    "ptx_version", "ptx_options",
})


class TaskError(Exception):
    def __init__(self, phase: str, message: str) -> None:
        super().__init__(message)
        self.phase = phase


def _inside(root: str, rel: Any) -> str:
    """``root/rel``, refusing paths that leave ``root`` (the manifest is untrusted)."""
    if not isinstance(rel, str) or not rel or os.path.isabs(rel) or "\0" in rel:
        raise TaskError("source", f"bad path {rel!r} in the recompile record")
    path = os.path.realpath(os.path.join(root, rel))
    base = os.path.realpath(root)
    if os.path.commonpath([path, base]) != base:
        raise TaskError("source", f"path {rel!r} leaves the capture folder")
    return path


def _tuplify(v: Any) -> Any:
    if isinstance(v, list):
        return tuple(_tuplify(x) for x in v)
    return v


class Worker:
    def __init__(self, triton: Any) -> None:
        self.triton = triton
        from triton.compiler import ASTSource

        self.ASTSource = ASTSource
        from triton.backends.compiler import GPUTarget

        self.GPUTarget = GPUTarget
        try:
            from triton.compiler.compiler import make_backend
        except ImportError:  # pragma: no cover - older layouts
            from triton.compiler import make_backend
        self.make_backend = make_backend
        self._docs: dict[str, tuple[dict, Any, dict]] = {}
        self._backends: dict[tuple, Any] = {}
        self.sass_tool = sass.find_tool()

    def backend(self, t: dict) -> Any:
        key = (t["backend"], t["arch"], t["warp_size"])
        if key not in self._backends:
            self._backends[key] = self.make_backend(self.GPUTarget(*key))
        return self._backends[key]

    def function(self, path: str, trusted: tuple = ()) -> tuple[Any, dict]:
        """(root JITFunction, all rebuilt functions) of a source record file;
        ``trusted``: the modules named with --trust-module."""
        with open(path, "rb") as f:
            raw = f.read()
        hit = self._docs.get(path)
        if hit is not None and hit[0] == raw:
            return hit[1], hit[2]
        try:
            doc = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            raise TaskError("source", f"{path}: not a JSON source record: {e}") from None
        if not isinstance(doc, dict):
            raise TaskError("source", f"{path}: not a JSON object")
        try:
            root, built = kernelsrc.build_functions(doc, self.triton, trusted)
        except kernelsrc.SourceError as e:
            raise TaskError("source", f"{path}: refused: {e}") from None
        self._docs[path] = (raw, root, built)
        return root, built


def plan_options(explicit: dict, full: dict | None, capture_defaults: dict | None,
                 dst_fields: set, same_backend: bool = True) -> dict:
    """Options to pass to ``triton.compile`` for the destination target: only
    what the captured program chose, so that the recompiling compiler's own
    defaults and knobs (its environment, a newer Triton's new defaults) decide
    everything else, as they would for a launch under that compiler.

    ``explicit``: the JIT key's options (what the program passed at launch);
    ``full``: every option the variant was compiled with; ``capture_defaults``:
    what the capturing process's backend made of ``explicit`` alone
    (``recompile.option_defaults``, recorded at capture time). An option of
    ``full`` that differs from ``capture_defaults`` was set by the program
    (a hook, ``triton.compile(options=...)``) and is carried over when the
    destination backend has it and it is not derived from the target. An
    option equal to the capture's default never is. Without
    ``capture_defaults`` (captures made before it was recorded) only
    ``explicit`` is passed: the capture machine's values are never guessed
    to be choices.

    Worked example: a variant launched with ``num_warps=8`` on a machine with
    ``TRITON_DEFAULT_FP_FUSION=0`` records full ``{num_warps: 8,
    enable_fp_fusion: False}`` and defaults ``{num_warps: 8, enable_fp_fusion:
    False}``: the plan is ``{num_warps: 8}``, and a recompile without the knob
    fuses, as a launch without it would.
    """
    opts = {k: _tuplify(v) for k, v in explicit.items() if k != "arch"}
    if not full or not isinstance(capture_defaults, dict):
        return opts
    for k, v in full.items():
        if k in opts or k in TARGET_DERIVED or k not in dst_fields:
            continue
        if k in BACKEND_OWN and not same_backend:
            continue
        if isinstance(v, dict):
            continue  # a tagged value we cannot pass on
        v = _tuplify(v)
        if k in capture_defaults and v == _tuplify(capture_defaults[k]):
            continue
        opts[k] = v
    return opts


def _option_fields(backend: Any) -> set:
    try:
        opts = backend.parse_options({})
        return set(vars(opts))
    except Exception:  # noqa: BLE001
        return set()


def compile_task(w: Worker, task: dict) -> dict:
    entry = dict(task["entry"])
    rec = entry.get("recompile")
    if not isinstance(rec, dict):
        raise TaskError("source", "no recompile record")
    if rec.get("problems"):
        raise TaskError("source", "; ".join(map(str, rec["problems"])))
    capture, out = task["capture"], task["out"]
    trusted = tuple(task.get("trusted") or ())
    root, built = w.function(_inside(capture, rec.get("source")), trusted)
    tl = w.triton.language
    try:
        signature = {str(n): _tuplify(t) for n, t in rec.get("signature") or []}
        constexprs = {tuple(p): kernelsrc.decode_value(v, tl, built, trusted)
                      for p, v in rec.get("constexprs") or []}
    except (kernelsrc.SourceError, ValueError, TypeError, KeyError) as e:
        raise TaskError("source", f"specialization: {type(e).__name__}: {e}") from None
    dst = task["target"]
    src_t = rec.get("target") or dst
    backend = w.backend(dst)
    same = (src_t.get("backend") == dst["backend"])
    try:
        if same and rec.get("attrs_parsed") is not None:
            attrs = {tuple(p): v for p, v in rec["attrs_parsed"]}
        else:
            raw = rec.get("attrs")
            if raw is None:
                raw = [[p, "D" if any(a and a[0] == "tt.divisibility" for a in v) else ""]
                       for p, v in rec.get("attrs_parsed") or []]
            attrs = {tuple(p): backend.parse_attr(s) for p, s in raw}
        explicit = {}
        if isinstance(entry.get("key"), str):
            try:
                explicit = keyparse.split_key(entry["key"])[1]
            except keyparse.KeyParseError:
                explicit = {}
        full = rec.get("options")
        if not full and isinstance(entry.get("metadata"), str):
            try:
                with open(_inside(capture, entry["metadata"])) as f:
                    full = json.load(f)
            except (OSError, ValueError, TaskError):
                full = None
        options = plan_options(explicit, full if isinstance(full, dict) else None,
                               rec.get("option_defaults"), _option_fields(backend),
                               same_backend=same)
    except TaskError:
        raise
    except Exception as e:  # noqa: BLE001
        raise TaskError("options", f"{type(e).__name__}: {e}") from None
    src = w.ASTSource(root, signature, constexprs, attrs)
    t0 = time.perf_counter()
    try:
        kernel = w.triton.compile(src, target=w.GPUTarget(dst["backend"], dst["arch"],
                                                          dst["warp_size"]), options=options)
    except Exception as e:  # noqa: BLE001
        raise TaskError("compile", f"{type(e).__name__}: {e}") from None
    seconds = time.perf_counter() - t0
    return _rebuilt_entry(w, entry, kernel, out, capture, seconds, task.get("sass", True))


def _rebuilt_entry(w: Worker, entry: dict, kernel: Any, out: str, capture: str,
                   seconds: float, want_sass: bool) -> dict:
    group = dict(getattr(kernel, "metadata_group", None) or {})
    cache_dir, stages, meta_path = stage_files(group, out)
    if cache_dir is None:
        raise TaskError("write", "Triton returned no cache files")
    rec = dict(entry["recompile"])
    src_path = _inside(capture, rec["source"])
    name = os.path.basename(src_path)
    dst_folder = os.path.join(out, "cache", cache_dir)
    with open(src_path, "rb") as f:
        data = f.read()
    dst_path = os.path.join(dst_folder, name)
    if not os.path.exists(dst_path):
        tmp = f"{dst_path}.tmp.{os.getpid()}"
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, dst_path)
    rec["source"] = f"cache/{cache_dir}/{name}"
    md = getattr(kernel, "metadata", None)
    mdd = md._asdict() if hasattr(md, "_asdict") else dict(vars(md)) if md is not None else {}
    warnings = []
    if want_sass and "cubin" in stages and w.sass_tool is not None:
        try:
            p = sass.write_sass(os.path.join(out, stages["cubin"]), w.sass_tool)
            if p:
                stages["sass"] = os.path.relpath(p, out)
        except (OSError, ValueError, subprocess.SubprocessError) as e:
            warnings.append(f"no sass stage: {e}")  # the variant itself is fine
    tgt = mdd.get("target")
    from .spec import target_dict

    new = dict(entry)
    for k in ("shard", "shards"):
        new.pop(k, None)
    new.update({
        "cache_dir": cache_dir,
        "stages": stages,
        "metadata": meta_path,
        "arch": mdd.get("arch") if isinstance(mdd.get("arch"), str) else entry.get("arch"),
        "backend": (target_dict(tgt) or {}).get("backend") or entry.get("backend"),
        "compile_s": round(seconds, 4),
        "cache_hit": False,
        "n_regs": None,
        "n_spills": None,
        "shared": mdd.get("shared") if isinstance(mdd.get("shared"), int) else None,
        "launched": False,
        "recompile": rec,
    })
    if warnings:
        new["_warnings"] = warnings
    return new


# The header of the one dump ksnap adds to Triton's (explain.py): the LLVM
# module as llvm.optimize_module receives it (translated from MLIR, libdevice
# linked), in LLVM's legacy header form so that ksnap's dump parser reads it.
OPTIMIZE_HEADER = ("; *** IR Dump Before TritonLLVMOptimizeModule "
                   "(triton-llvm-optimize-module) ***\n")


def hook_llvm_dumps() -> bool:
    """Makes Triton's ``llvm.optimize_module`` print its input module first
    (to file descriptor 2, where LLVM's own dumps go). False when this
    Triton has no such binding (the stand-in, other layouts)."""
    try:
        from triton._C.libtriton import llvm  # type: ignore
    except Exception:  # noqa: BLE001
        return False
    f = getattr(llvm, "optimize_module", None)
    if f is None:
        return False
    if getattr(f, "_ksnap_dump", False):
        return True

    def optimize_module(mod, *a, **k):
        os.write(2, (OPTIMIZE_HEADER + str(mod) + "\n").encode("utf-8", "replace"))
        return f(mod, *a, **k)

    optimize_module._ksnap_dump = True  # type: ignore[attr-defined]
    try:
        llvm.optimize_module = optimize_module
    except (AttributeError, TypeError):
        return False
    return True


def _run_one(w: Worker, task: dict) -> dict:
    t0 = time.perf_counter()
    dump_to = task.get("dump_to")
    if dump_to:  # explain: Triton's pass dumps (fd 2) go to this file, whole
        hook_llvm_dumps()
        err_file = open(dump_to, "a+b")
    else:
        err_file = tempfile.TemporaryFile()
    saved = os.dup(2)
    os.dup2(err_file.fileno(), 2)
    try:
        entry = compile_task(w, task)
        return {"id": task["id"], "ok": True, "entry": entry,
                "seconds": round(time.perf_counter() - t0, 4)}
    except TaskError as e:
        return {"id": task["id"], "ok": False, "phase": e.phase, "error": str(e)[:8000],
                "stderr": _tail(err_file)}
    except Exception as e:  # noqa: BLE001 - a bug here must not end the run
        return {"id": task["id"], "ok": False, "phase": "internal",
                "error": f"{type(e).__name__}: {e}\n{traceback.format_exc()[-2000:]}",
                "stderr": _tail(err_file)}
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        err_file.close()


def _tail(f: Any, n: int = 2000) -> str:
    try:
        f.flush()
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - n))
        return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def main() -> int:
    proto = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)  # anything printed goes to stderr, not into the protocol
    sys.stdout = sys.stderr
    try:
        import triton

        w = Worker(triton)
    except Exception as e:  # noqa: BLE001
        proto.write(json.dumps({"fatal": f"cannot use Triton here: {type(e).__name__}: {e}"})
                    + "\n")
        return 2
    proto.write(json.dumps({"hello": True, "triton_version": getattr(triton, "__version__", None),
                            "pid": os.getpid(),
                            "sass": w.sass_tool[1] if w.sass_tool else None}) + "\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        task = json.loads(line)
        proto.write(json.dumps(_run_one(w, task)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Turns Triton's hook calls into capture entries (no Triton import here).

Triton 3.6 calls, for every kernel variant the JIT compiles (or finds in the
on-disk cache), first ``knobs.compilation.listener(src=, metadata=,
metadata_group=, times=, cache_hit=)`` from inside ``triton.compile`` and then
``knobs.runtime.jit_post_compile_hook(key=, repr=, fn=, compile=, ...)`` from
``JITFunction._do_compile``. The listener knows the files and the compile
time, the post-compile hook knows the JIT key, the function and its
arguments; the recorder pairs the two by the compiled kernel's hash and
writes one entry per variant into this process's shard. Launches
(``knobs.runtime.launch_enter_hook``, or the no-launch stand-in) mark the
variant ``launched`` and attach the current benchmark point.

Worked example (objects shaped like Triton's; see tests/test_recorder.py)::

    rec = Recorder("/tmp/cap", argv=["bench.py"])
    rec.on_compile(src=src, metadata=md, metadata_group=group, times=t, cache_hit=False)
    rec.on_post_compile(key=key, repr=r, fn=info, compile=c,
                        is_manual_warmup=False, already_compiled=False)
    rec.entries()[0]["cache_dir"]   # the <hash> folder under cache/
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
from typing import Any, Iterable

from . import kernelsrc, keyparse, manifest, points, sass, spec
from .progress import CaptureProgress
from .shard import ShardWriter

__all__ = ["Recorder", "stage_files"]

# Files in a Triton cache group that are not IR stages.
_NOT_STAGES = ("json",)


def _get(obj: Any, name: str, default: Any = None) -> Any:
    """Attribute or mapping lookup (Triton passes both namedtuples and dicts)."""
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _as_dict(metadata: Any) -> dict:
    if metadata is None:
        return {}
    if isinstance(metadata, dict):
        return metadata
    if hasattr(metadata, "_asdict"):
        return dict(metadata._asdict())
    return dict(vars(metadata)) if hasattr(metadata, "__dict__") else {}


def stage_files(metadata_group: dict, root: str) -> tuple[str | None, dict, str | None]:
    """(cache_dir, stages, metadata path) of one Triton cache group.

    ``metadata_group`` maps file names (``matmul_kernel.ttgir``) to absolute
    paths. Paths are returned relative to the capture ``root``; files that lie
    outside ``root/cache`` (the program moved Triton's cache) are copied in.
    """
    cache_dir = None
    stages: dict[str, str] = {}
    meta_path = None
    for filename, path in sorted((metadata_group or {}).items()):
        if filename.startswith("__grp__"):
            continue
        path = os.path.abspath(str(path))
        folder = os.path.basename(os.path.dirname(path))
        cache_dir = cache_dir or folder
        inside = os.path.join(root, "cache", folder, os.path.basename(path))
        if os.path.abspath(inside) != path and os.path.exists(path) and not os.path.exists(inside):
            os.makedirs(os.path.dirname(inside), exist_ok=True)
            tmp = inside + f".tmp.{os.getpid()}"
            shutil.copyfile(path, tmp)
            os.replace(tmp, inside)
        rel = os.path.relpath(inside, root)
        ext = filename.rsplit(".", 1)[-1] if "." in filename else ""
        if ext in _NOT_STAGES:
            meta_path = rel
        elif ext:
            stages[ext] = rel
    return cache_dir, stages, meta_path


def _def_line(jit_function: Any) -> int | None:
    """The line of the kernel's ``def`` (after any decorators)."""
    start = _get(jit_function, "starting_line_number")
    raw = _get(jit_function, "raw_src")
    if isinstance(start, int) and isinstance(raw, (list, tuple)):
        for i, line in enumerate(raw):
            if re.match(r"\s*(async\s+)?def\s", line):
                return start + i
        return start
    fn = _get(jit_function, "fn")
    code = getattr(fn, "__code__", None)
    return code.co_firstlineno if code is not None else None


def _source_file(jit_function: Any) -> str | None:
    fn = _get(jit_function, "fn")
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    return os.path.abspath(code.co_filename)


def _arg_names(jit_function: Any) -> list[str] | None:
    names = _get(jit_function, "arg_names")
    if names:
        return [str(n) for n in names]
    params = _get(jit_function, "params")
    if params:
        return [str(_get(p, "name")) for p in params]
    return None


def _constexpr_names(jit_function: Any) -> set[str] | None:
    """Names of parameters declared ``tl.constexpr`` (not the ints Triton
    specialized to 1, which appear as constexpr only in the key)."""
    params = _get(jit_function, "params")
    if not params:
        return None
    return {str(_get(p, "name")) for p in params if _get(p, "is_constexpr")}


def _named_constexprs(constants: Any, names: list[str] | None, declared: set[str] | None) -> dict:
    """Maps Triton's ``{(index,): value}`` constexprs to ``{name: value}``."""
    out: dict[str, Any] = {}
    if not isinstance(constants, dict):
        return out
    for path, value in constants.items():
        if isinstance(path, tuple) and path and isinstance(path[0], int) and names:
            if path[0] >= len(names):
                continue
            name = names[path[0]] + "".join(f"[{i}]" for i in path[1:])
            base = names[path[0]]
        else:
            name = base = str(path)
        if declared is not None and base not in declared:
            continue
        out[name] = keyparse.json_safe(value)
    return out


def _qualname(fn_info: Any, jit_function: Any) -> str | None:
    full = _get(jit_function, "_fn_name")
    if isinstance(full, str) and full:
        return full
    module = _get(fn_info, "module")
    module = module if isinstance(module, str) else getattr(module, "__name__", None)
    name = _get(fn_info, "name")
    if module and name:
        return f"{module}.{name}"
    return name


def _compile_seconds(times: Any) -> float | None:
    total = _get(times, "total")
    if isinstance(total, (int, float)):
        return round(total / 1e6, 4)  # CompileTimes are microseconds
    return None


def _device_kernel(jit_function: Any, device: Any, key: Any) -> Any:
    """The CompiledKernel the JIT stored under ``key`` (None if not found)."""
    caches = _get(jit_function, "device_caches")
    if caches is None:
        return None
    try:
        per_device = caches[device] if device in caches else None
    except TypeError:
        per_device = None
    if per_device is None:
        return None
    table = per_device[0] if isinstance(per_device, (tuple, list)) else per_device
    kernel = table.get(key) if isinstance(table, dict) else None
    if kernel is not None and hasattr(kernel, "result") and not hasattr(kernel, "metadata_group"):
        return None  # still compiling asynchronously; the listener still has the files
    return kernel


# Options a direct ``triton.compile`` call is recorded with. The listener does
# not see the options dict the caller passed, only the compiled metadata, so
# the options that autotune configs and launch grids vary are taken from it;
# without them two compiles of one kernel with other num_warps/num_stages
# would share an identity.
_DIRECT_COMPILE_OPTIONS = ("num_warps", "num_ctas", "num_stages")


def _option_defaults(target: Any, key: Any) -> Any:
    """What this process's backend makes of the JIT key's options alone: the
    defaults the variant was compiled under, with this process's environment
    and knobs (spec.py: what a recompile may not carry over). None when the
    backend cannot be asked (no Triton, an unknown target)."""
    t = spec.target_dict(target)
    if t is None:
        return None
    explicit: dict = {}
    if isinstance(key, str):
        try:
            explicit = keyparse.split_key(key)[1]
        except keyparse.KeyParseError:
            return None
    try:
        from triton.backends.compiler import GPUTarget
        from triton.compiler.compiler import make_backend

        backend = make_backend(GPUTarget(t["backend"], t["arch"], t["warp_size"]))
        return backend.parse_options({k: tuple(v) if isinstance(v, list) else v
                                      for k, v in explicit.items()})
    except Exception:  # noqa: BLE001 - recording must never break the program
        return None


def _direct_compile_options(metadata: dict) -> dict:
    return {k: metadata[k] for k in _DIRECT_COMPILE_OPTIONS
            if isinstance(metadata.get(k), int) and not isinstance(metadata.get(k), bool)}


class Recorder:
    """Collects entries of one process and keeps its shard file current."""

    def __init__(self, root: str, *, argv: Iterable[str] | None = None,
                 script: str | None = None, executes: bool = True,
                 arch_override: str | None = None, triton_version: str | None = None,
                 track_launches: bool = True) -> None:
        self.root = os.path.abspath(root)
        self.argv = list(argv if argv is not None else sys.argv)
        self.script = script
        self.executes = executes
        self.track_launches = track_launches
        self.writer = ShardWriter(self.root, header={
            "triton_version": triton_version,
            "arch": arch_override,
            "source_path": os.path.abspath(script) if script else None,
            "capture": {"launch": executes, "arch_override": arch_override},
        })
        self.errors: list[str] = []
        self._lock = threading.RLock()
        self._local = threading.local()
        self._pending: dict[str, dict] = {}  # kernel hash -> listener call
        self._kernels: dict[int, tuple[Any, tuple]] = {}  # id(CompiledKernel) -> (k, entry)
        self._by_function: dict[Any, int] = {}
        self._seen_points: dict[tuple, set[str]] = {}
        self._last_use: dict[int, tuple] = {}  # id(kernel) -> (point token, executed)
        self._sources: dict[tuple, tuple] = {}  # (id(jit fn), hash(src)) -> (fn, record)
        self._progress = CaptureProgress()

    # -- hook entry points -------------------------------------------------
    def on_compile(self, *, src: Any = None, metadata: Any = None, metadata_group: Any = None,
                   times: Any = None, cache_hit: bool = False, **_: Any) -> None:
        """``knobs.compilation.listener``: remember the files of this compile."""
        md = _as_dict(metadata)
        call = {"src": src, "metadata": md, "group": dict(metadata_group or {}),
                "compile_s": _compile_seconds(times), "cache_hit": bool(cache_hit),
                "point": points.current_point()}
        with self._lock:
            h = md.get("hash")
            if isinstance(h, str):
                self._pending[h] = call
            self._local.last = call

    def on_post_compile(self, *, key: Any = None, repr: Any = None, fn: Any = None,
                        compile: Any = None, is_manual_warmup: bool = False,
                        already_compiled: bool = False, **_: Any) -> None:
        """``knobs.runtime.jit_post_compile_hook``: write the variant's entry."""
        compile = compile if isinstance(compile, dict) else {}
        jit_function = _get(fn, "jit_function")
        kernel = _device_kernel(jit_function, compile.get("device"), key)
        with self._lock:
            call = None
            khash = getattr(kernel, "hash", None) if kernel is not None else None
            if isinstance(khash, str):
                call = self._pending.pop(khash, None)
            if call is None:
                last = getattr(self._local, "last", None)
                if last is not None and last["metadata"].get("hash") in self._pending:
                    call = self._pending.pop(last["metadata"]["hash"])
            self._local.last = None
        group = (call or {}).get("group") or dict(getattr(kernel, "metadata_group", None) or {})
        md = (call or {}).get("metadata") or _as_dict(getattr(kernel, "metadata", None))
        entry = self._base_entry(md, group)
        if entry is None:
            self._error(f"no cache files for {key!r}")
            return
        names = _arg_names(jit_function)
        key_text = key if isinstance(key, str) else str(key)
        entry["key"] = key_text
        entry["repr"] = repr if isinstance(repr, str) else None
        entry["qualname"] = _qualname(fn, jit_function)
        entry["source_file"] = _source_file(jit_function)
        entry["source_line"] = _def_line(jit_function)
        try:
            sig, opts = keyparse.split_key(key_text)
            entry["signature"] = keyparse.signature_rows(sig, names)
            entry["options"] = keyparse.explicit_options(opts)
        except keyparse.KeyParseError as e:
            self._error(f"unparsed JIT key ({e}): {key_text[:120]}")
            entry["signature"] = key_text.split("]{", 1)[0] + "]" if "]{" in key_text else key_text
            entry["options"] = {}
        entry["constexprs"], entry["options"] = keyparse.move_option_params(
            _named_constexprs(compile.get("constants"), names, _constexpr_names(jit_function)),
            entry["options"])
        entry["warmup"] = bool(is_manual_warmup)
        spec_data = spec.parse_specialization_data(compile.get("specialization_data"))
        configs = compile.get("configs")
        self._add_recompile(entry, jit_function, signature=compile.get("signature"),
                            constants=compile.get("constants"),
                            attrs=configs[0] if isinstance(configs, (list, tuple)) and configs
                            else None,
                            key=key_text, options=spec_data.get("options") or md,
                            target=spec_data.get("target") or md.get("target"))
        if call is not None:
            entry["compile_s"] = call["compile_s"]
            entry["cache_hit"] = call["cache_hit"]
        point = points.current_point()
        entry["benchmark"]["points"] = [point] if point else []
        self._store(entry, kernel)

    def on_launch(self, metadata: Any) -> None:
        """``knobs.runtime.launch_enter_hook``: a real launch of a variant."""
        data = getattr(metadata, "data", metadata)
        function = _get(data, "function")
        if function is None:
            return
        kid = self._by_function.get(function)
        if kid is None:
            with self._lock:
                for candidate, (k, _) in list(self._kernels.items()):
                    if getattr(k, "function", None) == function:
                        kid = self._by_function[function] = candidate
                        break
        if kid is not None:
            self._note_use(kid, executed=True)

    def on_kernel_call(self, kernel: Any, *, executed: bool) -> None:
        """The no-launch stand-in was called for ``kernel`` (nothing ran)."""
        if id(kernel) in self._kernels:
            self._note_use(id(kernel), executed=executed)

    # -- internals ---------------------------------------------------------
    def _add_recompile(self, entry: dict, jit_function: Any, **pieces: Any) -> None:
        """Adds the entry's ``recompile`` record and writes the kernel's
        source record into its cache folder (docs/capture-format.md)."""
        if jit_function is None or not entry.get("cache_dir"):
            return
        try:
            doc = self._source_doc(jit_function)
            folder = os.path.join(self.root, "cache", entry["cache_dir"])
            name = kernelsrc.write_source(folder, entry["kernel"], doc)
            defaults = _option_defaults(pieces.get("target"), pieces.get("key"))
            rec = spec.make_record(source=f"cache/{entry['cache_dir']}/{name}",
                                   option_defaults=defaults, **pieces)
            if doc.get("problems"):
                rec["problems"] = list(doc["problems"])
            entry["recompile"] = rec
        except Exception as e:  # noqa: BLE001 - recording must never break the program
            self._error(f"cannot record how to recompile {entry.get('kernel')}: "
                        f"{type(e).__name__}: {e}")

    def _source_doc(self, jit_function: Any) -> dict:
        """The kernel's source record, made once per JIT function and source text."""
        src = _get(jit_function, "src") or ""
        cache_key = (id(jit_function), hash(src) if isinstance(src, str) else 0)
        hit = self._sources.get(cache_key)
        if hit is None or hit[0] is not jit_function:
            hit = (jit_function, kernelsrc.record_source(jit_function))
            self._sources[cache_key] = hit
        return hit[1]

    def _add_sass(self, stages: dict) -> None:
        """Disassembles the cubin into a ``sass`` stage when a tool is at hand."""
        cubin = stages.get("cubin")
        if not cubin or "sass" in stages:
            return
        tool = sass.find_tool()
        if tool is None:
            return
        try:
            path = sass.write_sass(os.path.join(self.root, cubin), tool)
        except (OSError, ValueError, subprocess.SubprocessError) as e:
            self._error(f"no sass stage: {e}")
            return
        if path:
            stages["sass"] = os.path.relpath(path, self.root)

    def _base_entry(self, md: dict, group: dict) -> dict | None:
        cache_dir, stages, meta_path = stage_files(group, self.root)
        if cache_dir is None:
            return None
        self._add_sass(stages)
        target = md.get("target")
        backend = _get(target, "backend") if target is not None else None
        if isinstance(target, (list, tuple)) and len(target) >= 1 and backend is None:
            backend = target[0]
        return {
            "kernel": md.get("name") or next((n.rsplit(".", 1)[0] for n in sorted(group)
                                              if not n.startswith("__grp__")), None),
            "key": None,
            "repr": None,
            "qualname": None,
            "source_file": None,
            "source_line": None,
            "signature": None,
            "constexprs": {},
            "options": {},
            "cache_dir": cache_dir,
            "stages": stages,
            "metadata": meta_path,
            "arch": md.get("arch"),
            "backend": backend,
            "compile_s": None,
            "cache_hit": None,
            "n_regs": None,
            "n_spills": None,
            "shared": md.get("shared"),
            "launched": False,
            "benchmark": {"script": self.script, "argv": self.argv, "points": []},
        }

    def _store(self, entry: dict, kernel: Any) -> None:
        with self._lock:
            stored = self.writer.put(entry)
            ident = manifest.variant_identity(stored)
            self._seen_points[ident] = {manifest.canonical(p)
                                        for p in stored["benchmark"]["points"]}
            if kernel is not None:
                self._kernels[id(kernel)] = (kernel, ident)
                self._refresh_resources(kernel, stored)
            self._write()
            self._progress.note(self._counts)

    def _counts(self) -> tuple[int, int]:
        """(variants, kernels) in this process's shard so far."""
        entries = self.writer.entries()
        return len(entries), len({e.get("qualname") or e.get("kernel") for e in entries})

    def _note_use(self, kid: int, *, executed: bool) -> None:
        # Fast path, once per launch: nothing can have changed since the last
        # use of this kernel with the same point token.
        token = (points.point_token(), executed)
        if self._last_use.get(kid) == token:
            return
        with self._lock:
            self._last_use[kid] = token
            kernel, ident = self._kernels[kid]
            point = points.current_point()
            pkey = manifest.canonical(point) if point else None
            seen = self._seen_points.setdefault(ident, set())
            changed = False

            def apply(stored: dict) -> None:
                nonlocal changed
                if executed and not stored.get("launched"):
                    stored["launched"] = True
                    changed = True
                if pkey is not None and pkey not in seen:
                    seen.add(pkey)
                    stored["benchmark"]["points"] = sorted(
                        stored["benchmark"]["points"] + [point], key=manifest.canonical)
                    changed = True
                if self._refresh_resources(kernel, stored):
                    changed = True

            self.writer.update(ident, apply)
            if changed:
                self._write()

    @staticmethod
    def _refresh_resources(kernel: Any, stored: dict) -> bool:
        """Copies n_regs / n_spills from a loaded binary; True if they changed."""
        changed = False
        for field in ("n_regs", "n_spills"):
            value = getattr(kernel, field, None)
            if isinstance(value, int) and stored.get(field) != value:
                stored[field] = value
                changed = True
        return changed

    def _write(self) -> None:
        try:
            self.writer.write()
        except OSError as e:
            self._error(f"cannot write shard {self.writer.path}: {e.strerror}")

    def _error(self, message: str) -> None:
        with self._lock:
            if message not in self.errors:
                self.errors.append(message)
                print(f"ksnap_triton: {message}", file=sys.stderr)

    def flush(self) -> None:
        """Records compiles no JIT hook claimed (direct ``triton.compile``
        calls), refreshes register counts of loaded binaries, writes the shard."""
        with self._lock:
            leftovers = list(self._pending.values())
            self._pending.clear()
            for call in leftovers:
                entry = self._base_entry(call["metadata"], call["group"])
                if entry is None:
                    continue
                src = call["src"]
                jit_function = _get(src, "fn")
                names = _arg_names(jit_function)
                entry["qualname"] = _qualname(None, jit_function) if jit_function else None
                entry["source_file"] = _source_file(jit_function)
                entry["source_line"] = _def_line(jit_function)
                entry["constexprs"], entry["options"] = keyparse.move_option_params(
                    _named_constexprs(_get(src, "constants"), names,
                                      _constexpr_names(jit_function)),
                    _direct_compile_options(call["metadata"]))
                entry["compile_s"] = call["compile_s"]
                entry["cache_hit"] = call["cache_hit"]
                entry["benchmark"]["points"] = [call["point"]] if call["point"] else []
                md = call["metadata"]
                self._add_recompile(entry, jit_function, signature=_get(src, "signature"),
                                    constants=_get(src, "constants"), attrs=_get(src, "attrs"),
                                    key=None, options=md, target=md.get("target"))
                self.writer.put(entry)
            for kernel, ident in self._kernels.values():
                self.writer.update(ident, lambda stored, k=kernel: self._refresh_resources(k, stored))
            if self.errors:
                self.writer.header["errors"] = list(self.errors)
            self._write()

    def entries(self) -> list[dict]:
        return self.writer.entries()


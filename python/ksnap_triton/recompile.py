"""``recompile CAPTURE -o OUT``: rebuild every recorded variant, no benchmark run.

Each manifest entry written by a capture carries a ``recompile`` record (the
kernel's source record and its specialization, docs/capture-format.md). This
driver plans the work (which variants, which shard, longest first), runs a
pool of ``recompile_worker`` processes that call ``triton.compile`` for an
explicit target (no tensors, no launches, no GPU driver), and writes a normal
capture folder: ``OUT/manifest.json`` + Triton's cache with every stage, and
``OUT/recompile.json`` (the run's report: counts, timings, each failure with
the compiler's message). A worker that dies (a compiler crash) or runs past
``--timeout`` fails only the variant it was on; the rest go on.

Exit status: 0 every planned variant was rebuilt; 1 some failed or could not
be planned (the capture holds the others); 2 usage or input error (unreadable
manifest, bad ``--target``/``--shard``, no usable Triton).

Worked example::

    python3 -m ksnap_triton recompile ci/main -o ci/main-sm80 --target cuda:80 --jobs 16
    python3 -m ksnap_triton recompile ci/pr -o pr-0 --shard 1/4   # 1 of 4 CI runners
    python3 -m ksnap_triton merge ci/pr-all pr-0 pr-1 pr-2 pr-3
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import resource
import selectors
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from . import isolate, manifest

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

__all__ = ["parse_target", "parse_shard", "default_target", "plan", "Task", "Plan",
           "run_pool", "recompile", "main_args", "RecompileError", "EXIT_OK", "EXIT_FAILED",
           "EXIT_USAGE"]


class RecompileError(ValueError):
    """Usage or input error (exit 2); the message says what and where."""


# ---------------------------------------------------------------------------
# Targets and shards
# ---------------------------------------------------------------------------

def parse_target(text: str) -> dict:
    """``cuda:90``, ``cuda:sm_80``, ``sm_80``, ``hip:gfx942``, ``gfx942``,
    ``BACKEND:ARCH[:WARP]`` -> {"backend", "arch", "warp_size"}."""
    t = text.strip().lower()
    parts = t.split(":")
    m = re.fullmatch(r"(?:sm_?)?(\d{2,3})a?", parts[-1] if len(parts) <= 2 else parts[1])
    if len(parts) == 1:
        if re.fullmatch(r"sm_?\d{2,3}a?", t):
            return {"backend": "cuda", "arch": int(re.sub(r"\D", "", t)), "warp_size": 32}
        if re.fullmatch(r"gfx[0-9a-f]{3,4}", t):
            return {"backend": "hip", "arch": t, "warp_size": 64}
        raise RecompileError(f"--target {text!r}: expected e.g. cuda:90, cuda:80, hip:gfx942")
    backend, arch = parts[0], parts[1]
    warp = None
    if len(parts) == 3:
        if not parts[2].isdigit():
            raise RecompileError(f"--target {text!r}: warp size {parts[2]!r} is not a number")
        warp = int(parts[2])
    elif len(parts) > 3:
        raise RecompileError(f"--target {text!r}: too many ':'")
    if backend == "cuda":
        if not m:
            raise RecompileError(f"--target {text!r}: CUDA arch must be a number like 90 or sm_80")
        return {"backend": "cuda", "arch": int(m.group(1)), "warp_size": warp or 32}
    if backend in ("hip", "rocm", "amd"):
        if not re.fullmatch(r"gfx[0-9a-f]{3,4}", arch):
            raise RecompileError(f"--target {text!r}: HIP arch must look like gfx942")
        return {"backend": "hip", "arch": arch, "warp_size": warp or 64}
    if not re.fullmatch(r"[a-z][a-z0-9_]*", backend) or not arch:
        raise RecompileError(f"--target {text!r}: expected BACKEND:ARCH[:WARP_SIZE]")
    return {"backend": backend, "arch": int(arch) if arch.isdigit() else arch,
            "warp_size": warp or 32}


def target_name(t: dict) -> str:
    return f"{t['backend']}:{t['arch']}"


def parse_shard(text: str | None) -> tuple[int, int]:
    """``i/n`` with 1 <= i <= n -> (i, n); None -> (1, 1)."""
    if text is None:
        return 1, 1
    m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if not m or not (1 <= int(m.group(1)) <= int(m.group(2))):
        raise RecompileError(f"--shard {text!r}: expected i/n with 1 <= i <= n, e.g. 2/4")
    return int(m.group(1)), int(m.group(2))


def _entry_target(e: dict) -> dict | None:
    rec = e.get("recompile") if isinstance(e.get("recompile"), dict) else {}
    t = rec.get("target")
    if not isinstance(t, dict) or not isinstance(t.get("backend"), str):
        return None
    t = {"backend": t["backend"], "arch": t.get("arch"), "warp_size": t.get("warp_size")}
    arch_opt = (rec.get("options") or {}).get("arch") if isinstance(rec.get("options"), dict) \
        else None
    if t["backend"] == "cuda" and isinstance(arch_opt, str):
        m = re.fullmatch(r"sm(\d{2,3})a?", arch_opt)
        if m:  # captured with --arch: the options say what the IR was made for
            t["arch"] = int(m.group(1))
    if t["warp_size"] is None:
        t["warp_size"] = 64 if t["backend"] == "hip" else 32
    return t


def default_target(entries: list[dict]) -> dict:
    """The one target the capture's variants were compiled for."""
    seen = {json.dumps(t, sort_keys=True): t for t in map(_entry_target, entries) if t}
    if len(seen) == 1:
        return next(iter(seen.values()))
    if not seen:
        raise RecompileError("the capture records no target; pass --target (e.g. cuda:90)")
    names = ", ".join(sorted(target_name(t) for t in seen.values()))
    raise RecompileError(f"the capture mixes targets ({names}); pass --target")


# ---------------------------------------------------------------------------
# Planning
# ---------------------------------------------------------------------------

@dataclass
class Task:
    index: int       # position in the manifest
    entry: dict
    cost: float      # expected seconds (the capture's compile_s)
    name: str        # for messages: kernel + short identity


@dataclass
class Plan:
    tasks: list[Task] = field(default_factory=list)        # this shard's, longest first
    skipped: list[dict] = field(default_factory=list)      # {"kernel", "key", "reason"}
    total: int = 0                                          # variants in the manifest
    shard: tuple[int, int] = (1, 1)
    other_shards: int = 0                                   # planned for other shards


def _identity_text(e: dict) -> str:
    return manifest.canonical(list(manifest.variant_identity(e)))


def _describe(e: dict) -> str:
    ident = hashlib.sha1(_identity_text(e).encode()).hexdigest()[:8]
    consts = ",".join(f"{k}={v}" for k, v in sorted((e.get("constexprs") or {}).items()))
    opts = ",".join(f"{k}={v}" for k, v in sorted((e.get("options") or {}).items()))
    detail = ";".join(x for x in (consts, opts) if x)
    return f"{e.get('kernel')}[{detail}]#{ident}" if detail else f"{e.get('kernel')}#{ident}"


def _why_not(e: dict) -> str | None:
    rec = e.get("recompile")
    if rec is None:
        return ("no recompile record (captured by a ksnap_triton older than format 1 "
                "recompile records, or not through the JIT)")
    if not isinstance(rec, dict):
        return "recompile record is not an object"
    if not isinstance(rec.get("source"), str):
        return "recompile record has no source"
    if rec.get("problems"):
        return "source not recordable: " + "; ".join(map(str, rec["problems"]))
    return None


def plan(entries: list[dict], shard: tuple[int, int] = (1, 1),
         kernels: Sequence[str] = ()) -> Plan:
    """Which variants this shard rebuilds, longest expected compile first.

    Shards are balanced by the capture's compile times (greedy, longest
    first, ties by identity), so every runner computes the same split from
    the same manifest, and every variant lands in exactly one shard.
    """
    i, n = shard
    p = Plan(total=len(entries), shard=shard)
    candidates: list[Task] = []
    for idx, e in enumerate(entries):
        if kernels and e.get("kernel") not in kernels:
            p.total -= 1
            continue
        why = _why_not(e)
        if why:
            p.skipped.append({"kernel": e.get("kernel"), "key": e.get("key"),
                              "qualname": e.get("qualname"),
                              "variant": _describe(e), "reason": why})
            continue
        cost = e.get("compile_s")
        cost = float(cost) if isinstance(cost, (int, float)) and cost > 0 else 1.0
        candidates.append(Task(idx, e, cost, _describe(e)))
    candidates.sort(key=lambda t: (-t.cost, _identity_text(t.entry), t.index))
    loads = [0.0] * n
    for t in candidates:
        s = min(range(n), key=lambda k: (loads[k], k))
        loads[s] += t.cost
        if s == i - 1:
            p.tasks.append(t)
        else:
            p.other_shards += 1
    if n > 1:  # skipped variants are reported by the shard that owns them
        mine = []
        for s in p.skipped:
            h = int(hashlib.sha1((s["variant"]).encode()).hexdigest(), 16)
            if h % n == i - 1:
                mine.append(s)
        p.skipped = mine
    return p


# ---------------------------------------------------------------------------
# The worker pool
# ---------------------------------------------------------------------------

def _worker_env(out: str) -> dict:
    env = dict(os.environ)
    for k in list(env):
        if k.startswith("KSNAP_CAPTURE_"):
            del env[k]  # workers must not record themselves into a capture
    env.pop("TRITON_OVERRIDE_ARCH", None)
    env["TRITON_CACHE_DIR"] = os.path.join(out, "cache")
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    bootstrap = os.path.join(here, "ksnap_triton", "_bootstrap")
    parts = [here] + isolate.absolute_path_list(env.get("PYTHONPATH", ""), (here, bootstrap))
    env["PYTHONPATH"] = os.pathsep.join(parts)
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


class _Proc:
    def __init__(self, python: str, env: dict) -> None:
        self.p = subprocess.Popen(isolate.module_argv(python, "ksnap_triton.recompile_worker"),
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=None, env=env, start_new_session=True)
        self.buf = b""
        self.task: Task | None = None
        self.started = 0.0
        self.ready = False

    def send(self, payload: dict, task: Task) -> None:
        self.task = task
        self.started = time.monotonic()
        assert self.p.stdin is not None
        self.p.stdin.write((json.dumps(payload) + "\n").encode())
        self.p.stdin.flush()

    def kill(self) -> None:
        try:
            os.killpg(self.p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.p.wait()

    def close(self) -> None:
        try:
            if self.p.stdin:
                self.p.stdin.close()
        except OSError:
            pass
        try:
            self.p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill()


def _exit_text(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


def run_pool(tasks: list[Task], make_payload: Callable[[Task], dict], jobs: int, *,
             python: str, env: dict, timeout: float,
             on_result: Callable[[Task, dict], None]) -> dict:
    """Runs tasks on ``jobs`` worker processes; calls on_result per task.

    Returns {"triton_version", "sass"} from the workers' hello. Raises
    RecompileError when no worker can start Triton.
    """
    pending = list(tasks)
    procs: list[_Proc] = []
    sel = selectors.DefaultSelector()
    info: dict = {}
    fatal: list[str] = []

    def start() -> None:
        p = _Proc(python, env)
        procs.append(p)
        assert p.p.stdout is not None
        os.set_blocking(p.p.stdout.fileno(), False)
        sel.register(p.p.stdout, selectors.EVENT_READ, p)

    def retire(p: _Proc) -> None:
        try:
            sel.unregister(p.p.stdout)
        except (KeyError, ValueError):
            pass
        procs.remove(p)

    def dispatch(p: _Proc) -> None:
        if pending and not fatal:
            t = pending.pop(0)
            p.send(make_payload(t), t)
        else:
            p.task = None

    for _ in range(max(1, min(jobs, len(tasks)))):
        start()
    while procs:
        events = sel.select(timeout=1.0)
        now = time.monotonic()
        for key, _ in events:
            p: _Proc = key.data
            try:
                chunk = os.read(p.p.stdout.fileno(), 1 << 16)
            except BlockingIOError:
                continue
            if not chunk:  # the worker died
                p.p.wait()
                retire(p)
                if p.task is not None:
                    on_result(p.task, {"ok": False, "phase": "crash",
                                       "error": f"worker {_exit_text(p.p.returncode)} while "
                                                f"compiling this variant"})
                elif not p.ready:
                    fatal.append(f"worker {_exit_text(p.p.returncode)} before it started")
                if pending and not fatal:
                    start()
                continue
            p.buf += chunk
            while b"\n" in p.buf:
                line, p.buf = p.buf.split(b"\n", 1)
                try:
                    msg = json.loads(line)
                except ValueError:
                    continue
                if "fatal" in msg:
                    fatal.append(str(msg["fatal"]))
                    p.task = None
                    continue
                if msg.get("hello"):
                    p.ready = True
                    info.setdefault("triton_version", msg.get("triton_version"))
                    info.setdefault("sass", msg.get("sass"))
                    dispatch(p)
                    continue
                t, p.task = p.task, None
                if t is not None:
                    on_result(t, msg)
                dispatch(p)
            if p.task is None and (not pending or fatal):
                retire(p)
                p.close()
        for p in list(procs):
            if p.task is not None and timeout > 0 and now - p.started > timeout:
                t = p.task
                p.task = None
                retire(p)
                p.kill()
                on_result(t, {"ok": False, "phase": "timeout",
                              "error": f"compile ran past --timeout {timeout:g} s; worker killed"})
                if pending and not fatal:
                    start()
    sel.close()
    if fatal and not info:
        raise RecompileError(fatal[0])
    for t in pending:  # left when the workers could not start
        on_result(t, {"ok": False, "phase": "crash", "error": fatal[0] if fatal else "not run"})
    return info


# ---------------------------------------------------------------------------
# Progress
# ---------------------------------------------------------------------------

class Progress:
    """done/total, rate and ETA on a terminal; nothing until the end otherwise."""

    def __init__(self, total: int, stream: Any = None, tty: bool | None = None) -> None:
        self.total, self.done, self.failed = total, 0, 0
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.t0 = time.monotonic()
        self._last = 0.0

    def rate(self) -> float:
        dt = time.monotonic() - self.t0
        return self.done / dt if dt > 0 else 0.0

    def update(self, ok: bool) -> None:
        self.done += 1
        self.failed += 0 if ok else 1
        now = time.monotonic()
        if self.tty and (now - self._last > 0.1 or self.done == self.total):
            self._last = now
            r = self.rate()
            eta = (self.total - self.done) / r if r > 0 else 0.0
            fail = f", {self.failed} failed" if self.failed else ""
            self.stream.write(f"\rrecompile: {self.done}/{self.total} variants, "
                              f"{r:.1f}/s, ETA {eta:.0f} s{fail}   ")
            self.stream.flush()

    def finish(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


# ---------------------------------------------------------------------------
# The command
# ---------------------------------------------------------------------------

def check_python(python: str) -> str:
    """``--python PATH``: an executable file (absolute, or found on PATH)."""
    import shutil

    found = shutil.which(python)
    if not found:
        raise RecompileError(f"--python {python!r}: not an executable interpreter")
    return os.path.abspath(found) if os.sep in python else found


def _failure_text(f: dict) -> str:
    err = f.get("error") or ""
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    short = lines[-1] if lines else ""
    return f"{f['variant']}: {f['phase']}: {short}"


def recompile(capture: str, out: str, *, target: str | None = None, jobs: int | None = None,
              shard: str | None = None, build: str | None = None, timeout: float = 900.0,
              kernels: Sequence[str] = (), sass: bool = True, python: str | None = None,
              trusted: Sequence[str] = (),
              stream: Any = None, tty: bool | None = None) -> int:
    """Runs the command; returns the exit status."""
    stream = stream or sys.stderr
    python = check_python(python) if python else None
    capture = os.path.abspath(capture)
    out = os.path.abspath(out)
    if capture == out:
        raise RecompileError("-o must be a folder other than the capture")
    path = os.path.join(capture, "manifest.json")
    if not os.path.isfile(path):
        raise RecompileError(f"{capture}: not a capture folder (no manifest.json)")
    try:
        m = manifest.read_manifest(path)
    except manifest.ManifestError as e:
        raise RecompileError(str(e)) from None
    entries = m["entries"]
    i_n = parse_shard(shard)
    tgt = parse_target(target) if target else default_target(entries)
    p = plan(entries, i_n, kernels)
    jobs = jobs or os.cpu_count() or 1
    if jobs < 1:
        raise RecompileError("--jobs must be at least 1")
    os.makedirs(os.path.join(out, "cache"), exist_ok=True)
    rebuilt: list[dict] = []
    failures: list[dict] = []
    warnings: list[str] = []
    progress = Progress(len(p.tasks), stream, tty)
    compile_seconds = 0.0

    def payload(t: Task) -> dict:
        return {"id": t.index, "capture": capture, "out": out, "entry": t.entry,
                "target": tgt, "sass": sass, "trusted": list(trusted)}

    def on_result(t: Task, msg: dict) -> None:
        nonlocal compile_seconds
        ok = bool(msg.get("ok"))
        if ok:
            for w in msg["entry"].pop("_warnings", []):
                warnings.append(f"{t.name}: {w}")
                stream.write(f"ksnap_triton: recompile warning: {t.name}: {w}\n")
            rebuilt.append(msg["entry"])
            compile_seconds += float(msg["entry"].get("compile_s") or 0)
        else:
            f = {"variant": t.name, "kernel": t.entry.get("kernel"), "key": t.entry.get("key"),
                 "qualname": t.entry.get("qualname"), "phase": msg.get("phase", "?"),
                 "error": msg.get("error", "")}
            if msg.get("stderr"):
                f["stderr"] = msg["stderr"]
            failures.append(f)
            if progress.tty:
                stream.write("\n")
            stream.write(f"ksnap_triton: recompile failed: {_failure_text(f)}\n")
        progress.update(ok)

    t0 = time.monotonic()
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    info = {}
    if p.tasks:
        info = run_pool(p.tasks, payload, jobs, python=python or sys.executable,
                        env=_worker_env(out), timeout=timeout, on_result=on_result)
    progress.finish()
    wall = time.monotonic() - t0
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)

    header = {"triton_version": info.get("triton_version"), "arch": None,
              "source_path": m.get("source_path"),
              "capture": {"launch": False, "arch_override": None,
                          "recompiled": {"target": target_name(tgt)}}}
    name = build or (os.path.basename(out.rstrip("/")))
    result = manifest.make_manifest(name, rebuilt, [header])
    manifest.write_json_atomic(os.path.join(out, "manifest.json"), result)
    failures.sort(key=lambda f: f["variant"])
    report = {
        "format": "ksnap-recompile-report", "format_version": 1,
        "capture": capture, "target": target_name(tgt), "target_detail": tgt,
        "triton_version": info.get("triton_version"), "sass_tool": info.get("sass"),
        "python": python or sys.executable,
        "shard": f"{i_n[0]}/{i_n[1]}", "jobs": jobs,
        "variants_in_capture": p.total, "planned": len(p.tasks),
        "other_shards": p.other_shards, "rebuilt": len(rebuilt), "failed": failures,
        "skipped": p.skipped, "warnings": sorted(warnings),
        "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
        "compile_s_sum": round(compile_seconds, 3),
        "variants_per_s": round(len(rebuilt) / wall, 3) if wall > 0 else None,
        "cores_used": round(cpu / wall, 2) if wall > 0 else None,
    }
    old_records = sum(1 for t in p.tasks
                      if "option_defaults" not in (t.entry.get("recompile") or {}))
    if old_records:
        report["notes"] = [
            f"{old_records} of {len(p.tasks)} variants were captured without option_defaults "
            "(an older ksnap_triton): only their JIT key's options were passed on, every other "
            "option is this compiler's default (docs/recompile.md)"]
    manifest.write_json_atomic(os.path.join(out, "recompile.json"), report)
    for note in report.get("notes", []):
        stream.write(f"ksnap_triton: recompile: note: {note}\n")
    for s in p.skipped:
        stream.write(f"ksnap_triton: recompile skipped {s['variant']}: {s['reason']}\n")
    rate = f"{report['variants_per_s']:.2f}" if report["variants_per_s"] else "0"
    shard_txt = f", shard {i_n[0]}/{i_n[1]}" if i_n[1] > 1 else ""
    stream.write(
        f"ksnap_triton: recompiled {len(rebuilt)}/{len(p.tasks)} variants for "
        f"{target_name(tgt)}{shard_txt} in {wall:.1f} s ({rate}/s, {jobs} jobs, "
        f"{report['cores_used']} cores used); {len(failures)} failed, {len(p.skipped)} "
        f"skipped -> {os.path.join(out, 'manifest.json')}\n")
    return EXIT_FAILED if failures or p.skipped else EXIT_OK


def main_args(args: Any) -> int:
    """Entry from cli.py with parsed arguments."""
    try:
        return recompile(args.capture, args.output, target=args.target, jobs=args.jobs,
                         shard=args.shard, build=args.build, timeout=args.timeout,
                         kernels=args.kernel or (), sass=not args.no_sass,
                         trusted=args.trust_module or (), python=args.python)
    except RecompileError as e:
        print(f"ksnap_triton: recompile: {e}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as e:
        print(f"ksnap_triton: recompile: {e.filename or ''}: {e.strerror}", file=sys.stderr)
        return EXIT_USAGE


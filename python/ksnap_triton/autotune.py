"""A drop-in for ``triton.autotune`` that tunes on the program's own calls.

``triton.autotune`` benchmarks every config (``do_bench``: about 125 ms each)
before the first call of a new key returns. This decorator takes the same
arguments and the same ``kernel[grid](*args, **kwargs)`` call, but

* the **first call** of a key launches one config at once: the config with
  the best timing persisted for this key, else the first one (after
  ``prune_configs_by``);
* **later calls** of an undecided key each launch the next candidate between
  two CUDA events (``torch.cuda.Event(enable_timing=True)``), and read the
  results of earlier calls with ``event.query()``, never synchronizing: the
  caller's real call is the measurement;
* once the samples are conclusive it **commits**, by the rule of ksnap's C++
  race (``include/ksnap/tune/race.h``): per config the median and its
  McKean-Schrader standard error; a config confidently slower than the leader
  (z = 3) is eliminated; the survivors all within the tie tolerance (1%) of the
  leader commit the first *declared* of them (``tied``); a leader within the
  tolerance of every survivor and ahead of all by half of it commits
  (``leader``); one survivor commits (``separated``); the launch budget (32
  per config) commits the lowest median (``budget``). After the commit a call
  is a dict lookup plus the launch;
* per-config timings are **persisted** in a JSON file, keyed by what they
  measured, not by the config's index: kernel (module, qualname, hash of the
  source), device name and compute capability, Triton version, the tuning key
  values and dtypes, and the config's canonical text (sorted kwargs,
  num_warps, num_stages, num_ctas, maxnreg). Adding a config keeps the others'
  timings and re-opens the decision; an unchanged config set (in any order)
  reuses the committed decision.

Usage (the same as ``triton.autotune``)::

    import ksnap_triton

    @ksnap_triton.autotune(configs=[triton.Config({"BLOCK": 128}, num_warps=4),
                                    triton.Config({"BLOCK": 256}, num_warps=8)],
                           key=["n"])
    @triton.jit
    def kernel(x_ptr, n, BLOCK: tl.constexpr): ...

    kernel[lambda META: (triton.cdiv(n, META["BLOCK"]),)](x, n)

Differences from ``triton.autotune``, by design:

* Each call launches the kernel **exactly once** (a config that fails to
  compile — ``OutOfResources``, ``PTXASError``, ``CompileTimeAssertionFailure``
  — raises before anything runs; it is excluded for the key and the call is
  launched with another config). No buffer is ever written twice by one call,
  so ``reset_to_zero`` and ``restore_value`` are never needed for correctness:
  they are accepted and ignored, and so are the autotuner-level ``pre_hook``
  / ``post_hook`` (Triton runs those around its benchmark launches only).
  A config's own ``pre_hook`` runs before every launch of that config, as in
  Triton.
* ``warmup``, ``rep``, ``use_cuda_graph``, ``do_bench`` and ``cache_results``
  are accepted and ignored: nothing is benchmarked apart from the calls.
* While the current stream is being captured into a CUDA graph, an undecided
  key launches its current leader untimed (no event is recorded or queried).
* The events bracket the launch itself: when Triton offers launch hooks
  (``knobs.runtime.launch_enter_hook`` / ``launch_exit_hook``, Triton >= 3.4)
  the start event is recorded in the enter hook, just before the driver
  launch, and the end event in the exit hook, so the host's launch latency
  is not counted when the GPU is idle; without them the events bracket
  ``fn.run`` and the first timing of each config is discarded.

Controls: ``cache_path`` (else ``KSNAP_TRITON_TUNE_CACHE``, else
``~/.cache/ksnap/triton_tune.json``; ``off`` disables the file),
``KSNAP_TUNE_LOG=path`` (each commit appended as one JSON line),
``KSNAP_TUNE_DISABLE=1`` (no timing: a persisted decision, else the best
persisted timing, else the first config), ``on_commit`` (a callable given
the commit event as a dict).

Standard library only; ``torch`` and ``triton`` are imported when a key is
first met, never at import.
"""

from __future__ import annotations

import atexit
import collections
import hashlib
import inspect
import json
import math
import os
import sys
import threading
import time
import types
import weakref
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from .manifest import write_json_atomic

__all__ = ["autotune", "Autotuner", "config_text", "default_cache_path", "FORMAT",
           "FORMAT_VERSION"]

FORMAT = "ksnap-triton-tune"
FORMAT_VERSION = 1
#: Timings kept per (entry, config) in the file: the most recent ones.
MAX_SAMPLES = 64
#: A cache file larger than this is not read (a warning says so).
MAX_FILE_BYTES = 64 << 20
#: Exceptions of a config that cannot run; the config is excluded for the key.
_LAUNCH_ERRORS = frozenset({"OutOfResources", "PTXASError", "CompileTimeAssertionFailure"})


# ---------------------------------------------------------------------------
# Estimators and the race (the C++ race of include/ksnap/tune/race.h)


def _median_sorted(s: Sequence[float]) -> float:
    n = len(s)
    if n == 0:
        return 0.0
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


def _estimate(s: Sequence[float]) -> Tuple[float, float, int]:
    """(median, standard error, n) of ascending ``s``. McKean-Schrader:
    se = (x(n-c+1) - x(c)) / (2*1.96), c = round((n+1)/2 - 1.96*sqrt(n/4));
    with fewer than 3 samples the whole range (deliberately uninformative)."""
    n = len(s)
    if n == 0:
        return 0.0, 0.0, 0
    med = _median_sorted(s)
    if n < 3:
        return med, s[-1] - s[0], n
    z = 1.959963984540054
    c = int(math.floor((n + 1) / 2 - z * math.sqrt(n / 4) + 0.5))
    c = min(max(c, 1), n)
    return med, (s[n - c] - s[c - 1]) / (2 * z), n


class _Variant:
    __slots__ = ("launches", "recorded", "samples", "seeded", "alive", "eliminated_by",
                 "excluded")

    def __init__(self) -> None:
        self.launches = 0         # launches issued by this race
        self.recorded = 0         # timings received by this race (warm-up included)
        self.samples: List[float] = []  # kept timings, sorted (seeded ones included)
        self.seeded = 0           # of them, loaded from the cache file
        self.alive = True
        self.eliminated_by = -1
        self.excluded = False


class Race:
    """Which of ``n`` configs is fastest, from timings that arrive one by one.

    The decision rule of ksnap's C++ race (``race.h``: checkpoints at x1.25
    growth of the smallest survivor sample count, elimination at z = 3, the
    ``tied`` / ``leader`` / ``separated`` / ``budget`` commits). Two additions
    for timings known before the race starts (the cache file): ``seed`` adds
    them as samples that cost no launch, and ``next`` serves the survivors
    with the fewest samples first (with equal counts: round-robin, each round
    starting one place later, as in C++)."""

    def __init__(self, n: int, tie_tolerance: float = 0.01, z_eliminate: float = 3.0,
                 z_tie: float = 3.0, min_samples: int = 5, tie_min_samples: int = 16,
                 duel_budget_factor: float = 2.0, warmup: int = 0, max_launches: int = 0):
        self.n = max(1, n)
        self.tie_tolerance = tie_tolerance
        self.z_eliminate, self.z_tie = z_eliminate, z_tie
        self.min_samples, self.tie_min_samples = min_samples, tie_min_samples
        self.duel_budget_factor = duel_budget_factor
        self.warmup = warmup
        self.max_launches = max_launches
        self.v = [_Variant() for _ in range(self.n)]
        self.launches = 0
        self.explored_us = 0.0
        self.decision = "exploring"
        self.choice_ = 0
        self._round: List[int] = []
        self._round_pos = 0
        self._round_no = 0
        self._next_check = 0
        if self.n == 1:
            self._commit(0, "single")

    # -- queries
    @property
    def committed(self) -> bool:
        return self.decision != "exploring"

    def estimate(self, i: int) -> Tuple[float, float, int]:
        return _estimate(self.v[i].samples)

    def alive_count(self) -> int:
        return sum(1 for s in self.v if s.alive)

    def leader(self) -> int:
        best, best_v = -1, 0.0
        for i, s in enumerate(self.v):
            if not s.alive or not s.samples:
                continue
            m = _median_sorted(s.samples)
            if best < 0 or m < best_v:
                best, best_v = i, m
        return 0 if best < 0 else best

    def choice(self) -> int:
        return self.choice_ if self.committed else self.leader()

    # -- driving
    def seed(self, i: int, samples: Sequence[float]) -> None:
        s = self.v[i]
        s.samples.extend(samples)
        s.samples.sort()
        s.seeded += len(samples)

    def note_launch(self, i: int) -> None:
        """A launch of ``i`` chosen outside next() (the first call's)."""
        self.v[i].launches += 1
        self.launches += 1

    def next(self) -> int:
        if self._round_pos >= len(self._round):
            alive = [i for i, s in enumerate(self.v) if s.alive]
            if not alive:
                return 0
            count = {i: self.v[i].seeded + self.v[i].launches for i in alive}
            low = min(count.values())
            members = [i for i in alive if count[i] == low]
            r = self._round_no % len(members)
            self._round = members[r:] + members[:r]
            self._round_pos = 0
            self._round_no += 1
        i = self._round[self._round_pos]
        self._round_pos += 1
        self.v[i].launches += 1
        self.launches += 1
        return i

    def record(self, i: int, time_us: float) -> bool:
        """A timing of a launch of ``i``; returns whether it was kept (not
        warm-up). May eliminate configs or commit."""
        if self.committed or not 0 <= i < self.n:
            return False
        s = self.v[i]
        s.recorded += 1
        self.explored_us += time_us
        kept = s.recorded > self.warmup
        if kept:
            lo, hi = 0, len(s.samples)
            while lo < hi:  # insertion after equal values (bisect_right)
                mid = (lo + hi) // 2
                if s.samples[mid] <= time_us:
                    lo = mid + 1
                else:
                    hi = mid
            s.samples.insert(lo, time_us)
        self._evaluate(force=False)
        return kept

    def exclude(self, i: int) -> bool:
        """Takes ``i`` out (it cannot run); refused for the last survivor."""
        if self.committed or not self.v[i].alive or self.alive_count() < 2:
            return False
        self.v[i].alive = False
        self.v[i].excluded = True
        self._round_pos = len(self._round)  # the round in progress may list it
        if self.alive_count() == 1:
            self._commit(next(k for k, s in enumerate(self.v) if s.alive), "separated")
        return True

    def evaluate_now(self) -> None:
        """Tests once, whatever the checkpoint schedule (after seeding)."""
        if not self.committed:
            self._evaluate(force=True)

    # -- the rule
    def _commit(self, i: int, why: str) -> None:
        self.choice_, self.decision = i, why

    def _budget(self) -> int:
        return self.max_launches if self.max_launches else 32 * self.n

    def _compare(self, a: int, b: int) -> Tuple[float, float, int]:
        """log(est a / est b), its standard error, the smaller n."""
        ma, sa, na = self.estimate(a)
        mb, sb, nb = self.estimate(b)
        if ma <= 0 or mb <= 0:
            return 0.0, 1.0, min(na, nb)
        return math.log(ma / mb), math.hypot(sa / ma, sb / mb), min(na, nb)

    def _evaluate(self, force: bool) -> None:
        racing = sum(s.recorded for s in self.v if s.alive)
        factor = self.duel_budget_factor if self.alive_count() == 2 and self.n > 2 else 1.0
        over_budget = racing >= self._budget() * factor or self.launches >= 4 * self._budget()
        need = max(self.min_samples, 2)
        ready = all(len(s.samples) >= need for s in self.v if s.alive)
        if ready:
            m = min(len(s.samples) for s in self.v if s.alive)
            if m < self._next_check and not force:
                ready = False
            else:
                self._next_check = max(m + 1, int(m * 1.25))
        if not ready:
            if over_budget:
                self._commit(self.leader(), "budget")
            return
        lead = self.leader()
        for i, s in enumerate(self.v):
            if not s.alive or i == lead:
                continue
            r, se, n = self._compare(i, lead)
            if n >= need and r - self.z_eliminate * se > 0:
                s.alive = False
                s.eliminated_by = lead
        if self.alive_count() == 1:
            return self._commit(lead, "separated")
        log_tol = math.log1p(self.tie_tolerance)
        tie_need = max(need, self.tie_min_samples)

        def within(a: int, b: int) -> bool:
            r, se, n = self._compare(a, b)
            return n >= tie_need and r + self.z_tie * se < log_tol

        alive = [i for i, s in enumerate(self.v) if s.alive]
        if all(within(i, lead) for i in alive if i != lead):
            return self._commit(alive[0], "tied")  # declaration order among the survivors
        log_half = math.log1p(self.tie_tolerance / 2)
        ok = True
        for i in alive:
            if i == lead:
                continue
            r, se, _ = self._compare(i, lead)
            if not (within(lead, i) and r - se > log_half):
                ok = False
                break
        if ok:
            return self._commit(lead, "leader")
        if over_budget:
            self._commit(lead, "budget")


# ---------------------------------------------------------------------------
# Configs


class _DefaultConfig:
    """triton.Config({}, num_warps=4, num_stages=3, num_ctas=1), for an empty
    config list (what triton.autotune uses), without importing Triton."""

    def __init__(self) -> None:
        self.kwargs: Dict[str, Any] = {}
        self.num_warps, self.num_stages, self.num_ctas = 4, 3, 1
        self.maxnreg = None
        self.pre_hook = None
        self.ir_override = None

    def all_kwargs(self) -> Dict[str, Any]:
        return {"num_warps": 4, "num_ctas": 1, "num_stages": 3}

    def __str__(self) -> str:
        return "num_warps: 4, num_ctas: 1, num_stages: 3, maxnreg: None"


def _value_text(v: Any) -> str:
    if v is None or isinstance(v, (bool, int, float, str)):
        return repr(v)
    text = repr(v)
    return type(v).__name__ if " at 0x" in text else text


def config_text(cfg: Any) -> str:
    """The canonical text of a config, its identity in the cache file:
    ``BLOCK_K=32,BLOCK_M=128,num_warps=4,num_stages=3,num_ctas=1,maxnreg=None``
    (kwargs sorted by name; ``ir_override=...`` appended when set)."""
    kw = getattr(cfg, "kwargs", None) or {}
    parts = [f"{k}={_value_text(kw[k])}" for k in sorted(kw, key=str)]
    parts.append(f"num_warps={_value_text(getattr(cfg, 'num_warps', 4))}")
    parts.append(f"num_stages={_value_text(getattr(cfg, 'num_stages', 3))}")
    parts.append(f"num_ctas={_value_text(getattr(cfg, 'num_ctas', 1))}")
    parts.append(f"maxnreg={_value_text(getattr(cfg, 'maxnreg', None))}")
    ir = getattr(cfg, "ir_override", None)
    if ir is not None:
        parts.append(f"ir_override={_value_text(ir)}")
    return ",".join(parts)


def _launch_kwargs(cfg: Any) -> Dict[str, Any]:
    """What triton.autotune passes to ``fn.run``: ``config.all_kwargs()``,
    the constexprs plus num_warps / num_ctas / num_stages / maxnreg /
    ir_override where set."""
    if hasattr(cfg, "all_kwargs"):
        return dict(cfg.all_kwargs())
    out = dict(getattr(cfg, "kwargs", None) or {})
    for name in ("num_warps", "num_ctas", "num_stages", "maxnreg", "ir_override"):
        v = getattr(cfg, name, None)
        if v is not None:
            out[name] = v
    return out


def _key_value_text(v: Any) -> str:
    if v is None or isinstance(v, (bool, int, float, str)):
        return repr(v)
    shape = getattr(v, "shape", None)
    if shape is not None:
        try:
            return "tensor" + repr(tuple(int(d) for d in shape))
        except (TypeError, ValueError):
            pass
    return _value_text(v)


# ---------------------------------------------------------------------------
# The cache file


def default_cache_path() -> str:
    env = os.environ.get("KSNAP_TRITON_TUNE_CACHE")
    if env:
        return env
    return os.path.join(os.path.expanduser("~"), ".cache", "ksnap", "triton_tune.json")


_warned: set = set()


def _warn_once(what: str, text: str) -> None:
    if what in _warned:
        return
    _warned.add(what)
    print(f"ksnap_triton.autotune: {text}", file=sys.stderr)


def _finite_time(x: Any) -> bool:
    return (isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
            and 0 < x < 1e12)


def _validate_header(doc: Any) -> Optional[str]:
    """Why ``doc`` is not a tuning cache of this format (None: it is); its
    entries are checked one by one (_validate_entry)."""
    if not isinstance(doc, dict):
        return "not a JSON object"
    if doc.get("format") != FORMAT:
        return f"format is not '{FORMAT}'"
    if doc.get("version") != FORMAT_VERSION:
        return f"version {str(doc.get('version'))[:20]} is not {FORMAT_VERSION}"
    if not isinstance(doc.get("entries"), dict):
        return "'entries' is not an object"
    return None


def _validate_entry(eid: str, e: Any) -> Optional[str]:
    """Why entry ``eid`` cannot be used (None: it can)."""
    where = f"entry {eid[:40]!r}"
    if not isinstance(e, dict):
        return f"{where} is not an object"
    for field in ("kernel", "source", "device", "triton", "key"):
        if not isinstance(e.get(field), str):
            return f"{where}: '{field}' is not a string"
    timings = e.get("timings")
    if not isinstance(timings, dict):
        return f"{where}: 'timings' is not an object"
    for ct, samples in timings.items():
        if not isinstance(samples, list) or not all(_finite_time(x) for x in samples):
            return f"{where}: timings of {ct[:60]!r} are not a list of positive times"
    d = e.get("decision")
    if d is None:
        return None
    if not isinstance(d, dict):
        return f"{where}: 'decision' is not an object"
    configs = d.get("configs")
    if not isinstance(configs, list) or not all(isinstance(c, str) for c in configs):
        return f"{where}: decision 'configs' is not a list of strings"
    if not isinstance(d.get("choice"), str) or d["choice"] not in configs:
        return f"{where}: decision 'choice' is not one of its configs"
    if not isinstance(d.get("decision"), str):
        return f"{where}: decision 'decision' is not a string"
    return None


def _validate(doc: Any) -> Optional[str]:
    """Why ``doc`` is not a wholly valid tuning cache (None: it is)."""
    why = _validate_header(doc)
    if why is None:
        for eid, e in doc["entries"].items():
            why = _validate_entry(eid, e)
            if why is not None:
                break
    return why


def _empty_doc() -> Dict[str, Any]:
    return {"format": FORMAT, "version": FORMAT_VERSION, "entries": {}}


class _Store:
    """One cache file, shared by every autotuner of the process that uses it.

    Reads need no lock (writes replace the file atomically); a write takes
    ``<file>.lock`` (flock) beside the file a symbolic link leads to, re-reads,
    merges and replaces that file: processes sharing it, by any path, lose no
    timings. What it cannot use it never destroys, as the C++ cache
    (src/tune/cache.cc): an entry that is malformed is not used and kept in the
    file as written; a file that is not a tuning cache of this version (another
    format, a newer version, not JSON, too large) is not used and **not
    overwritten** (decisions then live in this process only); one warning on
    stderr says which. An empty file is an empty cache."""

    _all: Dict[str, "_Store"] = {}
    _all_lock = threading.Lock()

    @classmethod
    def of(cls, path: str) -> "_Store":
        path = os.path.abspath(os.path.expanduser(path))
        with cls._all_lock:
            s = cls._all.get(path)
            if s is None:
                s = cls._all[path] = _Store(path)
            return s

    def __init__(self, path: str) -> None:
        self.path = path
        self.doc = _empty_doc()
        self._stamp: Any = None
        self.lock = threading.Lock()

    def _read(self, path: Optional[str] = None) -> Tuple[Dict[str, Any], Dict[str, Any],
                                                          Optional[str]]:
        """(usable doc, malformed entries kept as written, why the file must
        not be overwritten or None)."""
        path = path or self.path
        try:
            st = os.stat(path)
        except FileNotFoundError:
            return _empty_doc(), {}, None
        except OSError as e:
            why = f"cannot read it: {e}"
            _warn_once(self.path, f"the tuning cache {self.path}: {why}; ignored")
            return _empty_doc(), {}, why
        if st.st_size > MAX_FILE_BYTES:
            why = f"larger than {MAX_FILE_BYTES} bytes"
        else:
            try:
                with open(path, "rb") as f:
                    raw = f.read(MAX_FILE_BYTES + 1)
                if not raw.strip():
                    return _empty_doc(), {}, None
                doc = json.loads(raw.decode("utf-8"))
                why = _validate_header(doc)
            except (ValueError, RecursionError, MemoryError, OSError) as e:
                why = f"{type(e).__name__}: {str(e)[:200]}"
        if why is not None:
            _warn_once(self.path, f"the tuning cache {self.path} is not valid ({why}); not used "
                                  "and not overwritten (remove or repair it)")
            return _empty_doc(), {}, why
        good: Dict[str, Any] = {}
        kept: Dict[str, Any] = {}
        first = None
        for eid, e in doc["entries"].items():
            bad = _validate_entry(eid, e)
            if bad is None:
                good[eid] = e
            else:
                kept[eid] = e
                first = first or bad
        if kept:
            n = len(kept)
            _warn_once(self.path + "#entries",
                       f"the tuning cache {self.path}: {n} malformed entr"
                       f"{'y' if n == 1 else 'ies'} not used, kept in the file as written; "
                       f"first: {first}")
        doc["entries"] = good
        return doc, kept, None

    def refresh(self) -> None:
        """Re-reads the file if it changed since the last read."""
        try:
            st = os.stat(self.path)
            stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        except OSError:
            stamp = None
        if stamp != self._stamp:
            self._stamp = stamp
            self.doc = self._read()[0]

    def entry(self, eid: str) -> Optional[Dict[str, Any]]:
        with self.lock:
            self.refresh()
            return self.doc["entries"].get(eid)

    def update(self, fn: Callable[[Dict[str, Any]], Any]) -> Any:
        """Under the file lock: re-read, ``fn(doc)``, write atomically.
        Returns fn's result; never raises for I/O (one warning instead). A
        file that must not be overwritten is not: ``fn`` then updates this
        process's copy only."""
        with self.lock:
            lock_fd = None
            try:
                target = os.path.realpath(self.path)  # through links, as the C++ cache
                d = os.path.dirname(target) or "."
                os.makedirs(d, exist_ok=True)
                try:
                    import fcntl
                    lock_fd = os.open(target + ".lock", os.O_RDWR | os.O_CREAT, 0o644)
                    fcntl.flock(lock_fd, fcntl.LOCK_EX)
                except ImportError:  # no fcntl (Windows): the atomic replace alone
                    pass
                doc, kept, refuse = self._read(target)
                if refuse is not None:
                    doc = self.doc  # this process's own decisions, in memory only
                    return fn(doc)
                result = fn(doc)
                on_disk = dict(doc)
                on_disk["entries"] = {**{k: v for k, v in kept.items()
                                         if k not in doc["entries"]}, **doc["entries"]}
                # No fsync: readers never see a torn file (the rename is atomic),
                # and timings a crash loses are measured again.
                write_json_atomic(target, on_disk, indent=None, sort_keys=True, fsync=False)
                self.doc = doc
                try:
                    st = os.stat(self.path)
                    self._stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
                except OSError:
                    self._stamp = None
                return result
            except OSError as e:
                _warn_once(self.path + "#write",
                           f"cannot write the tuning cache {self.path}: {e}")
                return None
            finally:
                if lock_fd is not None:
                    os.close(lock_fd)  # releases the flock


# ---------------------------------------------------------------------------
# CUDA events (torch), imported at the first undecided call


class _Timer:
    """Timed launches with torch.cuda.Event pairs, a pool of them, and Triton's
    launch hooks where present."""

    def __init__(self) -> None:
        import torch

        self.torch = torch
        self.pool: List[Tuple[Any, Any]] = []
        self.hooks: Optional[Tuple[Any, Any]] = None
        try:
            from triton import knobs  # Triton >= 3.4

            enter = getattr(knobs.runtime, "launch_enter_hook", None)
            leave = getattr(knobs.runtime, "launch_exit_hook", None)
            if all(hasattr(h, "add") and hasattr(h, "remove") for h in (enter, leave)):
                self.hooks = (enter, leave)
        except Exception:  # noqa: BLE001 - older Triton, or none: bracket fn.run
            self.hooks = None

    def take(self) -> Tuple[Any, Any]:
        if self.pool:
            return self.pool.pop()
        ev = self.torch.cuda.Event
        return ev(enable_timing=True), ev(enable_timing=True)

    def give(self, pair: Tuple[Any, Any]) -> None:
        if len(self.pool) < 64:
            self.pool.append(pair)

    def capturing(self) -> bool:
        try:
            return bool(self.torch.cuda.is_current_stream_capturing())
        except Exception:  # noqa: BLE001
            return False

    def device(self) -> str:
        try:
            cuda = self.torch.cuda
            i = cuda.current_device()
            major, minor = cuda.get_device_capability(i)
            return f"{cuda.get_device_name(i)} sm_{major}{minor}"
        except Exception:  # noqa: BLE001
            return "unknown"


def _triton_version() -> str:
    mod = sys.modules.get("triton")
    if mod is None:
        try:
            import triton as mod  # noqa: F811
        except Exception:  # noqa: BLE001
            return "none"
    return str(getattr(mod, "__version__", "unknown"))


def _kernel_identity(fn: Any) -> Tuple[str, str, str]:
    """(module.qualname, short name, sha256 of the source) of the kernel."""
    chain, obj = [], fn
    for _ in range(16):
        chain.append(obj)
        if inspect.isfunction(obj) or not hasattr(obj, "fn"):
            break
        obj = obj.fn
    base = chain[-1]
    module = getattr(base, "__module__", None) or "?"
    qual = getattr(base, "__qualname__", None) or getattr(base, "__name__", None) or repr(base)
    src = None
    for o in chain:
        s = getattr(o, "src", None)
        if isinstance(s, str):
            src = s
            break
    if src is None:
        try:
            src = inspect.getsource(base)
        except (OSError, TypeError):
            code = getattr(base, "__code__", None)
            src = repr(code.co_code) if code is not None else qual
    digest = hashlib.sha256(src.encode("utf-8", "replace")).hexdigest()[:16]
    return f"{module}.{qual}", getattr(base, "__name__", qual), digest


# ---------------------------------------------------------------------------
# The autotuner


class _KeyState:
    __slots__ = ("key", "label", "configs", "texts", "launch", "race", "pending", "unsaved",
                 "first", "eid", "meta", "choice", "decision", "reason", "excluded",
                 "started", "calls", "decided_at")

    def __init__(self) -> None:
        self.pending: collections.deque = collections.deque()
        self.unsaved: Dict[str, List[float]] = {}
        self.first: Optional[int] = 0
        self.choice: Optional[int] = None
        self.decision = "exploring"
        self.reason = ""
        self.excluded: List[str] = []
        self.eid: Optional[str] = None
        self.meta: Dict[str, str] = {}
        self.race: Optional[Race] = None
        self.started = time.monotonic()
        self.calls = 0
        self.decided_at: Optional[int] = None


_live: "weakref.WeakSet[Autotuner]" = weakref.WeakSet()


def _flush_all() -> None:
    for tuner in list(_live):
        try:
            tuner.flush()
        except Exception:  # noqa: BLE001 - never fail at exit
            pass


atexit.register(_flush_all)


class Autotuner:
    """The object ``autotune(...)(fn)`` returns: ``kernel[grid](*args)``
    as with Triton's ``Autotuner``; ``report()`` says what was decided."""

    def __init__(self, fn: Any, arg_names: Sequence[str], configs: Optional[Sequence[Any]],
                 key: Sequence[str], reset_to_zero: Optional[Sequence[str]] = None,
                 restore_value: Optional[Sequence[str]] = None, pre_hook: Any = None,
                 post_hook: Any = None, prune_configs_by: Optional[Dict[str, Any]] = None,
                 warmup: Any = None, rep: Any = None, use_cuda_graph: bool = False,
                 do_bench: Any = None, cache_results: bool = False,
                 cache_path: Optional[str] = None, on_commit: Optional[Callable] = None,
                 name: Optional[str] = None, tie_tolerance: float = 0.01,
                 budget: int = 32, max_in_flight: int = 32,
                 adopt_shared_decisions: bool = True) -> None:
        self.fn = fn
        self.base_fn = fn
        for _ in range(16):
            if inspect.isfunction(self.base_fn) or not hasattr(self.base_fn, "fn"):
                break
            self.base_fn = self.base_fn.fn
        self.arg_names = list(arg_names)
        self.configs = list(configs) if configs else [_DefaultConfig()]
        self.keys = list(key)
        # Accepted for triton.autotune compatibility; see the module docstring.
        self.reset_to_zero = list(reset_to_zero or [])
        self.restore_value = list(restore_value or [])
        self.user_pre_hook, self.user_post_hook = pre_hook, post_hook
        self.num_warmups, self.num_reps, self.use_cuda_graph = warmup, rep, use_cuda_graph
        self.do_bench, self.cache_results = do_bench, cache_results
        p = prune_configs_by or {}
        self.perf_model = p.get("perf_model")
        self.configs_top_k = p.get("top_k", 1.0)
        self.early_config_prune = p.get("early_config_prune")
        self.on_commit = on_commit
        self.tie_tolerance = float(tie_tolerance)
        self.budget = int(budget)
        self.max_in_flight = max(1, int(max_in_flight))
        self.adopt_shared_decisions = adopt_shared_decisions
        if cache_path is None:
            cache_path = default_cache_path()
        self.cache_path: Optional[str] = None if cache_path in ("", "off") else cache_path
        self.kernel, short, self.source_hash = _kernel_identity(fn)
        self.name = name or short
        self._argpos = {n: i for i, n in enumerate(self.arg_names)}
        self._keypos = [(k, self._argpos.get(k, -1)) for k in self.keys]
        self._lock = threading.RLock()
        self._states: Dict[Tuple, _KeyState] = {}
        # key -> (config, launch kwargs): the dispatch table after commit
        self._decided: Dict[Tuple, Tuple[Any, Dict[str, Any]]] = {}
        #: key -> committed config (as Triton's Autotuner.cache)
        self.cache: Dict[Tuple, Any] = {}
        self.best_config: Any = None
        self._timer: Optional[_Timer] = None
        self._timer_error = False
        self._triton_version: Optional[str] = None
        _live.add(self)

    # -- Triton's call syntax
    def __getitem__(self, grid: Any) -> Callable[..., Any]:
        return lambda *args, **kwargs: self.run(*args, grid=grid, warmup=False, **kwargs)

    def _make_key(self, args: Tuple, kwargs: Dict[str, Any]) -> Tuple:
        """triton.autotune's key: the key arguments' values, then the dtype of
        every argument that has one (positional, then keyword)."""
        n = len(args)
        key: List[Any] = []
        for k, i in self._keypos:
            if 0 <= i < n:
                key.append(args[i])
            elif k in kwargs:
                key.append(kwargs[k])
        for a in args:
            dt = getattr(a, "dtype", None)
            if dt is not None:
                key.append(str(dt))
        if kwargs:
            for k, v in kwargs.items():
                i = self._argpos.get(k, -1)
                if i >= n:
                    dt = getattr(v, "dtype", None)
                    if dt is not None:
                        key.append(str(dt))
        return tuple(key)

    def run(self, *args: Any, **kwargs: Any) -> Any:
        if len(self.configs) == 1:
            return self._launch(self.configs[0], None, args, kwargs)
        key = self._make_key(args, kwargs)
        hit = self._decided.get(key)
        if hit is not None:  # committed: a lookup plus the launch
            cfg, ck = hit
            self.best_config = cfg
            if getattr(cfg, "pre_hook", None) is not None:
                cfg.pre_hook({**dict(zip(self.arg_names, args)), **kwargs, **ck})
            return self.fn.run(*args, **kwargs, **ck)
        return self._run_undecided(key, args, kwargs)

    def warmup(self, *args: Any, **kwargs: Any) -> List[Any]:
        """Compiles every candidate config (as Triton's Autotuner.warmup)."""
        nargs = dict(zip(self.arg_names, args))
        return [self.fn.warmup(*args, **kwargs, **_launch_kwargs(c))
                for c in self.prune_configs(kwargs, nargs)]

    def prune_configs(self, kwargs: Dict[str, Any], nargs: Optional[Dict[str, Any]] = None
                      ) -> List[Any]:
        """``prune_configs_by`` as triton.autotune applies it: early_config_prune
        (configs, named args, **kwargs), then the perf_model's top_k."""
        nargs = nargs or {}
        pruned = list(self.configs)
        if self.early_config_prune:
            pruned = list(self.early_config_prune(self.configs, nargs, **kwargs))
            if not pruned:
                raise RuntimeError("No valid autotuner configs after pruning. "
                                   "`early_config_prune` should return at least one config.")
        if self.perf_model:
            top_k = self.configs_top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = max(1, int(len(pruned) * top_k))
            elif not isinstance(top_k, int):
                raise TypeError("Error while pruning configs, top_k must be either "
                                "1) a float <= 1.0 or 2) an int")
            if len(pruned) > top_k:
                est = [(self.perf_model(**nargs, **kwargs, **_launch_kwargs(c)), i, c)
                       for i, c in enumerate(pruned)]
                est.sort(key=lambda t: (t[0], t[1]))
                pruned = [c for _, _, c in est[:top_k]]
        return pruned

    # -- launching
    def _launch(self, cfg: Any, ck: Optional[Dict[str, Any]], args: Tuple,
                kwargs: Dict[str, Any]) -> Any:
        ck = _launch_kwargs(cfg) if ck is None else ck
        self.best_config = cfg
        if getattr(cfg, "pre_hook", None) is not None:
            cfg.pre_hook({**dict(zip(self.arg_names, args)), **kwargs, **ck})
        return self.fn.run(*args, **kwargs, **ck)

    def _launch_timed(self, cfg: Any, ck: Dict[str, Any], args: Tuple,
                      kwargs: Dict[str, Any], pair: Tuple[Any, Any]) -> Tuple[Any, bool]:
        """Launches between the events of ``pair``; returns (fn.run's result,
        whether both events bracket the launch)."""
        timer = self._timer
        start, end = pair
        self.best_config = cfg
        if getattr(cfg, "pre_hook", None) is not None:
            cfg.pre_hook({**dict(zip(self.arg_names, args)), **kwargs, **ck})
        hooks = timer.hooks if timer is not None else None
        if hooks is None:
            start.record()
            ret = self.fn.run(*args, **kwargs, **ck)
            end.record()
            return ret, True
        fired: List[int] = []

        def enter(*_a: Any, **_k: Any) -> None:
            if not fired:
                start.record()
                fired.append(1)

        def leave(*_a: Any, **_k: Any) -> None:
            if len(fired) == 1:
                end.record()
                fired.append(2)

        enter_chain, exit_chain = hooks
        enter_chain.add(enter)
        exit_chain.add(leave)
        try:
            ret = self.fn.run(*args, **kwargs, **ck)
        finally:
            enter_chain.remove(enter)
            exit_chain.remove(leave)
        if len(fired) == 1:  # no exit hook call: end after the launch
            end.record()
            fired.append(2)
        if not fired:  # the hooks are not called here: bracket fn.run from now on
            timer.hooks = None
            return ret, False
        return ret, True

    # -- the undecided path
    def _run_undecided(self, key: Tuple, args: Tuple, kwargs: Dict[str, Any]) -> Any:
        with self._lock:
            st = self._states.get(key)
            if st is None:
                st = self._new_state(key, args, kwargs)
            st.calls += 1
            while True:
                if st.choice is not None:
                    cfg, ck = st.configs[st.choice], st.launch[st.choice]
                    return self._launch(cfg, ck, args, kwargs)
                try:
                    return self._explore(st, args, kwargs)
                except Exception as e:  # noqa: BLE001 - a config that cannot run
                    v = getattr(e, "_ksnap_config", None)
                    if v is None:
                        raise
                    del e._ksnap_config
                    if not self._exclude(st, v):
                        raise

    def _exclude(self, st: _KeyState, v: int) -> bool:
        """Config ``v`` cannot run for this key: out of the race. False when
        it was the last candidate."""
        race = st.race
        if race is None or not race.exclude(v):
            return False
        st.excluded.append(st.texts[v])
        if st.first == v:
            st.first = None
        if race.committed:
            self._commit(st, race.choice(), race.decision, self._race_reason(st))
        return True

    def _explore(self, st: _KeyState, args: Tuple, kwargs: Dict[str, Any]) -> Any:
        race = st.race
        assert race is not None
        timer = self._timer
        if kwargs.get("warmup") or timer is None or timer.capturing():
            # Compile only, no timer, or inside CUDA graph capture: the
            # current leader, untimed.
            v = st.first if st.first is not None else race.leader()
            return self._launch_guarded(st, v, args, kwargs)
        self._drain(st)
        if st.choice is not None:
            return self._launch(st.configs[st.choice], st.launch[st.choice], args, kwargs)
        if len(st.pending) >= self.max_in_flight:
            return self._launch_guarded(st, race.leader(), args, kwargs)
        if st.first is not None:
            v = st.first
            st.first = None
            race.note_launch(v)
        else:
            v = race.next()
        pair = timer.take()
        try:
            ret, timed = self._launch_timed(st.configs[v], st.launch[v], args, kwargs, pair)
        except Exception as e:
            timer.give(pair)
            if type(e).__name__ in _LAUNCH_ERRORS or any(
                    c.__name__ in _LAUNCH_ERRORS for c in type(e).__mro__):
                e._ksnap_config = v  # type: ignore[attr-defined]
            raise
        if timed:
            st.pending.append((v, pair))
        return ret

    def _launch_guarded(self, st: _KeyState, v: int, args: Tuple, kwargs: Dict[str, Any]) -> Any:
        try:
            return self._launch(st.configs[v], st.launch[v], args, kwargs)
        except Exception as e:
            if any(c.__name__ in _LAUNCH_ERRORS for c in type(e).__mro__):
                e._ksnap_config = v  # type: ignore[attr-defined]
            raise

    def _drain(self, st: _KeyState) -> None:
        """Reads the finished timings (event.query(), never a synchronize)."""
        race = st.race
        assert race is not None and self._timer is not None
        while st.pending and not race.committed:
            v, pair = st.pending[0]
            start, end = pair
            if not end.query():
                break  # one stream: later ones finish later
            st.pending.popleft()
            us = float(start.elapsed_time(end)) * 1000.0
            self._timer.give(pair)
            if _finite_time(us) and race.record(v, us):
                st.unsaved.setdefault(st.texts[v], []).append(round(us, 4))
        if race.committed and st.choice is None:
            self._commit(st, race.choice(), race.decision, self._race_reason(st))

    def _race_reason(self, st: _KeyState) -> str:
        race = st.race
        assert race is not None
        tol = f"{100 * race.tie_tolerance:g}%"
        alive = ", ".join(st.texts[i] for i, s in enumerate(race.v) if s.alive)
        c = st.texts[race.choice()]
        why = race.decision
        if why == "tied":
            text = f"tied: survivors {{{alive}}} within {tol} of the leader; first declared wins"
        elif why == "leader":
            text = f"leader: {c} within {tol} of every survivor {{{alive}}}"
        elif why == "separated":
            text = f"separated: {c} confidently faster than every other config"
        elif why == "budget":
            text = (f"budget: exploration budget spent after {race.launches} launches; "
                    f"lowest median among {{{alive}}}")
        else:
            text = why
        if st.excluded:
            text += "; excluded, cannot run: {" + ", ".join(st.excluded) + "}"
        return text

    # -- state creation
    def _device(self) -> str:
        timer = self._timer
        return timer.device() if timer is not None else "unknown"

    def _new_state(self, key: Tuple, args: Tuple, kwargs: Dict[str, Any]) -> _KeyState:
        nargs = dict(zip(self.arg_names, args))
        for c in self.configs:
            clash = set(kwargs) & set(getattr(c, "kwargs", None) or {})
            if clash:
                raise ValueError(f"Conflicting meta-parameters: {', '.join(sorted(clash))}. "
                                 "Make sure that you don't re-define auto-tuned symbols.")
        st = _KeyState()
        st.key = key
        st.label = self._key_label(key, args, kwargs)
        configs, texts = [], []
        for c in self.prune_configs(kwargs, nargs):
            t = config_text(c)
            if t not in texts:  # one identity, one candidate
                configs.append(c)
                texts.append(t)
        st.configs, st.texts = configs, texts
        st.launch = [_launch_kwargs(c) for c in configs]
        self._states[key] = st
        if len(configs) == 1:
            st.race = Race(1)
            self._settle(st, 0, "single", "single: one config after pruning", announce=False)
            return st
        if self._timer is None and not self._timer_error:
            try:
                self._timer = _Timer()
            except Exception as e:  # noqa: BLE001 - no torch: nothing can be timed
                self._timer_error = True
                _warn_once("timer", f"cannot time launches ({type(e).__name__}: {e}); "
                                    "the best persisted or the first config runs")
        if self._triton_version is None:
            self._triton_version = _triton_version()
        device = self._device()
        st.meta = {"kernel": self.kernel, "source": self.source_hash, "device": device,
                   "triton": self._triton_version, "key": st.label}
        st.eid = hashlib.sha256(json.dumps(
            [st.meta[k] for k in ("kernel", "source", "device", "triton", "key")]
        ).encode("utf-8")).hexdigest()[:32]
        hooks = self._timer.hooks if self._timer is not None else None
        st.race = Race(len(configs), tie_tolerance=self.tie_tolerance,
                       warmup=0 if hooks is not None else 1,
                       max_launches=self.budget * len(configs))
        entry = _Store.of(self.cache_path).entry(st.eid) if self.cache_path else None
        if entry is not None:
            d = entry.get("decision")
            if d and sorted(d["configs"]) == sorted(texts) and d["choice"] in texts:
                i = texts.index(d["choice"])
                self._seed(st, entry)
                self._settle(st, i, "cached",
                             f"cached: {self.cache_path} (decided '{d['decision']}')",
                             announce=False)
                return st
            if d:
                new = len(set(texts) - set(d["configs"]))
                gone = len(set(d["configs"]) - set(texts))
                st.reason = (f"the decision in {self.cache_path} is re-opened: the config set "
                             f"changed (+{new} new, -{gone} gone)")
            self._seed(st, entry)
        best, best_m = None, 0.0
        for i in range(len(configs)):
            s = st.race.v[i].samples
            if s:
                m = _median_sorted(s)
                if best is None or m < best_m:
                    best, best_m = i, m
        st.first = 0 if best is None else best
        if os.environ.get("KSNAP_TUNE_DISABLE", "") not in ("", "0") or self._timer is None:
            self._settle(st, st.first, "disabled",
                         "disabled: KSNAP_TUNE_DISABLE or no timer; best persisted or first config",
                         announce=False)
            return st
        st.race.evaluate_now()
        if st.race.committed:  # the persisted timings decide
            self._commit(st, st.race.choice(), st.race.decision, self._race_reason(st))
        return st

    def _seed(self, st: _KeyState, entry: Dict[str, Any]) -> None:
        timings = entry.get("timings") or {}
        for i, t in enumerate(st.texts):
            samples = timings.get(t)
            if samples:
                st.race.seed(i, [float(x) for x in samples[-MAX_SAMPLES:]])

    def _key_label(self, key: Tuple, args: Tuple, kwargs: Dict[str, Any]) -> str:
        n = len(args)
        parts = []
        for k, i in self._keypos:
            if 0 <= i < n:
                parts.append(f"{k}={_key_value_text(args[i])}")
            elif k in kwargs:
                parts.append(f"{k}={_key_value_text(kwargs[k])}")
        dtypes = [str(x) for x in key[len(parts):]]
        return ",".join(parts) + (";" + ",".join(dtypes) if dtypes else "")

    # -- commit
    def _settle(self, st: _KeyState, choice: int, decision: str, reason: str,
                announce: bool) -> None:
        st.choice, st.decision, st.reason = choice, decision, reason
        st.decided_at = st.calls
        st.first = None
        st.pending.clear()  # events still in flight are dropped, not reused
        cfg = st.configs[choice]
        self._decided[st.key] = (cfg, st.launch[choice])
        self.cache[st.key] = cfg
        if announce:
            self._announce(self._event(st, choice, decision, reason))

    def _event(self, st: _KeyState, choice: int, decision: str, reason: str) -> Dict[str, Any]:
        race = st.race
        runner, runner_m = None, 0.0
        chosen_m = _median_sorted(race.v[choice].samples) if race else 0.0
        if race is not None:
            for i, s in enumerate(race.v):
                if i == choice or not s.samples:
                    continue
                m = _median_sorted(s.samples)
                if runner is None or m < runner_m:
                    runner, runner_m = i, m
        return {"group": self.name, "workload": st.label, "choice": st.texts[choice],
                "choice_index": choice, "decision": decision,
                "runner_up": st.texts[runner] if runner is not None else None,
                "margin": (runner_m / chosen_m - 1) if runner is not None and chosen_m > 0 else 0.0,
                "launches": race.launches if race else 0, "excluded": list(st.excluded),
                "reason": reason, "kernel": self.kernel, "calls": st.calls,
                "seconds": round(time.monotonic() - st.started, 6)}

    def _announce(self, event: Dict[str, Any]) -> None:
        if self.on_commit is not None:
            self.on_commit(dict(event))
        path = os.environ.get("KSNAP_TUNE_LOG")
        if not path:
            return
        line = (json.dumps(event, sort_keys=False) + "\n").encode("utf-8")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line)  # one write: processes may share the log
            finally:
                os.close(fd)
        except OSError as e:
            _warn_once("log:" + path, f"cannot append to the commit log {path}: {e}")

    def _commit(self, st: _KeyState, choice: int, decision: str, reason: str) -> None:
        if self.cache_path and st.eid:
            ours = st.texts[choice]
            record = {"configs": list(st.texts), "choice": ours, "decision": decision,
                      "reason": reason, "launches": st.race.launches if st.race else 0}
            unsaved = st.unsaved
            adopt = self.adopt_shared_decisions
            excluded = set(st.excluded)

            def merge(doc: Dict[str, Any]) -> Optional[Dict[str, Any]]:
                e = self._merge_entry(doc, st, unsaved)
                held = e.get("decision")
                if (adopt and held and sorted(held["configs"]) == sorted(st.texts)
                        and held["choice"] != ours and held["choice"] not in excluded):
                    return held
                e["decision"] = record
                return None

            held = _Store.of(self.cache_path).update(merge)
            st.unsaved = {}
            if held is not None:
                choice = st.texts.index(held["choice"])
                reason = (f"adopted: {self.cache_path} already held {held['choice']} for this "
                          f"key (decided '{held['decision']}' elsewhere; this race chose {ours})")
                decision = "adopted"
        self._settle(st, choice, decision, reason, announce=True)

    def _merge_entry(self, doc: Dict[str, Any], st: _KeyState,
                     unsaved: Dict[str, List[float]]) -> Dict[str, Any]:
        e = doc["entries"].get(st.eid)
        if e is None:
            e = doc["entries"][st.eid] = dict(st.meta, timings={}, decision=None)
        for text, samples in unsaved.items():
            have = e["timings"].get(text, [])
            e["timings"][text] = (have + samples)[-MAX_SAMPLES:]
        return e

    def flush(self) -> None:
        """Writes the timings not yet in the cache file (undecided keys; a
        commit writes its own). Called at exit."""
        if not self.cache_path:
            return
        with self._lock:
            todo = [st for st in self._states.values() if st.eid and st.unsaved]
            if not todo:
                return

            def merge(doc: Dict[str, Any]) -> None:
                for st in todo:
                    self._merge_entry(doc, st, st.unsaved)

            _Store.of(self.cache_path).update(merge)
            for st in todo:
                st.unsaved = {}

    # -- what happened
    def report(self) -> List[Dict[str, Any]]:
        """Per key met: decision, choice, reason, calls and launches, and per
        config its sample count and median (µs)."""
        out = []
        with self._lock:
            for st in self._states.values():
                race = st.race
                rows = []
                for i, t in enumerate(st.texts):
                    v = race.v[i] if race is not None and i < len(race.v) else None
                    rows.append({"config": t,
                                 "n": len(v.samples) if v else 0,
                                 "seeded": v.seeded if v else 0,
                                 "median_us": _median_sorted(v.samples) if v else 0.0,
                                 "alive": bool(v.alive) if v else True,
                                 "excluded": t in st.excluded})
                choice = st.choice if st.choice is not None else (race.leader() if race else 0)
                out.append({"workload": st.label, "decision": st.decision,
                            "choice": st.texts[choice], "choice_index": choice,
                            "committed": st.choice is not None, "reason": st.reason,
                            "calls": st.calls, "decided_at_call": st.decided_at,
                            "launches": race.launches if race else 0, "configs": rows})
        return out


def autotune(configs: Optional[Sequence[Any]], key: Sequence[str], prune_configs_by: Any = None,
             reset_to_zero: Any = None, restore_value: Any = None, pre_hook: Any = None,
             post_hook: Any = None, warmup: Any = None, rep: Any = None,
             use_cuda_graph: bool = False, do_bench: Any = None, cache_results: bool = False,
             *, cache_path: Optional[str] = None, on_commit: Optional[Callable] = None,
             name: Optional[str] = None, tie_tolerance: float = 0.01, budget: int = 32,
             max_in_flight: int = 32, adopt_shared_decisions: bool = True
             ) -> Callable[[Any], Autotuner]:
    """``triton.autotune``'s signature (see the module docstring), plus:

    cache_path   the timing file (default ``KSNAP_TRITON_TUNE_CACHE`` or
                 ``~/.cache/ksnap/triton_tune.json``; ``"off"``: none);
    on_commit    called with each commit event (a dict: group, workload,
                 choice, choice_index, decision, runner_up, margin, launches,
                 excluded, reason, kernel, calls, seconds);
    name         the group name in events (default: the kernel's name);
    tie_tolerance, budget (launches per config), max_in_flight (timed
                 launches whose events are not read yet; beyond, the leader
                 runs untimed), adopt_shared_decisions (a decision another
                 process stored first for the same key and config set wins).
    """

    def decorator(fn: Any) -> Autotuner:
        return Autotuner(fn, fn.arg_names, configs, key, reset_to_zero, restore_value,
                         pre_hook=pre_hook, post_hook=post_hook,
                         prune_configs_by=prune_configs_by, warmup=warmup, rep=rep,
                         use_cuda_graph=use_cuda_graph, do_bench=do_bench,
                         cache_results=cache_results, cache_path=cache_path,
                         on_commit=on_commit, name=name, tie_tolerance=tie_tolerance,
                         budget=budget, max_in_flight=max_in_flight,
                         adopt_shared_decisions=adopt_shared_decisions)

    return decorator


class _CallableModule(types.ModuleType):
    """``ksnap_triton.autotune`` is this module (a package attribute cannot be
    both the submodule and a function of the same name), and calling it calls
    the decorator: ``@ksnap_triton.autotune(configs=..., key=...)``."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return autotune(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule

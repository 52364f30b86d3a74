"""A stand-in for the parts of Triton and PyTorch that ksnap_triton.autotune
touches, for tests without a GPU (python/tests/test_autotune.py).

* ``triton``: ``__version__``, ``Config`` (Triton 3.6's fields and
  ``all_kwargs``), ``jit`` → ``FakeJIT``, ``knobs.runtime.launch_enter_hook``
  / ``launch_exit_hook`` (hook chains, as in Triton 3.6; absent with
  ``hooks=False``), ``OutOfResources``.
* ``torch``: ``cuda.Event`` (timed on a fake GPU clock),
  ``cuda.is_current_stream_capturing``, ``cuda.current_device``,
  ``get_device_name``, ``get_device_capability``.

The fake GPU runs one stream: a launch advances its clock by the duration the
test gives for the launch's config (times a deterministic noise factor); an
event records the clock, and is complete ``lag`` launches after it was
recorded. ``host_gap_us`` of idle GPU time precede each launch (the host's
launch latency) and ``compile_us`` a config's first launch, before the enter
hook is called.

It installs itself into ``sys.modules`` for the duration of a ``with`` block
and restores what was there (the shared ``fake_triton`` of other tests is not
touched).
"""

from __future__ import annotations

import inspect
import os
import random
import sys
import types
from typing import Any, Callable, Dict, List, Optional

_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg", "ir_override")


class OutOfResources(Exception):
    def __init__(self, required: int = 0, limit: int = 0, name: str = "shared memory"):
        super().__init__(f"out of resource: {name}, Required: {required}, Hardware limit: {limit}")


class Config:
    """triton.Config of Triton 3.6 (fields and all_kwargs)."""

    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None, pre_hook=None,
                 ir_override=None):
        self.kwargs = kwargs
        self.num_warps, self.num_stages, self.num_ctas = num_warps, num_stages, num_ctas
        self.maxnreg, self.pre_hook, self.ir_override = maxnreg, pre_hook, ir_override

    def all_kwargs(self):
        return {**self.kwargs, **{k: v for k, v in (
            ("num_warps", self.num_warps), ("num_ctas", self.num_ctas),
            ("num_stages", self.num_stages), ("maxnreg", self.maxnreg),
            ("ir_override", self.ir_override)) if v is not None}}

    def __repr__(self):
        return f"Config({self.kwargs}, num_warps={self.num_warps}, num_stages={self.num_stages})"


def _load_hook_chain():
    """The shared fake Triton's HookChain (fake_triton/triton/knobs.py), loaded
    by path so that the shared ``triton`` fake is not put into sys.modules."""
    import importlib.util

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_triton", "triton",
                        "knobs.py")
    spec = importlib.util.spec_from_file_location("_ksnap_fake_knobs", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.HookChain


HookChain = _load_hook_chain()


class Dtype:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return f"torch.{self.name}"

    __repr__ = __str__


float16 = Dtype("float16")
float32 = Dtype("float32")


class Tensor:
    """Enough of a tensor for keys and hooks: dtype, shape, zero_/clone/copy_."""

    def __init__(self, shape=(4,), dtype=float16, value=1.0):
        self.shape, self.dtype = tuple(shape), dtype
        self.value = value
        self.zeroed = 0
        self.writes = 0

    def zero_(self):
        self.zeroed += 1
        self.value = 0.0
        return self

    def clone(self):
        return Tensor(self.shape, self.dtype, self.value)

    def copy_(self, other):
        self.value = other.value
        return self


class FakeGPU:
    def __init__(self, lag=0, host_gap_us=0.0, compile_us=0.0):
        self.now = 0.0              # µs
        self.launch_count = 0
        self.lag = lag
        self.host_gap_us = host_gap_us
        self.compile_us = compile_us
        self.capturing = False
        self.records = 0
        self.queries = 0
        self.events_made = 0
        self.capture_checks = 0


class Event:
    gpu: FakeGPU = None  # set by FakeEnv

    def __init__(self, enable_timing=False):
        self.enable_timing = enable_timing
        self.stamp: Optional[float] = None
        self.seq = 0
        Event.gpu.events_made += 1

    def record(self, stream=None):
        g = Event.gpu
        if g.capturing:
            raise RuntimeError("fake: an event recorded during graph capture")
        g.records += 1
        self.stamp, self.seq = g.now, g.launch_count

    def query(self):
        g = Event.gpu
        if g.capturing:
            raise RuntimeError("fake: an event queried during graph capture")
        g.queries += 1
        return self.stamp is not None and g.launch_count - self.seq >= g.lag

    def elapsed_time(self, end):
        assert self.stamp is not None and end.stamp is not None, "event not recorded"
        assert self.query() and end.query(), "event not complete"
        return (end.stamp - self.stamp) / 1000.0


class Launch:
    def __init__(self, constexprs, options, grid, args):
        self.constexprs, self.options, self.grid, self.args = constexprs, options, grid, args

    @property
    def config(self):
        return tuple(sorted(self.constexprs.items())) + tuple(sorted(self.options.items()))


class FakeJIT:
    """A @triton.jit function: ``run(*args, grid, warmup, **kwargs)`` binds
    the arguments, evaluates a callable grid on META (arguments + constexprs),
    calls the launch hooks around the launch and advances the fake GPU."""

    def __init__(self, fn, env: "FakeEnv"):
        self.fn = fn
        self.env = env
        params = inspect.signature(fn).parameters
        self.arg_names = list(params)
        self.defaults = {n: p.default for n, p in params.items()
                         if p.default is not inspect.Parameter.empty}
        try:
            self.src = inspect.getsource(fn)
        except OSError:  # defined in `python -c` code
            self.src = fn.__name__ + repr(fn.__code__.co_code)
        self.__name__ = fn.__name__
        self.launches: List[Launch] = []
        self.compiled: set = set()
        self.warmups = 0

    def __getitem__(self, grid):
        return lambda *a, **k: self.run(*a, grid=grid, warmup=False, **k)

    def warmup(self, *args, grid=None, **kwargs):
        return self.run(*args, grid=grid or (1,), warmup=True, **kwargs)

    def run(self, *args, grid, warmup, **kwargs):
        env = self.env
        options = {k: kwargs.pop(k) for k in list(kwargs) if k in _OPTIONS}
        bound = dict(zip(self.arg_names, args))
        for k, v in kwargs.items():
            if k not in self.arg_names:
                raise TypeError(f"{self.__name__}: unexpected keyword argument {k!r}")
            if k in bound:
                raise TypeError(f"{self.__name__}: got multiple values for argument {k!r}")
            bound[k] = v
        for k, v in self.defaults.items():
            bound.setdefault(k, v)
        missing = [n for n in self.arg_names if n not in bound]
        if missing:
            raise TypeError(f"{self.__name__}: missing arguments {missing}")
        constexprs = {k: bound[k] for k in env.constexpr_names if k in bound}
        launch = Launch(constexprs, options, None, bound)
        if env.fails is not None and env.fails(constexprs, options):
            raise OutOfResources(300000, 232448)  # before anything runs, as Triton's compile
        key = launch.config
        first = key not in self.compiled
        self.compiled.add(key)
        if warmup:
            self.warmups += 1
            return ("compiled", key)
        launch.grid = grid(dict(bound)) if callable(grid) else grid
        g = env.gpu
        hooks = env.hooks
        # The host's work in fn.run (compiling, binding, the launcher) happens
        # with the GPU idle; the launch hooks are called after it.
        g.now += g.host_gap_us + (g.compile_us if first else 0.0)
        if hooks is not None:
            hooks[0]({"name": self.__name__})
        d = env.duration(constexprs, options)
        g.now += d * env.noise()
        g.launch_count += 1
        self.launches.append(launch)
        out = bound.get("out")
        if isinstance(out, Tensor):
            out.writes += 1
        if hooks is not None:
            hooks[1]({"name": self.__name__})
        return ("kernel", key)

    # test helpers
    def launched(self, name="BLOCK"):
        return [ln.constexprs.get(name) for ln in self.launches]


class FakeEnv:
    """``with FakeEnv(durations) as env:`` triton and torch are the stand-ins."""

    def __init__(self, duration: Callable[[Dict, Dict], float] = None, *, hooks=True, lag=0,
                 noise=0.0, seed=1, host_gap_us=0.0, compile_us=0.0,
                 device="Fake H200", capability=(9, 0), version="3.6.0-fake",
                 constexpr_names=("BLOCK", "WARP_HINT", "GROUP"), fails=None):
        self.duration = duration or (lambda c, o: 100.0)
        self.gpu = FakeGPU(lag=lag, host_gap_us=host_gap_us, compile_us=compile_us)
        self.rng = random.Random(seed)
        self.sigma = noise
        self.device, self.capability, self.version = device, capability, version
        self.constexpr_names = constexpr_names
        self.fails = fails
        self._hooks_wanted = hooks
        self.hooks = None
        self._saved: Dict[str, Any] = {}
        self._env_saved: Dict[str, Optional[str]] = {}

    def noise(self):
        if not self.sigma:
            return 1.0
        return 1.0 + abs(self.rng.gauss(0.0, self.sigma))  # right-skewed, as kernel times

    def jit(self, fn=None, **_kw):
        if fn is None:
            return lambda f: FakeJIT(f, self)
        return FakeJIT(fn, self)

    def _modules(self):
        triton = types.ModuleType("triton")
        triton.__version__ = self.version
        triton.Config = Config
        triton.jit = self.jit
        triton.OutOfResources = OutOfResources
        triton.cdiv = lambda a, b: -(-a // b)
        mods = {"triton": triton}
        if self._hooks_wanted:
            knobs = types.ModuleType("triton.knobs")
            knobs.runtime = types.SimpleNamespace(launch_enter_hook=HookChain(),
                                                  launch_exit_hook=HookChain())
            triton.knobs = knobs
            mods["triton.knobs"] = knobs
            self.hooks = (knobs.runtime.launch_enter_hook, knobs.runtime.launch_exit_hook)
        torch = types.ModuleType("torch")
        cuda = types.ModuleType("torch.cuda")
        gpu, env = self.gpu, self
        Event.gpu = gpu
        cuda.Event = Event

        def is_current_stream_capturing():
            gpu.capture_checks += 1
            return gpu.capturing

        cuda.is_current_stream_capturing = is_current_stream_capturing
        cuda.current_device = lambda: 0
        cuda.get_device_name = lambda i=0: env.device
        cuda.get_device_capability = lambda i=0: env.capability
        torch.cuda = cuda
        torch.float16, torch.float32 = float16, float32
        mods["torch"], mods["torch.cuda"] = torch, cuda
        return mods

    def __enter__(self):
        mods = self._modules()
        for name in [m for m in sys.modules if m in ("triton", "torch") or
                     m.startswith(("triton.", "torch."))]:
            self._saved[name] = sys.modules.pop(name)
        for name in mods:
            self._saved.setdefault(name, None)
        sys.modules.update(mods)
        self.triton, self.torch = mods["triton"], mods["torch"]
        for var in ("KSNAP_TUNE_LOG", "KSNAP_TRITON_TUNE_CACHE", "KSNAP_TUNE_DISABLE"):
            self._env_saved[var] = os.environ.pop(var, None)
        return self

    def __exit__(self, *exc):
        for name in [m for m in sys.modules if m in ("triton", "torch") or
                     m.startswith(("triton.", "torch."))]:
            del sys.modules[name]
        for name, mod in self._saved.items():
            if mod is not None:
                sys.modules[name] = mod
        for var, value in self._env_saved.items():
            if value is None:
                os.environ.pop(var, None)
            else:
                os.environ[var] = value
        return False

"""ksnap_triton.autotune, the drop-in for triton.autotune, on a fake GPU.

The stand-ins for Triton and PyTorch are in fake_autotune_env.py: a fake
JITFunction that records each launch's meta-parameters and options, and CUDA
events timed on a fake GPU clock whose kernel durations the tests choose.

Runs under pytest (``/usr/bin/python3 -m pytest python/tests/test_autotune.py``)
or alone, without pytest (``python3 python/tests/test_autotune.py``).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(HERE)
for p in (PYTHON_DIR, HERE):
    if p not in sys.path:
        sys.path.insert(0, p)

from fake_autotune_env import FakeEnv, Tensor, float16, float32  # noqa: E402
import ksnap_triton.autotune as at  # noqa: E402

try:
    import pytest
except ImportError:  # run alone: the runner at the bottom expands the rows
    pytest = None


def parametrize(names, rows, ids=None):
    """pytest.mark.parametrize when pytest runs the file; the rows are also
    kept for the runner at the bottom (python3 test_autotune.py)."""
    def deco(f):
        f._rows = ([n.strip() for n in names.split(",")], rows)
        return pytest.mark.parametrize(names, rows, ids=ids)(f) if pytest else f
    return deco


def kern(x, out, n, BLOCK, GROUP=1):
    """The fake kernel (its source is the kernel identity's hash)."""


def kern_edited(x, out, n, BLOCK, GROUP=1):
    """Another kernel: its source differs."""
    return 1


@contextlib.contextmanager
def tmpdir():
    with tempfile.TemporaryDirectory(prefix="ksnap-autotune-test-") as d:
        yield d


def by_block(times):
    """Duration (µs) of a launch from its BLOCK."""
    return lambda constexprs, options: times[constexprs["BLOCK"]]


def configs(env, blocks, **kw):
    return [env.triton.Config({"BLOCK": b}, **kw) for b in blocks]


def tuned(env, blocks, cache, fn=kern, **kw):
    jit = env.jit(fn)
    t = at.autotune(configs=configs(env, blocks), key=["n"], cache_path=cache, **kw)(jit)
    return jit, t


def call(t, n=1024, dtype=float16, out=None, **kw):
    x = Tensor((n,), dtype)
    out = out if out is not None else Tensor((n,), dtype)
    return t[lambda META: (-(-META["n"] // META["BLOCK"]),)](x, out, n, **kw)


def run_until_committed(t, limit=2000, **kw):
    for i in range(limit):
        call(t, **kw)
        if all(r["committed"] for r in t.report()):
            return i + 1
    return None


# ---------------------------------------------------------------------------
# estimators and the race


def test_median_and_its_standard_error_match_the_cpp_worked_example():
    s = sorted([30.1, 30.4, 29.8, 72.4, 30.2, 30.0, 30.3, 29.9, 30.6])
    m, se, n = at._estimate(s)
    assert (m, n) == (30.2, 9)
    assert abs(se - 0.7 / 3.919927969080108) < 1e-9  # (30.6 - 29.9) / (2*1.96)


@parametrize("times, want, decision", [
    ([120, 100, 90, 150], 2, "separated"),
    ([90, 100, 120, 150], 0, "separated"),
    ([150, 120, 100, 90], 3, "separated"),
    ([100, 100, 100, 200], 0, "tied"),          # exact tie: first declared
    ([200, 100, 100.1, 200], 1, "tied"),        # within 1%, with noise: first declared
    ([200, 100.1, 100, 200], 1, "tied"),        # ... even if it is the slower one
    ([100.1, 100], 1, "separated"),             # no noise: 0.1% is confidently slower
])
def test_race_decides_like_the_cpp_race(times, want, decision):
    import random

    rng = random.Random(7)
    noisy = len(set(times)) > 2
    r = at.Race(len(times))
    for _ in range(10000):
        if r.committed:
            break
        v = r.next()
        r.record(v, float(times[v]) * (1 + (rng.gauss(0, 0.004) if noisy else 0)))
    assert (r.choice(), r.decision) == (want, decision)


def test_race_budget_commits_the_lowest_median():
    import random

    rng = random.Random(3)
    r = at.Race(3, max_launches=60)
    while not r.committed:
        v = r.next()
        r.record(v, [100.0, 100.8, 101.6][v] * (1 + rng.gauss(0, 0.02)))
    assert r.decision in ("budget", "tied", "leader")
    assert r.launches <= 4 * 60


# ---------------------------------------------------------------------------
# the first call


@parametrize("stored, want_first, want_decision", [
    (None, 32, None),                                   # no file: the first config
    ({"timings": {64: [90.0] * 3, 16: [120.0] * 3}}, 64, None),   # best persisted timing
    ({"timings": {128: [50.0] * 3}}, 128, None),
    ({"decision": 16}, 16, "cached"),                   # a decision for this config set
])
def test_first_call_launches_the_first_or_the_persisted_best(stored, want_first, want_decision):
    blocks = [32, 16, 64, 128]
    with tmpdir() as d, FakeEnv(by_block({16: 120, 32: 100, 64: 90, 128: 150})) as env:
        cache = os.path.join(d, "tune.json")
        if stored is not None:
            _, t0 = tuned(env, blocks, cache)
            call(t0)  # creates the key state (and its entry id)
            st = next(iter(t0._states.values()))
            texts = {b: at.config_text(c) for b, c in zip(blocks, configs(env, blocks))}
            entry = dict(st.meta, timings={texts[b]: v for b, v in
                                           stored.get("timings", {}).items()}, decision=None)
            if "decision" in stored:
                entry["decision"] = {"configs": [texts[b] for b in blocks],
                                     "choice": texts[stored["decision"]], "decision": "separated"}
            with open(cache, "w") as f:
                json.dump({"format": at.FORMAT, "version": at.FORMAT_VERSION,
                           "entries": {st.eid: entry}}, f)
        jit, t = tuned(env, blocks, cache)
        records = env.gpu.records
        call(t)
        assert jit.launched() == [want_first]
        rep = t.report()[0]
        if want_decision:
            assert rep["decision"] == want_decision and rep["committed"]
            assert env.gpu.records == records  # nothing timed
        else:
            assert not rep["committed"]


# ---------------------------------------------------------------------------
# converging, ties, outputs


@parametrize("times, lag, hooks, want", [
    ({16: 120, 32: 100, 64: 90, 128: 150}, 0, True, 64),
    ({16: 120, 32: 100, 64: 90, 128: 150}, 3, True, 64),     # events read 3 calls later
    ({16: 80, 32: 100, 64: 90, 128: 150}, 0, False, 16),     # no launch hooks: bracket fn.run
    ({16: 200, 32: 210, 64: 220, 128: 190}, 5, True, 128),
])
def test_timed_calls_converge_on_the_fastest_config(times, lag, hooks, want):
    with tmpdir() as d, FakeEnv(by_block(times), lag=lag, hooks=hooks, noise=0.01,
                                compile_us=5e5, host_gap_us=0 if hooks else 30) as env:
        jit, t = tuned(env, [16, 32, 64, 128], os.path.join(d, "c.json"))
        outs = []
        for i in range(600):
            out = Tensor()
            call(t, out=out)
            outs.append(out)
        rep = t.report()[0]
        assert rep["committed"] and rep["choice"].startswith(f"BLOCK={want},"), rep
        assert rep["decision"] in ("separated", "leader"), rep
        # every call launched the kernel exactly once: outputs are written once
        assert len(jit.launches) == 600 and all(o.writes == 1 for o in outs)
        assert jit.launched()[-1] == want


@parametrize("hooks, want_medians", [
    (True, {16: 120.0, 32: 100.0}),          # events in the launch hooks: the kernel alone
    (False, {16: 150.0, 32: 130.0}),         # around fn.run: + the host's 30 µs
])
def test_with_launch_hooks_the_host_latency_is_not_timed(hooks, want_medians):
    with FakeEnv(by_block({16: 120, 32: 100}), hooks=hooks, host_gap_us=30.0,
                 compile_us=1e6) as env:
        _, t = tuned(env, [16, 32], "off")
        for _ in range(8):
            call(t)
        rows = {int(r["config"].split(",")[0][6:]): r for r in t.report()[0]["configs"]}
        for block, want in want_medians.items():
            assert rows[block]["n"] >= 2 and abs(rows[block]["median_us"] - want) < 1e-6, rows
        # without hooks the first timing of each config (its compile) is discarded
        assert rows[16]["n"] == (3 if hooks else 2)  # 3 of its launches were read back


@parametrize("blocks, times, want", [
    ([16, 32, 64], {16: 150, 32: 100, 64: 100}, 32),
    ([64, 32, 16], {16: 150, 32: 100, 64: 100}, 64),
    ([16, 64, 32, 128], {16: 100, 32: 100, 64: 100, 128: 100}, 16),
    ([128, 16, 64], {16: 100.1, 64: 100.0, 128: 130}, 16),   # within 1%: declared first
])
def test_ties_resolve_to_declaration_order(blocks, times, want):
    noise = 0.004 if len(set(times.values())) > 2 else 0.0
    with tmpdir() as d, FakeEnv(by_block(times), noise=noise) as env:
        _, t = tuned(env, blocks, os.path.join(d, "c.json"))
        assert run_until_committed(t)
        rep = t.report()[0]
        assert rep["decision"] == "tied" and rep["choice"].startswith(f"BLOCK={want},"), rep


def test_config_kwargs_are_constexprs_and_launch_options_as_in_triton():
    with tmpdir() as d, FakeEnv() as env:
        jit = env.jit(kern)
        cfgs = [env.triton.Config({"BLOCK": 64, "GROUP": 8}, num_warps=8, num_stages=4,
                                  num_ctas=2, maxnreg=128),
                env.triton.Config({"BLOCK": 32, "GROUP": 4}, num_warps=2, num_stages=5)]
        grids = []

        def grid(meta):
            grids.append(dict(meta))
            return (-(-meta["n"] // meta["BLOCK"]),)

        t = at.autotune(configs=cfgs, key=["n"], cache_path=os.path.join(d, "c.json"))(jit)
        x, out = Tensor(), Tensor()
        t[grid](x, out, 1000)
        t[grid](x, out, 1000)
        first, second = jit.launches
        assert first.constexprs == {"BLOCK": 64, "GROUP": 8}
        assert first.options == {"num_warps": 8, "num_stages": 4, "num_ctas": 2, "maxnreg": 128}
        assert second.constexprs == {"BLOCK": 32, "GROUP": 4}
        assert second.options == {"num_warps": 2, "num_stages": 5, "num_ctas": 1}
        assert first.grid == (16,) and second.grid == (32,)
        assert grids[0]["BLOCK"] == 64 and grids[0]["n"] == 1000 and grids[0]["x"] is x
        assert t.best_config is cfgs[1]
        # a meta-parameter the configs set may not be passed by the caller (Triton's error)
        t2 = at.autotune(configs=cfgs, key=["n"], cache_path="off")(env.jit(kern))
        try:
            t2[grid](x, out, 1000, BLOCK=16)
        except ValueError as e:
            assert "Conflicting meta-parameters: BLOCK" in str(e)
        else:
            raise AssertionError("no ValueError")


def test_the_key_holds_key_values_and_argument_dtypes():
    with FakeEnv() as env:
        jit, t = tuned(env, [16, 32], "off")
        call(t, n=1024, dtype=float16)
        call(t, n=1024, dtype=float32)
        call(t, n=2048, dtype=float16)
        call(t, n=1024, dtype=float16)
        labels = sorted(r["workload"] for r in t.report())
        assert labels == ["n=1024;torch.float16,torch.float16",
                          "n=1024;torch.float32,torch.float32",
                          "n=2048;torch.float16,torch.float16"]
        assert ((1024, "torch.float16", "torch.float16") in t._states)


def test_after_commit_a_call_is_a_lookup_and_a_launch_and_times_nothing():
    with tmpdir() as d, FakeEnv(by_block({16: 120, 32: 100, 64: 90})) as env:
        jit, t = tuned(env, [16, 32, 64], os.path.join(d, "c.json"))
        assert run_until_committed(t)
        g = env.gpu
        before = (g.records, g.queries, g.events_made, g.capture_checks)
        n_launches = len(jit.launches)

        def slow_path(*a, **k):
            raise AssertionError("a committed key went through the undecided path")

        t._run_undecided = slow_path  # the committed path is the lookup and the launch alone
        for _ in range(50):
            call(t)
        assert (g.records, g.queries, g.events_made, g.capture_checks) == before
        assert len(jit.launches) == n_launches + 50
        assert set(jit.launched()[-50:]) == {64}
        key = next(iter(t._states))
        assert t._decided[key][0].kwargs == {"BLOCK": 64} and t.cache[key].kwargs == {"BLOCK": 64}


def test_single_config_is_never_timed():
    with FakeEnv() as env:
        jit = env.jit(kern)
        t = at.autotune(configs=[env.triton.Config({"BLOCK": 8})], key=["n"],
                        cache_path="off")(jit)
        for _ in range(5):
            call(t)
        assert env.gpu.records == 0 and jit.launched() == [8] * 5


def test_inside_graph_capture_the_leader_runs_untimed():
    with FakeEnv(by_block({16: 120, 32: 100})) as env:
        jit, t = tuned(env, [16, 32], "off")
        env.gpu.capturing = True
        for _ in range(5):
            call(t)  # the fake raises if an event is recorded or queried now
        assert env.gpu.records == 0 and jit.launched() == [16] * 5
        env.gpu.capturing = False
        assert run_until_committed(t)
        assert t.report()[0]["choice"].startswith("BLOCK=32,")


def test_events_not_read_yet_are_capped_and_the_leader_runs_untimed():
    with FakeEnv(by_block({16: 120, 32: 100}), lag=10 ** 9) as env:  # events never complete
        jit, t = tuned(env, [16, 32], "off", max_in_flight=8)
        for _ in range(40):
            call(t)
        assert env.gpu.records == 2 * 8 and len(jit.launches) == 40
        assert not t.report()[0]["committed"]


def test_a_config_that_cannot_compile_is_excluded_and_the_call_still_runs():
    fails = lambda c, o: c["BLOCK"] == 128  # noqa: E731 - e.g. too much shared memory
    with tmpdir() as d, FakeEnv(by_block({16: 120, 32: 100, 128: 10}), fails=fails) as env:
        events = []
        jit = env.jit(kern)
        t = at.autotune(configs=configs(env, [128, 16, 32]), key=["n"],
                        cache_path=os.path.join(d, "c.json"), on_commit=events.append)(jit)
        out = Tensor()
        call(t, out=out)
        assert out.writes == 1 and jit.launched() == [16]
        assert run_until_committed(t)
        assert 128 not in jit.launched()
        assert events[0]["choice"].startswith("BLOCK=32,")
        assert events[0]["excluded"] == [at.config_text(configs(env, [128])[0])]
        # every config fails: Triton's exception reaches the caller
        t2 = at.autotune(configs=configs(env, [128, 128 + 0]), key=["n"], cache_path="off")(
            env.jit(kern))
        try:
            call(t2)
        except Exception as e:  # noqa: BLE001
            assert type(e).__name__ == "OutOfResources"
        else:
            raise AssertionError("no OutOfResources")


def test_reset_to_zero_and_restore_value_are_accepted_and_never_needed():
    with FakeEnv(by_block({16: 120, 32: 100})) as env:
        jit = env.jit(kern)
        t = at.autotune(configs=configs(env, [16, 32]), key=["n"], cache_path="off",
                        reset_to_zero=["out"], restore_value=["x"], warmup=25, rep=100,
                        do_bench=lambda *a, **k: 1 / 0)(jit)
        x, out = Tensor(value=3.0), Tensor(value=5.0)
        for _ in range(100):
            t[(1,)](x, out, 1024)
        assert out.zeroed == 0 and out.writes == 100 and x.value == 3.0
        assert len(jit.launches) == 100  # one launch per call, never a benchmark loop


def test_a_config_pre_hook_runs_before_each_of_its_launches():
    with FakeEnv() as env:
        seen = []
        jit = env.jit(kern)
        cfgs = [env.triton.Config({"BLOCK": 16}, pre_hook=lambda a: seen.append(a["BLOCK"])),
                env.triton.Config({"BLOCK": 32})]
        t = at.autotune(configs=cfgs, key=["n"], cache_path="off")(jit)
        for _ in range(6):
            call(t)
        assert seen == [b for b in jit.launched() if b == 16] and seen


# ---------------------------------------------------------------------------
# pruning


def test_early_config_prune_and_perf_model_are_honoured():
    with tmpdir() as d, FakeEnv(by_block({16: 120, 32: 100, 64: 90, 128: 80})) as env:
        seen = {}

        def early(cfgs, nargs, **kwargs):
            seen.update(nargs=sorted(nargs), kwargs=sorted(kwargs))
            return [c for c in cfgs if c.kwargs["BLOCK"] <= 64]

        jit = env.jit(kern)
        t = at.autotune(configs=configs(env, [16, 32, 64, 128]), key=["n"],
                        cache_path=os.path.join(d, "c.json"),
                        prune_configs_by={"early_config_prune": early})(jit)
        assert run_until_committed(t)
        assert seen == {"nargs": ["n", "out", "x"], "kwargs": ["grid", "warmup"]}
        assert 128 not in jit.launched() and t.report()[0]["choice"].startswith("BLOCK=64,")

        # perf_model + top_k: the predicted best 2 race; the first call runs the predicted best
        model = lambda **kw: {16: 1.0, 32: 4.0, 64: 2.0, 128: 3.0}[kw["BLOCK"]]  # noqa: E731
        jit2 = env.jit(kern)
        t2 = at.autotune(configs=configs(env, [16, 32, 64, 128]), key=["n"], cache_path="off",
                         prune_configs_by={"perf_model": model, "top_k": 2})(jit2)
        call(t2)
        assert jit2.launched() == [16]
        assert run_until_committed(t2)
        assert set(jit2.launched()) == {16, 64} and t2.report()[0]["choice"].startswith("BLOCK=64,")

        # pruned to one config: no timing (as triton.autotune)
        jit3 = env.jit(kern)
        records = env.gpu.records
        t3 = at.autotune(configs=configs(env, [16, 32]), key=["n"], cache_path="off",
                         prune_configs_by={"perf_model": model, "top_k": 0.4})(jit3)
        for _ in range(3):
            call(t3)
        assert jit3.launched() == [16] * 3 and env.gpu.records == records
        assert t3.report()[0]["decision"] == "single"


# ---------------------------------------------------------------------------
# the cache file


def _entries(path):
    with open(path) as f:
        return json.load(f)["entries"]


def test_timings_are_keyed_by_config_text_so_editing_the_list_keeps_them():
    times = {16: 120, 32: 100, 64: 90, 128: 150, 8: 70}
    with tmpdir() as d, FakeEnv(by_block(times)) as env:
        cache = os.path.join(d, "c.json")
        _, t = tuned(env, [16, 32, 64], cache)
        assert run_until_committed(t)
        (entry,) = _entries(cache).values()
        assert sorted(entry["timings"]) == sorted(at.config_text(c) for c in
                                                  configs(env, [16, 32, 64]))
        assert entry["decision"]["choice"] == at.config_text(configs(env, [64])[0])
        assert entry["device"] == "Fake H200 sm_90" and entry["triton"] == "3.6.0-fake"

        # reordered: the same set, the decision is reused, nothing is timed
        jit, t = tuned(env, [64, 16, 32], cache)
        records = env.gpu.records
        call(t)
        assert jit.launched() == [64] and env.gpu.records == records
        assert t.report()[0]["decision"] == "cached"

        # a config added (a slow one): the decision re-opens, the known timings decide the
        # others; the first call runs the best known; only the new config needs launches
        jit, t = tuned(env, [16, 32, 64, 128], cache)
        call(t)
        assert jit.launched() == [64]
        assert run_until_committed(t)
        launched = jit.launched()
        assert launched.count(128) >= 5 and launched.count(16) == 0 and launched.count(32) == 0
        rep = t.report()[0]
        assert rep["choice"].startswith("BLOCK=64,") and rep["launches"] < 15
        assert "re-opened" in json.dumps(rep) or rep["decision"] in ("separated", "leader")
        seeded = {r["config"].split(",")[0]: r["seeded"] for r in rep["configs"]}
        assert seeded["BLOCK=16"] > 0 and seeded["BLOCK=128"] == 0

        # a faster config added: it wins with the old ones' timings reused
        jit, t = tuned(env, [16, 32, 64, 128, 8], cache)
        assert run_until_committed(t)
        assert t.report()[0]["choice"].startswith("BLOCK=8,")
        assert jit.launched().count(16) == 0

        # the timings of a config are its own: a config with other options is another config
        texts = set(_entries(cache)[next(iter(_entries(cache)))]["timings"])
        assert at.config_text(env.triton.Config({"BLOCK": 64}, num_warps=8)) not in texts

        # a config removed: the rest decide from the file alone
        jit, t = tuned(env, [16, 32, 128], cache)
        call(t)
        assert t.report()[0]["committed"] and t.report()[0]["choice"].startswith("BLOCK=32,")


def test_entries_are_per_kernel_source_device_and_triton_version():
    times = {16: 120, 32: 100}
    with tmpdir() as d:
        cache = os.path.join(d, "c.json")
        with FakeEnv(by_block(times)) as env:
            _, t = tuned(env, [16, 32], cache)
            assert run_until_committed(t)
            _, t = tuned(env, [16, 32], cache, fn=kern_edited)  # other source: other entry
            call(t)
            assert t.report()[0]["decision"] == "exploring"
        with FakeEnv(by_block(times), device="Fake A100", capability=(8, 0)) as env:
            _, t = tuned(env, [16, 32], cache)
            call(t)
            assert t.report()[0]["decision"] == "exploring"
        with FakeEnv(by_block(times), version="3.7.0") as env:
            _, t = tuned(env, [16, 32], cache)
            call(t)
            assert t.report()[0]["decision"] == "exploring"
        with FakeEnv(by_block(times)) as env:
            _, t = tuned(env, [16, 32], cache)
            call(t)
            assert t.report()[0]["decision"] == "cached"


HOSTILE_FILES = [
    ("not json", b"{not json"),
    ("truncated", b'{"format": "ksnap-triton-tune", "version": 1, "entries": {'),
    ("wrong format", json.dumps({"format": "other", "version": 1, "entries": {}}).encode()),
    ("newer version", json.dumps({"format": at.FORMAT, "version": 99, "entries": {}}).encode()),
    ("entries a list", json.dumps({"format": at.FORMAT, "version": 1, "entries": []}).encode()),
    ("deep nesting", b"[" * 200000 + b"]" * 200000),
    ("binary", bytes(range(256)) * 10),
]


@parametrize("what, content", HOSTILE_FILES, ids=[h[0] for h in HOSTILE_FILES])
def test_a_file_that_is_not_a_cache_is_neither_used_nor_overwritten(what, content):
    with tmpdir() as d, FakeEnv(by_block({16: 120, 32: 100})) as env:
        cache = os.path.join(d, "c.json")
        with open(cache, "wb") as f:
            f.write(content)
        at._warned.clear()
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            jit, t = tuned(env, [16, 32], cache)
            call(t)
            jit2, t2 = tuned(env, [16, 32], cache)
            call(t2)
            assert run_until_committed(t)  # decided, in this process only
        assert jit.launched()[0] == 16 and jit2.launched() == [16], what
        lines = [ln for ln in err.getvalue().splitlines() if ln]
        assert len(lines) == 1 and "not valid" in lines[0] and cache in lines[0], (what, lines)
        assert "not overwritten" in lines[0], lines
        with open(cache, "rb") as f:
            assert f.read() == content, what  # what it cannot read it never destroys


def _entry(**over):
    e = {"kernel": "k", "source": "s", "device": "d", "triton": "t", "key": "k",
         "timings": {}, "decision": None}
    e.update(over)
    return e


HOSTILE_ENTRIES = [
    ("NaN timing", b'{"kernel": "k", "source": "s", "device": "d", "triton": "t", "key": "k",'
                   b' "timings": {"c": [NaN]}, "decision": null}'),
    ("negative timing", json.dumps(_entry(timings={"c": [-1]})).encode()),
    ("choice not a config", json.dumps(_entry(
        decision={"configs": ["a"], "choice": "b", "decision": "tied"})).encode()),
    ("a number", b"7"),
    ("kernel not a string", json.dumps(_entry(kernel=[1])).encode()),
]


@parametrize("what, bad", HOSTILE_ENTRIES, ids=[h[0] for h in HOSTILE_ENTRIES])
def test_a_malformed_entry_is_kept_as_written_and_the_others_are_used(what, bad):
    times = {16: 120, 32: 100, 64: 110}
    with tmpdir() as d:
        cache = os.path.join(d, "c.json")
        with FakeEnv(by_block(times)) as env:  # a first process decides 32
            _, t = tuned(env, [16, 32], cache)
            assert run_until_committed(t)
            t.flush()
        doc = json.load(open(cache))
        good = json.dumps(doc["entries"])[1:-1]
        with open(cache, "wb") as f:  # someone adds a malformed entry beside it
            f.write(b'{"format": "ksnap-triton-tune", "version": 1, "entries": {"zz-bad": ' +
                    bad + b", " + good.encode() + b"}}")
        at._warned.clear()
        err = io.StringIO()
        with contextlib.redirect_stderr(err), FakeEnv(by_block(times)) as env:
            jit, t = tuned(env, [16, 32], cache)
            call(t)
            assert t.report()[0]["decision"] == "cached" and jit.launched() == [32], what
            jit2, t2 = tuned(env, [16, 32, 64], cache)  # a new config: a write
            assert run_until_committed(t2)
            t2.flush()
        lines = [ln for ln in err.getvalue().splitlines() if ln]
        assert len(lines) == 1 and "1 malformed entry not used, kept" in lines[0], (what, lines)
        text = open(cache, "rb").read()
        assert b'"zz-bad":' in text, what
        kept = json.loads(text.decode())["entries"]["zz-bad"]
        assert json.dumps(kept, sort_keys=True) == json.dumps(
            json.loads(bad.decode()), sort_keys=True), what


def test_an_empty_file_is_an_empty_cache():
    with tmpdir() as d, FakeEnv(by_block({16: 120, 32: 100})) as env:
        cache = os.path.join(d, "c.json")
        open(cache, "wb").close()
        at._warned.clear()
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            _, t = tuned(env, [16, 32], cache)
            assert run_until_committed(t)
            t.flush()
        assert err.getvalue() == ""
        assert at._validate(json.load(open(cache))) is None


def test_a_cache_reached_through_a_link_is_written_through_it():
    times = {16: 120, 32: 100}
    with tmpdir() as d, FakeEnv(by_block(times)) as env:
        real = os.path.join(d, "real", "c.json")
        os.makedirs(os.path.dirname(real))
        link = os.path.join(d, "link.json")
        os.symlink(real, link)
        _, a = tuned(env, [16, 32], link)
        assert run_until_committed(a)
        a.flush()
        assert os.path.islink(link) and os.path.isfile(real), "the link stays a link"
        assert os.path.exists(real + ".lock") and not os.path.exists(link + ".lock")
        jb, b = tuned(env, [16, 32], real)  # another writer, by the real path
        call(b)
        assert b.report()[0]["decision"] == "cached" and jb.launched() == [32]


def test_two_instances_sharing_a_file_merge_their_timings():
    times = {16: 120, 32: 100, 64: 90}
    with tmpdir() as d, FakeEnv(by_block(times)) as env:
        cache = os.path.join(d, "c.json")
        # two "processes" explore the same key at the same time, neither decides
        ja, a = tuned(env, [16, 32, 64], cache)
        jb, b = tuned(env, [16, 32, 64], cache)
        for _ in range(4):
            call(a)
            call(b)
        a.flush()
        b.flush()
        (entry,) = _entries(cache).values()
        per = {t.split(",")[0]: len(v) for t, v in entry["timings"].items()}
        got_a = {r["config"].split(",")[0]: r["n"] for r in a.report()[0]["configs"]}
        got_b = {r["config"].split(",")[0]: r["n"] for r in b.report()[0]["configs"]}
        assert per == {k: got_a[k] + got_b[k] for k in per} and sum(per.values()) >= 6
        # a third one starts from both: fewer launches to decide than from nothing
        jc, c = tuned(env, [16, 32, 64], cache)
        n = run_until_committed(c)
        assert n is not None and c.report()[0]["choice"].startswith("BLOCK=64,")
        assert len(jc.launches) < 15


def test_a_decision_stored_first_by_another_process_is_adopted():
    times = {16: 100, 32: 130}
    with tmpdir() as d, FakeEnv(by_block(times)) as env:
        cache = os.path.join(d, "c.json")
        _, b = tuned(env, [16, 32], cache)  # B starts racing before A decides
        call(b)
        events_a = []
        _, a = tuned(env, [16, 32], cache, on_commit=events_a.append)
        assert run_until_committed(a)
        assert events_a[0]["choice"].startswith("BLOCK=16,")
        times.update({16: 130, 32: 100})  # B's race prefers 32
        b_events = []
        b.on_commit = b_events.append
        assert run_until_committed(b)
        assert b_events[0]["decision"] == "adopted" and b_events[0]["choice"].startswith(
            "BLOCK=16,"), b_events
        assert "this race chose BLOCK=32" in b_events[0]["reason"]
        assert b.report()[0]["choice"].startswith("BLOCK=16,")


WRITER = r"""
import sys
sys.path[:0] = [{here!r}, {python!r}]
from fake_autotune_env import FakeEnv, Tensor
import ksnap_triton.autotune as at

def kern(x, out, n, BLOCK, GROUP=1):
    pass

with FakeEnv(lambda c, o: {{16: 120, 32: 100}}[c["BLOCK"]]) as env:
    jit = env.jit(kern)
    t = at.autotune(configs=[env.triton.Config({{"BLOCK": 16}}), env.triton.Config({{"BLOCK": 32}})],
                    key=["n"], cache_path={cache!r})(jit)
    for n in range({first}, {first} + 12):
        for _ in range(40):
            t[(1,)](Tensor(), Tensor(), n)
"""


def test_processes_writing_one_file_at_once_lose_nothing():
    with tmpdir() as d:
        cache = os.path.join(d, "c.json")
        procs = []
        for k in range(4):
            script = os.path.join(d, f"writer{k}.py")  # a file: the kernel's source is read
            with open(script, "w") as f:
                f.write(WRITER.format(here=HERE, python=PYTHON_DIR, cache=cache, first=100 * k))
            procs.append(subprocess.Popen([sys.executable, script], stderr=subprocess.PIPE,
                                          text=True))
        for p in procs:
            _, err = p.communicate(timeout=120)
            assert p.returncode == 0, err
        entries = _entries(cache)
        assert len(entries) == 48
        assert all(e["decision"] and e["decision"]["choice"].startswith("BLOCK=32,")
                   for e in entries.values())
        assert not [f for f in os.listdir(d) if f.endswith(".tmp")]


# ---------------------------------------------------------------------------
# visibility


def test_each_commit_is_logged_as_one_json_line_and_given_to_on_commit():
    with tmpdir() as d, FakeEnv(by_block({16: 120, 32: 100, 64: 101})) as env:
        log = os.path.join(d, "commits.jsonl")
        os.environ["KSNAP_TUNE_LOG"] = log
        events = []
        _, t = tuned(env, [16, 32, 64], os.path.join(d, "c.json"), on_commit=events.append,
                     name="my_kernel")
        assert run_until_committed(t)
        assert run_until_committed(t, n=2048)
        for _ in range(20):
            call(t)
        with open(log) as f:
            lines = [json.loads(line) for line in f]
        assert len(lines) == 2 == len(events)
        e = lines[0]
        for field in ("group", "workload", "choice", "choice_index", "decision", "runner_up",
                      "margin", "launches", "excluded", "reason"):
            assert field in e, field
        assert e["group"] == "my_kernel" and e["workload"] == "n=1024;torch.float16,torch.float16"
        assert e["choice"].startswith("BLOCK=32,") and e["runner_up"].startswith("BLOCK=64,")
        assert abs(e["margin"] - 0.01) < 1e-9 and e["launches"] > 0
        assert e["decision"] in ("separated", "leader") and e["reason"].startswith(e["decision"])
        assert events[0]["choice"] == e["choice"]


def test_disabled_runs_the_best_persisted_or_first_config_untimed():
    with tmpdir() as d, FakeEnv(by_block({16: 120, 32: 100})) as env:
        os.environ["KSNAP_TUNE_DISABLE"] = "1"
        jit, t = tuned(env, [16, 32], os.path.join(d, "c.json"))
        for _ in range(5):
            call(t)
        assert env.gpu.records == 0 and jit.launched() == [16] * 5


def test_importing_ksnap_triton_imports_neither_triton_nor_torch():
    code = ("import sys, ksnap_triton; import ksnap_triton.autotune as m; "
            "assert 'triton' not in sys.modules and 'torch' not in sys.modules; "
            "assert callable(ksnap_triton.autotune); "
            "from ksnap_triton import autotune; assert callable(autotune); print('ok')")
    r = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=PYTHON_DIR),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_the_module_and_the_decorator_are_both_callable_as_the_decorator():
    import ksnap_triton

    with FakeEnv() as env:
        deco = ksnap_triton.autotune(configs=configs(env, [16]), key=["n"], cache_path="off")
        assert isinstance(deco(env.jit(kern)), at.Autotuner)
        deco = at.autotune(configs=configs(env, [16]), key=["n"], cache_path="off")
        assert isinstance(deco(env.jit(kern)), at.Autotuner)
        from ksnap_triton import autotune

        assert autotune is at  # the module, callable as the decorator


# ---------------------------------------------------------------------------
# without pytest


def _main() -> int:
    failed = 0
    names = [n for n in sorted(globals()) if n.startswith("test_")]
    for name in names:
        fn = globals()[name]
        rows = getattr(fn, "_rows", None)
        cases = [(name, {})] if rows is None else [
            (f"{name}[{i}]", dict(zip(rows[0], row))) for i, row in enumerate(rows[1])]
        for label, kw in cases:
            try:
                fn(**kw)
                print(f"PASS {label}")
            except Exception as e:  # noqa: BLE001
                failed += 1
                print(f"FAIL {label}: {type(e).__name__}: {e}")
    print(f"{failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(_main())

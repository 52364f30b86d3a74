"""gpu/autotune_py/compare.py: ksnap_triton.autotune against triton.autotune.

On the GPU machine, from the repo root (gpu/autotune_py/run.sh):

    python3 gpu/autotune_py/compare.py [--calls 200] [--shapes 256x256x256,...]

One Triton matmul kernel (the structure of Triton's tutorial 03: grouped
program order, fp16 in, fp32 accumulation, fp16 out) with 14 configs, and 8
held-out fp16 shapes (none of them is a shape of gpu/tune, whose recorded
samples validated the race's defaults). Per shape, each arm starts fresh: a
new decorator instance, and for ksnap a new, empty cache file.

* Compilation is *warm for both arms*: every config is compiled (and its
  module loaded) once before any arm runs, so neither arm's figures include
  compiling; the cold compile time of each config is measured first
  (TRITON_CACHE_DIR empty, run.sh) and reported separately.
* (a) first result: wall time of the first call, synchronize included;
  (b) N calls: wall time of N calls from the fresh state (the first
  included), one synchronize at the end; (c) loss: the chosen config's
  time over the best config's, both measured by triton.testing.do_bench
  (median; two rounds over all configs, round-robin, mean of the two).
* ksnap arm: the caller's loop as is (no synchronize); its choice at call N
  (committed, or its leader), then more calls until it commits (at most
  --max-calls) for the decision, calls to commit and that choice's loss.
* ksnap again with the cache file the first ksnap run wrote (another
  process's view): first call and N calls.
* With --references, two more references per
  config: a warm-L2 time (20 launches in a CUDA
  graph, median of 10 timed replays; do_bench empties the L2 before each
  launch) and the program's loop itself with the config fixed (N calls,
  one synchronize: µs per call).
* Dispatch after commit on the smallest shape: host time per call of the
  committed triton.autotune, ksnap_triton.autotune and a plain launch of the
  same config.

Prints a table; writes $OUT/compare.json.
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "python"))

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
import triton.testing  # noqa: E402

import ksnap_triton  # noqa: E402
from ksnap_triton import autotune as ksnap_autotune  # noqa: E402 (the module, callable)

OUT = os.environ.get("OUT", "/tmp/out")

# BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, GROUP_SIZE_M, num_stages, num_warps
CONFIG_TUPLES = [
    (128, 256, 64, 8, 3, 8), (64, 256, 32, 8, 4, 4), (128, 128, 32, 8, 4, 4),
    (128, 64, 32, 8, 4, 4), (64, 128, 32, 8, 4, 4), (128, 32, 32, 8, 4, 4),
    (64, 32, 32, 8, 5, 2), (32, 64, 32, 8, 5, 2), (128, 128, 64, 8, 3, 8),
    (128, 256, 64, 8, 4, 8), (256, 128, 64, 8, 3, 8), (64, 64, 64, 8, 4, 4),
    (128, 128, 64, 8, 4, 4), (64, 128, 64, 8, 3, 4),
]
# Held out: not the shapes of gpu/tune (512^3, 2048^3, 4096^3, 8192x8192x1024,
# 128x8192x8192, 16384x64x4096), whose samples chose the race's defaults.
SHAPES = [(256, 256, 256), (512, 1536, 768), (1024, 1024, 4096), (1536, 6144, 1024),
          (2304, 768, 3072), (3072, 3072, 3072), (6144, 1024, 2048), (8192, 8192, 512)]


def make_configs():
    return [triton.Config({"BLOCK_SIZE_M": m, "BLOCK_SIZE_N": n, "BLOCK_SIZE_K": k,
                           "GROUP_SIZE_M": g}, num_stages=s, num_warps=w)
            for m, n, k, g, s, w in CONFIG_TUPLES]


def short(cfg):
    kw = cfg.kwargs
    return (f"{kw['BLOCK_SIZE_M']}x{kw['BLOCK_SIZE_N']}x{kw['BLOCK_SIZE_K']}"
            f"/s{cfg.num_stages}w{cfg.num_warps}")


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                  BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
    # Program order in groups of GROUP_SIZE_M rows of tiles (L2 reuse).
    pid = tl.program_id(axis=0)
    tiles_m = tl.cdiv(M, BLOCK_SIZE_M)
    tiles_n = tl.cdiv(N, BLOCK_SIZE_N)
    per_group = GROUP_SIZE_M * tiles_n
    first_m = (pid // per_group) * GROUP_SIZE_M
    rows = min(tiles_m - first_m, GROUP_SIZE_M)
    tile_m = first_m + ((pid % per_group) % rows)
    tile_n = (pid % per_group) // rows
    rm = (tile_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    rn = (tile_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    rk = tl.arange(0, BLOCK_SIZE_K)
    a_tile = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_tile = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k0 in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        left = K - k0 * BLOCK_SIZE_K
        a = tl.load(a_tile, mask=rk[None, :] < left, other=0.0)
        b = tl.load(b_tile, mask=rk[:, None] < left, other=0.0)
        acc = tl.dot(a, b, acc)
        a_tile += BLOCK_SIZE_K * stride_ak
        b_tile += BLOCK_SIZE_K * stride_bk
    cm = tile_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    cn = tile_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_tile = c_ptr + stride_cm * cm[:, None] + stride_cn * cn[None, :]
    tl.store(c_tile, acc.to(tl.float16), mask=(cm[:, None] < M) & (cn[None, :] < N))


def grid_of(M, N):
    return lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]),)


def args_of(a, b, c):
    M, K = a.shape
    _, N = b.shape
    return (a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
            c.stride(0), c.stride(1))


def launch_fixed(a, b, c, cfg):
    M, N = a.shape[0], b.shape[1]
    return matmul_kernel[grid_of(M, N)](*args_of(a, b, c), **cfg.all_kwargs())


def sync():
    torch.cuda.synchronize()


def compile_all(configs):
    """Cold compile (+ module load) of every config, on a small problem."""
    a = torch.randn(256, 256, device="cuda", dtype=torch.float16)
    b = torch.randn(256, 256, device="cuda", dtype=torch.float16)
    c = torch.empty(256, 256, device="cuda", dtype=torch.float16)
    out = []
    for cfg in configs:
        t = time.perf_counter()
        try:
            launch_fixed(a, b, c, cfg)
            sync()
            out.append(time.perf_counter() - t)
        except Exception as e:  # noqa: BLE001 - e.g. OutOfResources: both arms skip it
            print(f"config {short(cfg)} cannot run: {type(e).__name__}: {e}", flush=True)
            out.append(None)
    return out


def truth_of(a, b, c, configs, rounds=2, broken=None):
    """Median µs per config by do_bench: `rounds` passes over all configs."""
    per = [[] for _ in configs]
    broken = broken or [False] * len(configs)
    for r in range(rounds):
        order = list(range(len(configs)))
        order = order[r % len(order):] + order[:r % len(order)]
        for i in order:
            if broken[i]:
                per[i].append(float("inf"))
                continue
            ms = triton.testing.do_bench(lambda: launch_fixed(a, b, c, configs[i]),
                                         warmup=10, rep=50, return_mode="median")
            per[i].append(ms * 1000.0)
    return [statistics.fmean(p) for p in per]


def hot_of(a, b, c, configs, broken, per_graph=20, replays=10):
    """Median µs per launch with a warm L2 and no host gaps: `per_graph`
    launches of a config captured in a CUDA graph, `replays` timed replays
    (do_bench, above, empties the L2 before each launch instead)."""
    out = []
    stream = torch.cuda.Stream()
    for i, cfg in enumerate(configs):
        if broken[i]:
            out.append(float("inf"))
            continue
        g = torch.cuda.CUDAGraph()
        with torch.cuda.stream(stream):
            launch_fixed(a, b, c, cfg)
            stream.synchronize()
            with torch.cuda.graph(g, stream=stream):
                for _ in range(per_graph):
                    launch_fixed(a, b, c, cfg)
            g.replay()
            g.replay()
            times = []
            for _ in range(replays):
                e0 = torch.cuda.Event(enable_timing=True)
                e1 = torch.cuda.Event(enable_timing=True)
                e0.record(stream)
                g.replay()
                e1.record(stream)
                e1.synchronize()
                times.append(e0.elapsed_time(e1) * 1000.0 / per_graph)
        sync()
        out.append(statistics.median(times))
        del g
    return out


def loop_of(a, b, c, configs, broken, calls):
    """µs per call of the program's own loop (`calls` plain launches, one
    synchronize) with each config fixed: what (b) would be with that config."""
    out = []
    M, N = a.shape[0], b.shape[1]
    grid, args = grid_of(M, N), args_of(a, b, c)
    for i, cfg in enumerate(configs):
        if broken[i]:
            out.append(float("inf"))
            continue
        ck = cfg.all_kwargs()
        matmul_kernel[grid](*args, **ck)
        sync()
        t = time.perf_counter()
        for _ in range(calls):
            matmul_kernel[grid](*args, **ck)
        sync()
        out.append((time.perf_counter() - t) / calls * 1e6)
    return out


def run_calls(kernel, a, b, c, calls, after_first=None):
    """(first call s, all `calls` s): sync after the first and at the end."""
    M, N = a.shape[0], b.shape[1]
    grid = grid_of(M, N)
    args = args_of(a, b, c)
    sync()
    t0 = time.perf_counter()
    kernel[grid](*args)
    sync()
    t1 = time.perf_counter()
    if after_first:
        after_first()
    for _ in range(calls - 1):
        kernel[grid](*args)
    sync()
    t2 = time.perf_counter()
    return t1 - t0, t2 - t0


def rel_error(c, ref):
    return float(((c.float() - ref.float()).abs().max() / ref.float().abs().max()).item())


def find_config(configs, text):
    for i, cfg in enumerate(configs):
        if ksnap_autotune.config_text(cfg) == text:
            return i
    raise KeyError(text)


def per_call_us(fn, batches=5, per=400):
    out = []
    for _ in range(batches):
        sync()
        t = time.perf_counter()
        for _ in range(per):
            fn()
        out.append((time.perf_counter() - t) / per * 1e6)
        sync()
    return statistics.median(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--max-calls", type=int, default=2000)
    ap.add_argument("--shapes", default="")
    ap.add_argument("--truth-rounds", type=int, default=2)
    ap.add_argument("--references", action="store_true",
                    help="also the warm-L2 (CUDA graph) and loop references per config")
    opt = ap.parse_args()
    shapes = SHAPES
    if opt.shapes:
        shapes = [tuple(int(x) for x in s.split("x")) for s in opt.shapes.split(",")]
    os.makedirs(OUT, exist_ok=True)
    work = tempfile.mkdtemp(prefix="ksnap-compare-")
    os.environ.pop("KSNAP_TRITON_TUNE_CACHE", None)
    os.environ["KSNAP_TUNE_LOG"] = os.path.join(OUT, "commits.jsonl")
    configs = make_configs()
    names = [short(c) for c in configs]
    info = {"torch": torch.__version__, "triton": triton.__version__,
            "device": torch.cuda.get_device_name(0),
            "capability": list(torch.cuda.get_device_capability(0)),
            "calls": opt.calls, "configs": names,
            "triton_cache_dir": os.environ.get("TRITON_CACHE_DIR", "")}
    print(json.dumps(info), flush=True)
    t = time.perf_counter()
    compile_s = compile_all(configs)
    info["compile_s"] = compile_s
    ok = [x for x in compile_s if x is not None]
    broken = [x is None for x in compile_s]
    print(f"cold compile of {len(ok)} configs: {sum(ok):.2f} s "
          f"({min(ok):.2f}-{max(ok):.2f} s each)", flush=True)
    rows = []
    for si, (M, N, K) in enumerate(shapes):
        torch.manual_seed(si)
        a = torch.randn(M, K, device="cuda", dtype=torch.float16)
        b = torch.randn(K, N, device="cuda", dtype=torch.float16)
        c = torch.empty(M, N, device="cuda", dtype=torch.float16)
        ref = torch.matmul(a, b)
        label = f"{M}x{N}x{K}"
        row = {"shape": label}
        arms = ["triton", "ksnap"] if si % 2 == 0 else ["ksnap", "triton"]
        cache = os.path.join(work, f"tune-{label}.json")
        for arm in arms:
            c.zero_()
            if arm == "triton":
                tt = triton.autotune(configs=make_configs(), key=["M", "N", "K"])(matmul_kernel)
                first, total = run_calls(tt, a, b, c, opt.calls)
                chosen = find_config(configs, ksnap_autotune.config_text(tt.best_config))
                row["triton"] = {"first_s": first, "total_s": total, "choice": chosen,
                                 "bench_s": getattr(tt, "bench_time", None),
                                 "error": rel_error(c, ref)}
            else:
                events = []
                kt = ksnap_triton.autotune(configs=make_configs(), key=["M", "N", "K"],
                                           cache_path=cache, on_commit=events.append)(matmul_kernel)
                first, total = run_calls(kt, a, b, c, opt.calls)
                rep = kt.report()[0]
                at_n = {"choice": find_config(configs, rep["choice"]),
                        "committed": rep["committed"], "decision": rep["decision"],
                        "launches": rep["launches"]}
                err = rel_error(c, ref)
                extra = 0
                grid, args = grid_of(M, N), args_of(a, b, c)
                while not kt.report()[0]["committed"] and opt.calls + extra < opt.max_calls:
                    kt[grid](*args)
                    extra += 1
                    if extra % 8 == 0:
                        sync()  # as a program that uses its results would, now and then
                sync()
                rep = kt.report()[0]
                kt.flush()
                timing = ("launch hooks" if kt._timer is not None and kt._timer.hooks is not None
                          else "events around fn.run")
                row["ksnap"] = {"first_s": first, "total_s": total, "at_n": at_n, "error": err,
                                "final": {"choice": find_config(configs, rep["choice"]),
                                          "committed": rep["committed"],
                                          "decision": rep["decision"],
                                          "decided_at_call": rep["decided_at_call"],
                                          "launches": rep["launches"], "reason": rep["reason"]},
                                "timing": timing, "event": events[0] if events else None,
                                "medians_us": {short(configs[find_config(configs, r["config"])]):
                                               round(r["median_us"], 3)
                                               for r in rep["configs"] if r["n"]}}
        # ksnap again from the file the first ksnap run wrote
        c.zero_()
        kc = ksnap_triton.autotune(configs=make_configs(), key=["M", "N", "K"],
                                   cache_path=cache)(matmul_kernel)
        first, total = run_calls(kc, a, b, c, opt.calls)
        rep = kc.report()[0]
        row["ksnap_cached"] = {"first_s": first, "total_s": total, "decision": rep["decision"],
                               "choice": find_config(configs, rep["choice"]),
                               "error": rel_error(c, ref)}
        truth = truth_of(a, b, c, configs, opt.truth_rounds, broken)
        if opt.references:
            hot = hot_of(a, b, c, configs, broken)
            loop = loop_of(a, b, c, configs, broken, opt.calls)
        else:
            hot = loop = truth
        best = min(range(len(configs)), key=lambda i: truth[i])
        best_hot = min(range(len(configs)), key=lambda i: hot[i])
        best_loop = min(range(len(configs)), key=lambda i: loop[i])
        finite = [i for i in range(len(configs)) if truth[i] != float("inf")]
        row["truth_us"] = {names[i]: round(truth[i], 3) for i in finite}
        row["best"] = best
        if opt.references:
            row["hot_us"] = {names[i]: round(hot[i], 3) for i in finite}
            row["loop_us"] = {names[i]: round(loop[i], 3) for i in finite}
            row["best_hot"], row["best_loop"] = best_hot, best_loop

        def loss(i):
            return truth[i] / truth[best] - 1

        for part in (row["triton"], row["ksnap"]["at_n"], row["ksnap"]["final"],
                     row["ksnap_cached"]):
            i = part["choice"]
            part["loss"] = loss(i)
            if not opt.references:
                continue
            part["loss_hot"] = hot[i] / hot[best_hot] - 1 if hot[best_hot] > 0 else 0.0
            part["loss_loop"] = loop[i] / loop[best_loop] - 1 if loop[best_loop] > 0 else 0.0
        rows.append(row)
        k, tr, kc_ = row["ksnap"], row["triton"], row["ksnap_cached"]
        print(f"{label}: best {names[best]} {truth[best]:.1f} us | triton first "
              f"{tr['first_s']:.3f} s, {opt.calls} calls {tr['total_s']:.3f} s, "
              f"{names[tr['choice']]} +{100 * tr['loss']:.2f}% | ksnap first "
              f"{k['first_s'] * 1e3:.2f} ms, {opt.calls} calls {k['total_s']:.3f} s, at call "
              f"{opt.calls} {names[k['at_n']['choice']]} +{100 * k['at_n']['loss']:.2f}% "
              f"({k['at_n']['decision']}), final {names[k['final']['choice']]} "
              f"+{100 * k['final']['loss']:.2f}% {k['final']['decision']} at call "
              f"{k['final']['decided_at_call']} | cached first {kc_['first_s'] * 1e3:.2f} ms, "
              f"{opt.calls} calls {kc_['total_s']:.3f} s | errors {tr['error']:.1e} "
              f"{k['error']:.1e} {kc_['error']:.1e} | {k['timing']}", flush=True)
        if opt.references:
            print(f"    warm L2 (graph) best {names[best_hot]} {hot[best_hot]:.1f} us: triton "
              f"+{100 * tr['loss_hot']:.2f}%, ksnap at {opt.calls} "
              f"+{100 * k['at_n']['loss_hot']:.2f}%, final +{100 * k['final']['loss_hot']:.2f}% | "
              f"loop best {names[best_loop]} {loop[best_loop]:.1f} us/call: triton "
              f"+{100 * tr['loss_loop']:.2f}%, ksnap final +{100 * k['final']['loss_loop']:.2f}%",
              flush=True)
        del a, b, c, ref
        torch.cuda.empty_cache()

    # Dispatch after commit, on the smallest shape (host-bound: per-call host time).
    M, N, K = min(shapes, key=lambda s: s[0] * s[1] * s[2])
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    grid, args = grid_of(M, N), args_of(a, b, c)
    tt = triton.autotune(configs=make_configs(), key=["M", "N", "K"])(matmul_kernel)
    tt[grid](*args)
    kt = ksnap_triton.autotune(configs=make_configs(), key=["M", "N", "K"],
                               cache_path=os.path.join(work, f"tune-{M}x{N}x{K}.json"))(matmul_kernel)
    for _ in range(opt.max_calls):
        kt[grid](*args)
        if kt.report()[0]["committed"]:
            break
    sync()
    fixed = kt.cache[next(iter(kt.cache))] if kt.cache else configs[0]
    ck = fixed.all_kwargs()
    raw = per_call_us(lambda: matmul_kernel[grid](*args, **ck))
    trit = per_call_us(lambda: tt[grid](*args))
    ks = per_call_us(lambda: kt[grid](*args))
    raw2 = per_call_us(lambda: matmul_kernel[grid](*args, **ck))
    dispatch = {"shape": f"{M}x{N}x{K}", "raw_us": [raw, raw2], "triton_autotune_us": trit,
                "ksnap_autotune_us": ks, "ksnap_committed": kt.report()[0]["committed"]}
    print(f"dispatch after commit ({M}x{N}x{K}, host time per call, median of 5x400): plain "
          f"launch {raw:.2f} / {raw2:.2f} us, triton.autotune {trit:.2f} us, "
          f"ksnap_triton.autotune {ks:.2f} us", flush=True)

    with open(os.path.join(OUT, "compare.json"), "w") as f:
        json.dump({"info": info, "shapes": rows, "dispatch": dispatch}, f, indent=1)
    print_table(rows, names, opt.calls, opt.references)
    print(f"total {time.perf_counter() - t:.1f} s", flush=True)


def print_table(rows, names, calls, references=False):
    def lo(part):
        text = f"+{100 * part['loss']:.2f}%"
        return text + (f" / +{100 * part['loss_hot']:.2f}%" if references else "")

    print()
    if references:
        print("losses: do_bench (L2 emptied) / CUDA graph (warm L2)")
    print(f"| shape | best (do_bench) | triton first | ksnap first | triton {calls} calls | "
          f"ksnap {calls} calls | triton choice | ksnap choice at call {calls} | "
          f"ksnap decision (call) | ksnap cached: first, {calls} calls |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        tr, k, kc = r["triton"], r["ksnap"], r["ksnap_cached"]
        best = r["best"]
        print(f"| {r['shape']} | {names[best]} {r['truth_us'][names[best]]:.1f} us "
              f"| {tr['first_s']:.3f} s | {k['first_s'] * 1e3:.2f} ms "
              f"| {tr['total_s']:.3f} s | {k['total_s']:.3f} s "
              f"| {names[tr['choice']]} ({lo(tr)}) "
              f"| {names[k['at_n']['choice']]} ({lo(k['at_n'])}) "
              f"{'committed' if k['at_n']['committed'] else 'leader'} "
              f"| {k['final']['decision']} ({k['final']['decided_at_call']}), "
              f"{names[k['final']['choice']]} {lo(k['final'])} "
              f"| {kc['first_s'] * 1e3:.2f} ms, {kc['total_s']:.3f} s |")


if __name__ == "__main__":
    main()

"""Runs Triton's own tutorials (triton-lang/triton, python/tutorials of the
release the GPU machine has) with their sweeps cut short and every autotune
config kept, so that a capture records what the tutorials compile.

    drive.py --tutorials DIR --part PART [--target cuda|gfx942] [--report FILE]

Run it under the capture plugin (gpu/realworld/run_corpus.sh does):

    python3 -m ksnap_triton capture -o OUT -- python3 drive.py --tutorials T --part matmul

* The tutorial scripts are read from DIR (the tutorial sources, or the
  cosmetic copy make_noise.py writes); tutorial_loader.py executes only the
  kernels and wrappers a part calls, as module ``tutorial_<file stem>``, so
  a kernel's qualified name does not depend on DIR.
* The sweeps are cut: each part calls the tutorials' wrappers (or their own
  test functions) at one or a few shapes, chosen so that the shapes fall in
  different specialization classes where the tutorial's sweep would.
  Every config of an autotuned kernel is still compiled and benchmarked
  (``triton.autotune`` does that for every new key); only the benchmark
  itself is shortened (one timed launch per config instead of ~100 ms).
* ``--target gfx942``: nothing is compiled for the GPU at hand. A JIT cache
  hook (``knobs.runtime.jit_cache_hook``, which lets a hook skip a compile)
  collects, for every variant the part would compile, the JIT's own
  signature, constexprs and specialization attributes; each is then compiled
  with ``triton.compile(ASTSource(...), target=GPUTarget("hip", "gfx942",
  64), options={num_warps, num_stages, num_ctas})`` - a cross-compile that
  needs no AMD GPU - which the capture plugin records as a direct compile.
  Variants whose signature needs an NVIDIA-only feature (host TMA
  descriptors, fp8 types, PDL intrinsics) are left out.
* Every step is guarded: an error is printed and written to the report and
  the next step runs. Result checks run only when kernels really launch.

The report (JSON) lists per step: ok / error and the error text, and for
gfx942 every spec with its Triton cache folder (the corpus keeps it as the
identity of direct compiles, independent of the plugin).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import tutorial_loader  # noqa: E402

LAUNCHING = os.environ.get("KSNAP_CAPTURE_NO_LAUNCH") != "1"


class Context:
    """What a part needs: tutorial modules, guarded steps, checks."""

    def __init__(self, tutorials: str, target: str):
        self.tutorials = tutorials
        self.target = target
        self.steps: list[dict] = []
        self.modules: dict[str, object] = {}

    def tutorial(self, filename: str, needed: list[str]):
        key = filename
        if key in self.modules:
            mod = self.modules[key]
            missing = [n for n in needed if not hasattr(mod, n)]
            if not missing:
                return mod
        stem = re.sub(r"[^0-9A-Za-z]+", "_", os.path.splitext(filename)[0]).strip("_")
        mod = tutorial_loader.load(os.path.join(self.tutorials, filename), f"tutorial_{stem}", needed)
        self.modules[key] = mod
        return mod

    def step(self, label: str, fn, *, amd: bool = True) -> None:
        if self.target != "cuda" and not amd:
            return
        t0 = time.time()
        rec = {"part_step": label, "ok": True}
        try:
            fn()
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as e:  # noqa: BLE001 - also pytest.skip's Skipped
            rec["ok"] = False
            rec["error"] = f"{type(e).__name__}: {e}"[:2000]
            print(f"[drive] step {label} failed: {rec['error']}", file=sys.stderr)
            traceback.print_exc(limit=6)
        rec["seconds"] = round(time.time() - t0, 2)
        print(f"[drive] step {label}: {'ok' if rec['ok'] else 'FAILED'} ({rec['seconds']} s)",
              file=sys.stderr, flush=True)
        self.steps.append(rec)

    def check(self, label: str, got, want, atol=1e-2, rtol=0.0) -> None:
        """Compares with a reference when kernels really ran (never fatal)."""
        if not LAUNCHING or self.target != "cuda":
            return
        import torch

        try:
            ok = torch.allclose(got.float(), want.float(), atol=atol, rtol=rtol)
        except Exception as e:  # noqa: BLE001
            ok = f"not compared: {e}"
        self.steps.append({"check": label, "ok": ok})
        print(f"[drive] check {label}: {ok}", file=sys.stderr)


# ---------------------------------------------------------------------------
# Parts: groups of tutorial calls, sized so that the parts of one build run
# in parallel processes in similar times.
# ---------------------------------------------------------------------------


def part_small(c: Context) -> None:
    import torch

    dev = "cuda"

    def vector_add():
        m = c.tutorial("01-vector-add.py", ["add"])
        for n in (98432, 98431):  # the tutorial's size, and one not divisible by 16
            x, y = torch.rand(n, device=dev), torch.rand(n, device=dev)
            c.check(f"add n={n}", m.add(x, y), x + y)

    def softmax():
        m = c.tutorial("02-fused-softmax.py", ["softmax"])
        for shape in ((1823, 781), (4096, 256), (512, 3000)):  # BLOCK_SIZE 1024, 256, 4096
            x = torch.randn(*shape, device=dev)
            c.check(f"softmax {shape}", m.softmax(x), torch.softmax(x, axis=1))

    def dropout():
        m = c.tutorial("04-low-memory-dropout.py", ["dropout", "seeded_dropout"])
        x = torch.randn(size=(10, ), device=dev)
        keep = (torch.rand(size=(10, ), device=dev) > 0.5).to(torch.int32)
        m.dropout(x, x_keep=keep, p=0.5)
        a, b = m.seeded_dropout(x, p=0.5, seed=123), m.seeded_dropout(x, p=0.5, seed=123)
        c.check("seeded_dropout repeats", a, b, atol=0)

    def layer_norm():
        m = c.tutorial("05-layer-norm.py", ["test_layer_norm"])
        m.test_layer_norm(1151, 8192, torch.float16)  # the tutorial's own test
        m.test_layer_norm(512, 1000, torch.float32)

    def extern():
        m = c.tutorial("07-extern-functions.py", ["asin_kernel"])
        import triton

        n = 98432
        x = torch.rand(n, device=dev)
        out = torch.zeros(n, device=dev)
        grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]), )  # noqa: E731
        m.asin_kernel[grid](x, out, n, BLOCK_SIZE=1024)
        c.check("asin", out, torch.asin(x))
        if c.target == "cuda":  # the tutorial's second call names libdevice explicitly
            import triton.backends.nvidia as nv

            lib = os.path.join(os.path.dirname(nv.__file__), "lib", "libdevice.10.bc")
            out2 = torch.zeros(n, device=dev)
            m.asin_kernel[grid](x, out2, n, BLOCK_SIZE=1024, extern_libs={"libdevice": lib})
            c.check("asin libdevice", out2, torch.asin(x))

    def pdl():
        m = c.tutorial("11-programmatic-dependent-launch.py", ["add"])
        x, y = torch.rand(1 << 20, device=dev), torch.rand(1 << 20, device=dev)
        for use in (True, False):
            c.check(f"pdl {use}", m.add(x, y, launch_pdl=use), x + y)

    c.step("01 vector add", vector_add)
    c.step("02 fused softmax", softmax)
    c.step("04 low-memory dropout", dropout)
    c.step("05 layer norm", layer_norm)
    c.step("07 extern functions", extern)
    c.step("11 programmatic dependent launch", pdl)


def part_matmul(c: Context) -> None:
    import torch

    m = None

    def load():
        nonlocal m
        m = c.tutorial("03-matrix-multiplication.py", ["matmul"])

    def fp16():
        a = torch.rand((512, 512), device="cuda", dtype=torch.float16) - 0.5
        b = torch.rand((512, 512), device="cuda", dtype=torch.float16) - 0.5
        c.check("matmul fp16", m.matmul(a, b), torch.matmul(a, b))
        out = m.matmul(a, b, activation="leaky_relu")
        ref = torch.matmul(a, b)
        c.check("matmul leaky_relu", out, torch.where(ref >= 0, ref, 0.01 * ref))

    def fp8():
        a = torch.randn((512, 512), device="cuda", dtype=torch.float16).to(torch.float8_e5m2)
        b = torch.randn((512, 512), device="cuda", dtype=torch.float16).T.to(torch.float8_e5m2)
        c.check("matmul fp8", m.matmul(a, b),
                torch.matmul(a.to(torch.float16), b.to(torch.float16)), atol=0.125)

    c.step("03 load", load)
    c.step("03 matmul fp16 (+ leaky_relu)", fp16)
    c.step("03 matmul fp8", fp8, amd=False)


def _attention(c: Context):
    m = c.tutorial("06-fused-attention.py", ["test_op", "attention", "supports_host_descriptor"])
    if c.target != "cuda":
        # On an AMD target the tutorial passes plain pointers (no host TMA
        # descriptors); the kernel makes its descriptors itself.
        m.supports_host_descriptor = lambda: False
    return m


def part_attn_a(c: Context) -> None:
    def bwd():
        # The tutorial's own test: forward (autotuned) and backward, causal.
        _attention(c).test_op(1, 2, 1024, 64, True, False, "bwd", "triton-fp16")

    c.step("06 fused attention fwd+bwd causal d64", bwd)


def part_attn_b(c: Context) -> None:
    import torch

    def ws():
        m = _attention(c)
        q, k, v = (torch.randn((1, 2, 1024, 128), dtype=torch.float16, device="cuda") for _ in range(3))
        # Non-causal with warp specialization: what the tutorial's sweep
        # enables on Hopper ("Enable warpspec for causal fwd on Hopper").
        m.attention(q, k, v, False, 0.5, True)

    c.step("06 fused attention fwd non-causal d128 warp-specialized", ws, amd=False)


def part_grouped(c: Context) -> None:
    import torch

    m = None

    def groups(transposed: bool):
        A, B = [], []
        for size in (1024, 512, 256, 128):  # the tutorial's group
            A.append(torch.rand((size, size), device="cuda", dtype=torch.float16))
            b = torch.rand((size, size), device="cuda", dtype=torch.float16)
            B.append(b.T.contiguous() if transposed else b)
        return A, B

    def load():
        nonlocal m
        m = c.tutorial("08-grouped-gemm.py", ["group_gemm_fn", "group_gemm_tma_fn"])

    def plain():
        A, B = groups(False)
        out = m.group_gemm_fn(A, B)
        for i, (a, b) in enumerate(zip(A, B)):
            c.check(f"grouped {i}", out[i], torch.matmul(a, b), rtol=1e-2)

    def tma():
        A, B = groups(True)
        out = m.group_gemm_tma_fn(A, B)
        for i, (a, b) in enumerate(zip(A, B)):
            c.check(f"grouped tma {i}", out[i], torch.matmul(a, b.T), rtol=1e-2)

    c.step("08 load", load)
    c.step("08 grouped gemm", plain)
    c.step("08 grouped gemm tma", tma, amd=False)


def _persistent(c: Context, names: list[str]):
    return c.tutorial("09-persistent-matmul.py", names)


def _ab(K=512):
    import torch

    a = torch.randn((512, K), device="cuda", dtype=torch.float16)
    b = torch.randn((K, 512), device="cuda", dtype=torch.float16)
    return a, b.T.contiguous()  # the tutorial's layout: b transposed


def part_pers_a(c: Context) -> None:
    import torch

    def persistent():
        m = _persistent(c, ["matmul_persistent"])
        a, bt = _ab()
        c.check("persistent", m.matmul_persistent(a, bt.T), torch.matmul(a, bt.T), atol=1.0)

    def tma():
        m = _persistent(c, ["matmul_tma"])
        a, bt = _ab()
        c.check("tma", m.matmul_tma(a, bt, False), torch.matmul(a, bt.T), atol=1.0)

    c.step("09 persistent", persistent)
    c.step("09 tma", tma, amd=False)


def part_pers_b(c: Context) -> None:
    import torch

    def tma_persistent():
        m = _persistent(c, ["matmul_tma_persistent"])
        a, bt = _ab()
        c.check("tma persistent", m.matmul_tma_persistent(a, bt, False), torch.matmul(a, bt.T), atol=1.0)

    c.step("09 tma persistent", tma_persistent, amd=False)


def part_pers_c(c: Context) -> None:
    import torch

    def descriptor_ws():
        m = _persistent(c, ["matmul_descriptor_persistent"])
        a, bt = _ab()
        # Warp-specialized device-descriptor matmul: the variant the
        # tutorial runs with warp specialization on Hopper.
        c.check("descriptor persistent ws", m.matmul_descriptor_persistent(a, bt, True),
                torch.matmul(a, bt.T), atol=1.0)

    c.step("09 descriptor persistent warp-specialized", descriptor_ws, amd=False)


def part_gluon(c: Context) -> None:
    def intro():
        m = c.tutorial("gluon/01-intro.py", ["test_copy_scalar", "test_memcpy", "memcpy_autotune"])
        m.test_copy_scalar()
        m.test_memcpy(64, 40)
        m.test_memcpy(64, 500)
        import torch

        x = torch.randn(1 << 16, device="cuda")
        y = torch.empty_like(x)
        m.memcpy_autotune(x, y)
        c.check("gluon memcpy autotune", y, x, atol=0)

    def tma():
        m = c.tutorial("gluon/04-tma.py", ["test_memcpy_1d_tma", "test_elementwise_add_pipelined"])
        m.test_memcpy_1d_tma(64, 500)
        for buffers in (1, 2, 3):
            m.test_elementwise_add_pipelined(1000, 2000, 32, 64, buffers)

    def wgmma():
        m = c.tutorial("gluon/05-wgmma.py", ["test_small_mma", "test_blocked_matmul"])
        for lhs_in_reg in (False, True):
            m.test_small_mma(64, 32, 32, lhs_in_reg, 16, 4)
        m.test_small_mma(64, 256, 128, False, 64, 8)
        for transpose in (False, True):
            m.test_blocked_matmul(208, 416, 304, 64, 64, 64, transpose, 4)
        m.test_blocked_matmul(208, 416, 304, 128, 128, 128, False, 8)

    c.step("gluon 01 intro", intro, amd=False)
    c.step("gluon 04 tma", tma, amd=False)
    c.step("gluon 05 wgmma", wgmma, amd=False)


PARTS = {
    "small": part_small,
    "matmul": part_matmul,
    "attn_a": part_attn_a,
    "attn_b": part_attn_b,
    "grouped": part_grouped,
    "pers_a": part_pers_a,
    "pers_b": part_pers_b,
    "pers_c": part_pers_c,
    "gluon": part_gluon,
}
# Parts that cross-compile for gfx942 (the others need NVIDIA-only features).
AMD_PARTS = ["small", "matmul", "attn_a", "grouped", "pers_a"]


# ---------------------------------------------------------------------------
# Benchmark shortening and gfx942 cross-compiles
# ---------------------------------------------------------------------------


def quick_benchmarker():
    """Replaces the autotuner's benchmarker: every config is still compiled
    and launched; one timed launch instead of ~100 ms of repetitions."""
    import torch
    import triton

    def bench(kernel_call, quantiles=None, **_):
        kernel_call()
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        kernel_call()
        end.record()
        torch.cuda.synchronize()
        ms = start.elapsed_time(end)
        return [ms] * len(quantiles) if quantiles else ms

    triton.runtime.driver.active.get_benchmarker = lambda: bench


def _skip_for_amd(sig: dict, constants: dict) -> str | None:
    text = " ".join(str(v) for v in sig.values())
    if "tensordesc" in text or "nvTmaDesc" in text:
        return "host TMA descriptor"
    if "fp8" in text:
        return "fp8 operands"
    return None


class SpecCollector:
    """knobs.runtime.jit_cache_hook: records what the JIT would compile and
    tells it to skip the compile (the launch then does not happen)."""

    def __init__(self):
        self.specs: list[dict] = []
        self.seen: set = set()

    def __call__(self, *, key=None, repr=None, fn=None, compile=None, **_):
        jit_fn = getattr(fn, "jit_function", None)
        sig = dict(compile["signature"])
        constants = dict(compile["constants"])
        attrs = dict(compile["configs"][0]) if compile.get("configs") else {}
        opts = {k: compile[k] for k in ("num_warps", "num_stages", "num_ctas")}
        ident = (getattr(jit_fn, "_fn_name", None), repr_key(sig), repr_key(constants),
                 repr_key(attrs), repr_key(opts))
        if ident not in self.seen:
            self.seen.add(ident)
            self.specs.append({"fn": jit_fn, "signature": sig, "constants": constants,
                               "attrs": attrs, "options": opts, "jit_key": str(key)})
        return True  # skip the compile for the GPU at hand


def repr_key(d: dict) -> str:
    return repr(sorted((str(k), str(v)) for k, v in d.items()))


def cross_compile(specs: list[dict], report: list[dict], arch: str) -> None:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    target = GPUTarget("hip", arch, 64)
    identities = set()
    for spec in specs:
        fn = spec["fn"]
        name = getattr(fn, "_fn_name", str(fn))
        constexprs = {k: v for k, v in spec["constants"].items()}
        row = {"kernel": name, "jit_key": spec["jit_key"], "options": spec["options"],
               "constexprs": {str(k): str(v) for k, v in constexprs.items()}}
        why = _skip_for_amd(spec["signature"], constexprs)
        if why is None and "USE_GDC" in fn.arg_names and \
                constexprs.get((fn.arg_names.index("USE_GDC"), )):
            why = "PDL intrinsics (NVIDIA only)"
        # A direct compile is recorded without a JIT key, so its identity is
        # kernel + constexprs + options; two specs that differ only in the
        # arguments' types or divisibility would be indistinguishable.
        ident = (name, repr_key(constexprs), repr_key(spec["options"]))
        if why is None and ident in identities:
            why = "same kernel, constexprs and options as an earlier spec (other argument types)"
        if why:
            row["skipped"] = why
            report.append(row)
            continue
        identities.add(ident)
        t0 = time.time()
        try:
            k = triton.compile(ASTSource(fn, spec["signature"], constexprs, spec["attrs"]),
                               target=target, options=dict(spec["options"]))
            row["cache_hash"] = k.hash
            row["ok"] = True
        except Exception as e:  # noqa: BLE001
            row["ok"] = False
            row["error"] = f"{type(e).__name__}: {e}"[:2000]
            print(f"[drive] gfx942 {name} failed: {row['error']}", file=sys.stderr)
        row["seconds"] = round(time.time() - t0, 2)
        report.append(row)


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--tutorials", required=True)
    p.add_argument("--part", required=True, help="a part, or several joined by commas")
    p.add_argument("--target", default="cuda", help="cuda, or an AMD arch (gfx942)")
    p.add_argument("--report")
    a = p.parse_args()

    import torch
    import triton

    torch.manual_seed(0)
    quick_benchmarker()

    def alloc(size: int, alignment: int, stream):
        return torch.empty(size, device="cuda", dtype=torch.int8)

    triton.set_allocator(alloc)
    parts = a.part.split(",")
    unknown = [x for x in parts if x not in PARTS]
    if unknown:
        p.error(f"unknown part(s) {unknown}; known: {sorted(PARTS)}")
    c = Context(os.path.abspath(a.tutorials), a.target)
    collector = None
    if a.target != "cuda":
        parts = [x for x in parts if x in AMD_PARTS]
        collector = SpecCollector()
        triton.knobs.runtime.jit_cache_hook = collector
    t0 = time.time()
    for part in parts:
        PARTS[part](c)
    report = {"part": a.part, "target": a.target, "tutorials": c.tutorials,
              "launching": LAUNCHING, "steps": c.steps, "triton": triton.__version__,
              "torch": torch.__version__}
    if collector is not None:
        triton.knobs.runtime.jit_cache_hook = None
        report["cross_compiles"] = []
        cross_compile(collector.specs, report["cross_compiles"], a.target)
    report["seconds"] = round(time.time() - t0, 2)
    if a.report:
        with open(a.report, "w") as f:
            json.dump(report, f, indent=1, default=str)
    failed = [s for s in c.steps if s.get("ok") is False and "part_step" in s]
    print(f"[drive] part {a.part} ({a.target}) done in {report['seconds']} s, "
          f"{len(failed)} failed steps", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

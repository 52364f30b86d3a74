"""Benchmark-style script for ksnap's GPU capture checks (Triton 3.6, CUDA).

An autotuned fp16 matmul (8 configs) swept over MATMUL_SHAPES through
``triton.testing.perf_report`` (10 shapes: 7 multiples of 16, 3 ragged ones
that Triton specializes differently), then one softmax, one layer norm and
one attention forward. It knows nothing about ksnap: run it under
``python -m ksnap_triton capture -o OUT -- gpu/capture/bench_suite.py``.

    bench_suite.py [--quick] [--no-check]

--quick: the first 3 matmul shapes only. --no-check: skip the comparisons
with PyTorch (needed under --no-launch, where kernels never run).
"""

import argparse
import os
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import suite_kernels as sk  # noqa: E402

MATMUL_SHAPES = [
    (256, 256, 256), (512, 512, 512), (768, 768, 768), (1024, 1024, 1024),
    (1536, 1536, 1536), (2048, 2048, 2048), (512, 1024, 2048),
    (1000, 1000, 1000), (1500, 1500, 1500), (3000, 1000, 2000),
]
QUICK_SHAPES = MATMUL_SHAPES[:3]
SOFTMAX_SHAPE = (4096, 1000)
LAYER_NORM_SHAPE = (4096, 1024)
ATTN_SHAPE = (4, 8, 1024, 64)


def check(name, got, want, atol, rtol):
    if not torch.allclose(got.float(), want.float(), atol=atol, rtol=rtol):
        err = (got.float() - want.float()).abs().max().item()
        raise SystemExit(f"{name}: result differs from PyTorch (max abs error {err:.4g})")


def make_matmul_bench(shapes, verify):
    @triton.testing.perf_report(triton.testing.Benchmark(
        x_names=["M", "N", "K"], x_vals=shapes, line_arg="provider", line_vals=["triton"],
        line_names=["Triton"], ylabel="TFLOP/s", plot_name="matmul-fp16", args={}))
    def bench_matmul(M, N, K, provider):
        torch.manual_seed(0)
        a = torch.randn((M, K), device="cuda", dtype=torch.float16)
        b = torch.randn((K, N), device="cuda", dtype=torch.float16)
        if verify:
            check(f"matmul {M}x{N}x{K}", sk.matmul(a, b), torch.matmul(a, b), atol=0.1, rtol=1e-2)
        ms = triton.testing.do_bench(lambda: sk.matmul(a, b), warmup=10, rep=30)
        return 2 * M * N * K * 1e-12 / (ms * 1e-3)

    return bench_matmul


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    p.add_argument("--no-check", action="store_true")
    args = p.parse_args(argv)
    verify = not args.no_check
    make_matmul_bench(QUICK_SHAPES if args.quick else MATMUL_SHAPES, verify).run(
        print_data=True, show_plots=False)

    torch.manual_seed(0)
    x = torch.randn(SOFTMAX_SHAPE, device="cuda", dtype=torch.float32)
    y = sk.softmax(x)
    if verify:
        check("softmax", y, torch.softmax(x, dim=1), atol=1e-5, rtol=1e-4)
    print(f"softmax {SOFTMAX_SHAPE}: {triton.testing.do_bench(lambda: sk.softmax(x)):.4f} ms")

    x = torch.randn(LAYER_NORM_SHAPE, device="cuda", dtype=torch.float16)
    w = torch.rand(LAYER_NORM_SHAPE[1], device="cuda", dtype=torch.float16)
    b = torch.randn(LAYER_NORM_SHAPE[1], device="cuda", dtype=torch.float16)
    y = sk.layer_norm(x, w, b)
    if verify:
        ref = torch.nn.functional.layer_norm(x.float(), (LAYER_NORM_SHAPE[1],), w.float(), b.float())
        check("layer_norm", y, ref, atol=1e-2, rtol=1e-2)
    print(f"layer_norm {LAYER_NORM_SHAPE}: "
          f"{triton.testing.do_bench(lambda: sk.layer_norm(x, w, b)):.4f} ms")

    q, k, v = (torch.randn(ATTN_SHAPE, device="cuda", dtype=torch.float16) for _ in range(3))
    scale = ATTN_SHAPE[-1] ** -0.5
    o = sk.attention(q, k, v, scale)
    if verify:
        ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=scale)
        check("attention", o, ref, atol=2e-2, rtol=2e-2)
    print(f"attention {ATTN_SHAPE}: "
          f"{triton.testing.do_bench(lambda: sk.attention(q, k, v, scale)):.4f} ms")
    print("bench_suite: done" + ("" if verify else " (results not checked)"))


if __name__ == "__main__":
    main()

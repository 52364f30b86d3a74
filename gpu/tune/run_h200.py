"""gpu/tune/run_h200.py: ksnap's autotuner against triton.autotune on one GPU.

Run on the GPU machine from the repo root (see gpu/tune/run.sh):
  1. compiles Triton's matmul tutorial kernel for the 8 configs of the H200
     samples and writes a ksnap capture (manifest.json + cache/<dir>/
     matmul_kernel.{cubin,json}) to $OUT/capture (kept small: no IR);
  2. per shape, times triton.autotune's first call with every config already
     compiled (so compile is excluded) and records its choice;
  3. runs build-tune-gpu/tune_gpu on the capture (ground truth, ksnap ahead-
     of-time and online tuning, dispatch overhead), then merges both into
     $OUT/tune_h200.json and prints a table.
"""
import json
import os
import subprocess
import sys
import time

import torch
import triton
import triton.language as tl

OUT = os.environ.get("OUT", "/tmp/out")
CONFIGS = [  # BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, num_stages, num_warps (as in the samples)
    (128, 256, 64, 8, 3, 8), (64, 256, 32, 8, 4, 4), (128, 128, 32, 8, 4, 4),
    (128, 64, 32, 8, 4, 4), (64, 128, 32, 8, 4, 4), (128, 32, 32, 8, 4, 4),
    (64, 32, 32, 8, 5, 2), (32, 64, 32, 8, 5, 2)]
SHAPES = [(512, 512, 512), (2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 1024),
          (128, 8192, 8192), (16384, 64, 4096)]


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                  BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(tl.float16)
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


def launch(kernel, a, b, c, cfg):
    M, K = a.shape
    _, N = b.shape
    bm, bn, bk, gm, stages, warps = cfg
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
    return kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                        c.stride(0), c.stride(1), BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn,
                        BLOCK_SIZE_K=bk, GROUP_SIZE_M=gm, num_stages=stages, num_warps=warps)


def wrong_matmul_kernel(root):
    """The injected wrong variant of the verification proof (proofs.cc
    `verify`): matmul_kernel's own source with its K loop cut to the first
    half, so it is the fastest variant and its C is wrong. Same name and
    arguments, so a capture holds it as one more variant of the group."""
    import importlib.util
    import inspect
    src = inspect.getsource(getattr(matmul_kernel, "fn", matmul_kernel))  # the JITFunction's Python function
    loop = "for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):"
    assert loop in src
    src = src.replace(loop, "for k in range(0, tl.cdiv(K, BLOCK_SIZE_K) // 2):  # the bug")
    path = os.path.join(root, "wrong_kernel.py")  # Triton reads a kernel's source from its file
    with open(path, "w") as f:
        f.write("import triton\nimport triton.language as tl\n\n\n" + src)
    spec = importlib.util.spec_from_file_location("wrong_kernel", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.matmul_kernel


def meta_dict(ck):
    md = ck.metadata
    d = md._asdict() if hasattr(md, "_asdict") else dict(vars(md))
    out = {}
    for k, v in d.items():
        try:
            json.dumps(v)
            out[k] = v
        except TypeError:
            out[k] = v._asdict() if hasattr(v, "_asdict") else str(v)
    return out


def write_capture(root, inject_wrong=False):
    """Compiles the 8 configs and writes a ksnap capture of them. With
    inject_wrong, a 9th variant: wrong_matmul_kernel (half of K, fast and
    wrong) with the first config's tiles and GROUP_SIZE_M 4."""
    os.makedirs(os.path.join(root, "cache"), exist_ok=True)
    a = torch.randn(512, 512, device="cuda", dtype=torch.float16)
    b = torch.randn(512, 512, device="cuda", dtype=torch.float16)
    c = torch.empty(512, 512, device="cuda", dtype=torch.float16)
    entries = []
    kernels = [(matmul_kernel, cfg) for cfg in CONFIGS]
    if inject_wrong:
        kernels.append((wrong_matmul_kernel(root), CONFIGS[0][:3] + (4,) + CONFIGS[0][4:]))
    for i, (kernel, cfg) in enumerate(kernels):
        t0 = time.perf_counter()
        ck = launch(kernel, a, b, c, cfg)
        torch.cuda.synchronize()
        compile_s = time.perf_counter() - t0
        d = f"cfg{i}"
        os.makedirs(os.path.join(root, "cache", d), exist_ok=True)
        with open(os.path.join(root, "cache", d, "matmul_kernel.cubin"), "wb") as f:
            f.write(ck.asm["cubin"])
        with open(os.path.join(root, "cache", d, "matmul_kernel.json"), "w") as f:
            json.dump(meta_dict(ck), f)
        bm, bn, bk, gm, stages, warps = cfg
        entries.append({"kernel": "matmul_kernel",
                        "constexprs": {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn,
                                       "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": gm},
                        "options": {"num_stages": stages, "num_warps": warps},
                        "cache_dir": d, "compile_s": round(compile_s, 3),
                        "n_regs": getattr(ck, "n_regs", None),
                        "n_spills": getattr(ck, "n_spills", None),
                        "shared": meta_dict(ck).get("shared")})
    manifest = {"format": "ksnap-capture", "format_version": 1, "build": "h200-tune",
                "triton_version": triton.__version__, "arch": "sm90", "entries": entries}
    with open(os.path.join(root, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return entries


def triton_autotune_runs():
    configs = [triton.Config({"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk,
                              "GROUP_SIZE_M": gm}, num_stages=s, num_warps=w)
               for bm, bn, bk, gm, s, w in CONFIGS]
    results = []
    for shape in SHAPES:
        M, N, K = shape
        a = torch.randn(M, K, device="cuda", dtype=torch.float16)
        b = torch.randn(K, N, device="cuda", dtype=torch.float16)
        c = torch.empty(M, N, device="cuda", dtype=torch.float16)
        for cfg in CONFIGS:  # compile every config for this specialization first
            launch(matmul_kernel, a, b, c, cfg)
        torch.cuda.synchronize()
        tuned = triton.autotune(configs=configs, key=["M", "N", "K"])(matmul_kernel)
        grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]),)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        tuned[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                    c.stride(0), c.stride(1))
        torch.cuda.synchronize()
        first_call_s = time.perf_counter() - t0
        best = tuned.best_config
        kw = best.kwargs
        choice = next(i for i, (bm, bn, bk, gm, s, w) in enumerate(CONFIGS)
                      if (kw["BLOCK_SIZE_M"], kw["BLOCK_SIZE_N"], kw["BLOCK_SIZE_K"], best.num_stages,
                          best.num_warps) == (bm, bn, bk, s, w))
        ok = torch.allclose(c.float(), (a.float() @ b.float()), atol=0.5, rtol=0.02)
        # Python launch overhead of the tuned kernel (host side, committed config).
        torch.cuda.synchronize()
        n = 200
        t0 = time.perf_counter()
        for _ in range(n):
            tuned[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                        c.stride(0), c.stride(1))
        launch_us = (time.perf_counter() - t0) / n * 1e6
        torch.cuda.synchronize()
        results.append({"shape": list(shape), "autotune_first_call_s": first_call_s,
                        "autotune_choice": choice, "correct": bool(ok),
                        "triton_launch_us": launch_us})
        print(f"triton.autotune {M}x{N}x{K}: {first_call_s:.3f} s, choice v{choice}, "
              f"launch {launch_us:.1f} us", flush=True)
    return results


def main():
    os.makedirs(OUT, exist_ok=True)
    cap = os.path.join(OUT, "capture")
    print("torch", torch.__version__, "triton", triton.__version__,
          torch.cuda.get_device_name(0), flush=True)
    entries = write_capture(cap)
    print("capture written:", [e["cache_dir"] for e in entries], flush=True)
    tri = triton_autotune_runs()
    torch.cuda.synchronize()
    exe = os.path.join(os.getcwd(), "build-tune-gpu", "tune_gpu")
    ks_json = os.path.join(OUT, "ksnap_gpu.json")
    shapes = ["%dx%dx%d" % s for s in SHAPES]
    p = subprocess.run([exe, cap, ks_json] + shapes, capture_output=True, text=True)
    print(p.stdout[-6000:], p.stderr[-3000:], flush=True)
    if p.returncode != 0:
        print("tune_gpu failed with", p.returncode)
        sys.exit(1)
    ks = json.load(open(ks_json))
    rows = []
    for t, k in zip(tri, ks["shapes"]):
        truth = k["truth_median_us"]
        best = min(truth)
        rows.append({"shape": t["shape"], "truth_median_us": truth, "truth_best": k["truth_best"],
                     "triton_autotune_s": t["autotune_first_call_s"],
                     "triton_choice": t["autotune_choice"],
                     "triton_within_1pct": truth[t["autotune_choice"]] <= 1.01 * best,
                     "triton_choice_vs_best": truth[t["autotune_choice"]] / best - 1,
                     "triton_launch_us": t["triton_launch_us"],
                     "ksnap_aot": k["ksnap_aot"], "ksnap_online": k["ksnap_online"],
                     "ksnap_aot_vs_best": truth[k["ksnap_aot"]["choice"]] / best - 1,
                     "truth_after_median_us": k.get("truth_after_median_us"),
                     "triton_within_1pct_after": (k["truth_after_median_us"][t["autotune_choice"]] <=
                                                  1.01 * min(k["truth_after_median_us"])),
                     "max_rel_error": k["max_rel_error"]})
    summary = {"device": ks["device"], "variants": ks["variants"], "rows": rows,
               "overhead": ks["overhead"], "aot_report": ks.get("aot_report")}
    with open(os.path.join(OUT, "tune_h200.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print("\n| shape | best (truth) | triton.autotune s | choice | ksnap AOT s | choice | online calls |")
    for r in rows:
        print("| %s | v%d %.1f us | %.3f | v%d (%+.2f%%) | %.4f | v%d (%+.2f%%) %s | %d |" % (
            "x".join(map(str, r["shape"])), r["truth_best"], min(r["truth_median_us"]),
            r["triton_autotune_s"], r["triton_choice"], 100 * r["triton_choice_vs_best"],
            r["ksnap_aot"]["wall_s"], r["ksnap_aot"]["choice"], 100 * r["ksnap_aot_vs_best"],
            r["ksnap_aot"]["decision"], r["ksnap_online"]["dispatches_to_commit"]))
    print("overhead", ks["overhead"])


if __name__ == "__main__":
    main()

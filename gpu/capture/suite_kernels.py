"""The kernels of the GPU capture suite: an autotuned fp16 matmul (8 configs),
a row softmax, a layer-norm forward and a flash-attention forward (Triton 3.6).

Written for ksnap's capture tests (bench_suite.py runs them benchmark-style);
the algorithms are the standard ones (grouped-tile matmul, online softmax).
"""

import torch
import triton
import triton.language as tl

# The 8 fp16 configurations of Triton's matmul tutorial autotune list for CUDA
# (BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, GROUP_SIZE_M, num_stages, num_warps).
MATMUL_CONFIG_TABLE = [
    (128, 256, 64, 8, 3, 8),
    (64, 256, 32, 8, 4, 4),
    (128, 128, 32, 8, 4, 4),
    (128, 64, 32, 8, 4, 4),
    (64, 128, 32, 8, 4, 4),
    (128, 32, 32, 8, 4, 4),
    (64, 32, 32, 8, 5, 2),
    (32, 64, 32, 8, 5, 2),
]
MATMUL_CONFIGS = [
    triton.Config({"BLOCK_SIZE_M": m, "BLOCK_SIZE_N": n, "BLOCK_SIZE_K": k, "GROUP_SIZE_M": g},
                  num_stages=s, num_warps=w)
    for (m, n, k, g, s, w) in MATMUL_CONFIG_TABLE
]


@triton.autotune(configs=MATMUL_CONFIGS, key=["M", "N", "K"])
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                  BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    pids_per_group = GROUP_SIZE_M * num_pid_n
    group = pid // pids_per_group
    first_m = group * GROUP_SIZE_M
    rows_in_group = min(num_pid_m - first_m, GROUP_SIZE_M)
    pid_m = first_m + ((pid % pids_per_group) % rows_in_group)
    pid_n = (pid % pids_per_group) // rows_in_group
    offs_m = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_n = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_tile = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_tile = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for kk in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        k_left = K - kk * BLOCK_SIZE_K
        a = tl.load(a_tile, mask=offs_k[None, :] < k_left, other=0.0)
        b = tl.load(b_tile, mask=offs_k[:, None] < k_left, other=0.0)
        acc = tl.dot(a, b, acc)
        a_tile += BLOCK_SIZE_K * stride_ak
        b_tile += BLOCK_SIZE_K * stride_bk
    rows = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    cols = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_tile = c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn
    tl.store(c_tile, acc.to(tl.float16), mask=(rows[:, None] < M) & (cols[None, :] < N))


def matmul(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_SIZE_M"]) * triton.cdiv(N, meta["BLOCK_SIZE_N"]),)
    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                        c.stride(0), c.stride(1))
    return c


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * out_row_stride + cols, num / tl.sum(num, axis=0), mask=mask)


def softmax(x):
    rows, cols = x.shape
    y = torch.empty_like(x)
    softmax_kernel[(rows,)](y, x, x.stride(0), y.stride(0), cols,
                            BLOCK_SIZE=triton.next_power_of_2(cols), num_warps=8)
    return y


@triton.jit
def layer_norm_fwd(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, N, eps,
                   BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < N
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    centered = tl.where(mask, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(centered * centered, axis=0) / N + eps)
    w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask).to(tl.float32)
    tl.store(y_ptr + row * stride + cols, (centered * rstd * w + b).to(tl.float16), mask=mask)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)


def layer_norm(x, w, b, eps=1e-5):
    rows, n = x.shape
    y = torch.empty_like(x)
    mean = torch.empty(rows, device=x.device, dtype=torch.float32)
    rstd = torch.empty(rows, device=x.device, dtype=torch.float32)
    layer_norm_fwd[(rows,)](x, y, w, b, mean, rstd, x.stride(0), n, eps,
                            BLOCK_SIZE=triton.next_power_of_2(n), num_warps=8)
    return y


@triton.jit
def attn_fwd(Q, K, V, Out, sm_scale, stride_head, N_CTX,
             HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    start_m = tl.program_id(0)
    base = tl.program_id(1).to(tl.int64) * stride_head
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :],
                mask=offs_m[:, None] < N_CTX, other=0.0)
    m_i = tl.full([BLOCK_M], -float("inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    qk_scale = sm_scale * 1.44269504  # log2(e): exp via exp2
    for start_n in range(0, N_CTX, BLOCK_N):
        cols = start_n + offs_n
        k = tl.load(K + base + cols[None, :] * HEAD_DIM + offs_d[:, None],
                    mask=cols[None, :] < N_CTX, other=0.0)
        qk = tl.dot(q, k) * qk_scale
        qk = tl.where(cols[None, :] < N_CTX, qk, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(V + base + cols[:, None] * HEAD_DIM + offs_d[None, :],
                    mask=cols[:, None] < N_CTX, other=0.0)
        acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None])
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(Out + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], out.to(tl.float16),
             mask=offs_m[:, None] < N_CTX)


def attention(q, k, v, sm_scale):
    z, h, n_ctx, d = q.shape
    o = torch.empty_like(q)
    grid = (triton.cdiv(n_ctx, 128), z * h)
    attn_fwd[grid](q, k, v, o, sm_scale, n_ctx * d, n_ctx, HEAD_DIM=d, BLOCK_M=128, BLOCK_N=64,
                   num_warps=4, num_stages=3)
    return o

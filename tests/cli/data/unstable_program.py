"""A benchmark-like program for `ksnap capture --repeat` tests, run against
the Triton stand-in (python/tests/fake_triton): it compiles two kernels, then
stands in for a nondeterministic compiler by replacing the IR the stand-in
wrote with real Triton 3.6 IR (attn_fwd of examples/corpus) -- in every
other run with two @global_smem buffer offsets swapped (8192 and 16384), the
way Triton's warp-specialized persistent matmul compiles in another process.

    unstable_program.py COUNTER_FILE REAL_LLIR
COUNTER_FILE counts the runs across processes; REAL_LLIR is the IR to use.
"""

import glob
import os
import sys

import triton


@triton.jit
def steady_kernel(x, n, BLOCK: "tl.constexpr"):
    pass


@triton.jit
def racy_kernel(x, n, BLOCK: "tl.constexpr"):
    pass


def main() -> int:
    counter, real_llir = sys.argv[1], sys.argv[2]
    run = int(open(counter).read()) + 1 if os.path.exists(counter) else 1
    with open(counter, "w") as f:
        f.write(str(run))
    steady_kernel[(1,)](object(), 64, BLOCK=128)
    racy_kernel[(1,)](object(), 64, BLOCK=128)
    text = open(real_llir).read()
    cache = os.environ["TRITON_CACHE_DIR"]
    for path in glob.glob(os.path.join(cache, "*", "steady_kernel.llir")):
        with open(path, "w") as f:
            f.write(text)
    if run % 2 == 0:
        a, b = "@global_smem, i32 8192)", "@global_smem, i32 16384)"
        text = text.replace(a, "\x01").replace(b, a).replace("\x01", b)
    for path in glob.glob(os.path.join(cache, "*", "racy_kernel.llir")):
        with open(path, "w") as f:
            f.write(text)
    print(f"run {run}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

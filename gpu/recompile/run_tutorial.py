"""Runs one of Triton's tutorial scripts unchanged, its benchmark sweep cut short.

    run_tutorial.py TUTORIAL.py [--points N] [--rep MS]

The tutorial runs as ``__main__`` (its kernels, checks and benchmark code as
written); only ``triton.testing``'s sweep and timing are trimmed so that a
capture of several tutorials fits a short GPU session: each
``triton.testing.Benchmark`` keeps N evenly spaced ``x_vals`` (first and last
included), ``do_bench`` runs ``rep`` ms instead of 100, and plots are off.
"""

import argparse
import runpy
import sys

import triton.testing as tt


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("tutorial")
    ap.add_argument("--points", type=int, default=3)
    ap.add_argument("--rep", type=float, default=5.0)
    args = ap.parse_args()

    original_init = tt.Benchmark.__init__

    def init(self, *a, **k):
        original_init(self, *a, **k)
        xs = list(self.x_vals)
        if len(xs) > args.points:
            if args.points <= 1:
                self.x_vals = xs[:1]
            else:
                step = (len(xs) - 1) / (args.points - 1)
                self.x_vals = [xs[round(i * step)] for i in range(args.points)]

    tt.Benchmark.__init__ = init
    original_bench = tt.do_bench

    def do_bench(fn, warmup=25, rep=100, *a, **k):
        return original_bench(fn, min(warmup, 2), min(rep, args.rep), *a, **k)

    tt.do_bench = do_bench
    original_run = tt.Mark.run

    def run(self, *a, **k):
        k["show_plots"] = False
        k.pop("save_path", None)
        return original_run(self, *a, **k)

    tt.Mark.run = run
    sys.argv = [args.tutorial]
    runpy.run_path(args.tutorial, run_name="__main__")


if __name__ == "__main__":
    main()

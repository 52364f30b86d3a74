"""``python -m ksnap_triton capture|merge`` (also run by ``ksnap capture|merge``).

    capture -o OUT [--build NAME] [--no-launch] [--arch ARCH] [--no-track-launches]
            -- PROGRAM [ARGS...]
    merge OUT [SHARD...] [--build NAME]
    recompile CAPTURE -o OUT [--target T] [--jobs N] [--shard i/n] [--timeout S]
              [--kernel NAME]... [--no-sass] [--build NAME] [--python PATH]
    explain-compile CAPTURE --cache-dir D --kernel K -o OUT [--python PATH]
              [--env NAME=VALUE]... [--unset NAME]...     (see explain.py)
    affected FILE [--pytest] [--script S]    (see affected.py)

``capture`` runs PROGRAM unchanged with the recorder installed:

* ``script.py ARGS``, ``-m module ARGS`` or ``-c CODE``: in this process (runpy);
* anything else (``python bench.py``, ``pytest -n 8``, a shell script): as a
  child process; every Python process below it that imports Triton records
  into OUT through the bootstrap ``sitecustomize`` put on PYTHONPATH.

Then the shards are merged into ``OUT/manifest.json``. The exit status is
the program's; 2 for usage errors or a failed merge.

Worked example::

    python -m ksnap_triton capture -o /tmp/cap -- bench/gemm.py --sizes 512,1024
    python -m ksnap_triton merge ci/all ci/shard-0 ci/shard-1
"""

from __future__ import annotations

import argparse
import json
import os
import runpy
import subprocess
import sys
from typing import Sequence

from . import merge as merge_mod
from . import session

EXIT_USAGE = 2

__all__ = ["main", "parse_args", "capture_environment", "split_program"]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ksnap_triton",
                                description="Record every Triton kernel variant a program compiles.")
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("capture", help="run a program and capture its kernel variants")
    c.add_argument("-o", "--output", required=True, help="capture folder (created)")
    c.add_argument("--build", help="build name in the manifest (default: folder name)")
    c.add_argument("--no-launch", action="store_true",
                   help="compile and record only; kernels never run (results are wrong)")
    c.add_argument("--arch", help="compile for this target (sm_80, sm90a, gfx942); "
                                  "implies --no-launch")
    c.add_argument("--no-track-launches", action="store_true",
                   help="do not follow launches (no 'launched', no benchmark points after compile)")
    c.add_argument("program", nargs=argparse.REMAINDER, help="-- PROGRAM [ARGS...]")
    m = sub.add_parser("merge", help="join shard captures into OUT/manifest.json")
    m.add_argument("output", help="capture folder to merge into")
    m.add_argument("shards", nargs="*", help="other capture folders")
    m.add_argument("--build", help="build name in the manifest")
    r = sub.add_parser("recompile", help="rebuild every recorded variant with the installed "
                                         "Triton, for any target, without running the program")
    r.add_argument("capture", help="capture folder whose variants carry recompile records")
    r.add_argument("-o", "--output", required=True, help="new capture folder (created)")
    r.add_argument("--target", help="cuda:90, cuda:80, hip:gfx942, ... (default: the capture's)")
    r.add_argument("--jobs", "-j", type=int, help="worker processes (default: CPU count)")
    r.add_argument("--shard", help="i/n: rebuild only this runner's share (join with merge)")
    r.add_argument("--timeout", type=float, default=900.0,
                   help="seconds one variant may compile before its worker is killed (0: none)")
    r.add_argument("--kernel", action="append", help="only variants of this kernel (repeatable)")
    r.add_argument("--no-sass", action="store_true", help="do not disassemble cubins")
    r.add_argument("--build", help="build name in the manifest (default: folder name)")
    r.add_argument("--trust-module", action="append", metavar="MODULE",
                   help="a kernel library the capture used: its records may import it, and "
                        "its plain Python helpers are taken from the installed module "
                        "(repeatable; see docs/hostile-input.md)")
    r.add_argument("--python", metavar="PATH",
                   help="interpreter whose Triton compiles (default: this one); compare two "
                        "Triton builds by recompiling one capture under each")
    e = sub.add_parser("explain-compile", help="rebuild one variant with IR dumped after every "
                                               "pass (ksnap explain runs this per side)")
    e.add_argument("capture", help="capture folder")
    e.add_argument("--cache-dir", required=True, help="the variant's cache folder name")
    e.add_argument("--kernel", required=True, help="the variant's kernel name")
    e.add_argument("-o", "--output", required=True, help="folder for passes.log, explain.json")
    e.add_argument("--python", metavar="PATH", help="interpreter whose Triton compiles")
    e.add_argument("--env", action="append", metavar="NAME=VALUE",
                   help="set for the compile (repeatable)")
    e.add_argument("--unset", action="append", metavar="NAME",
                   help="removed from the compile's environment (repeatable)")
    e.add_argument("--timeout", type=float, default=900.0, help="seconds (0: none)")
    e.add_argument("--trust-module", action="append", metavar="MODULE",
                   help="as for recompile (repeatable)")
    return p


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """Parses and validates; raises SystemExit(2) with a message on bad usage."""
    parser = _parser()
    args = parser.parse_args(list(argv))
    if args.command == "capture":
        program = list(args.program)
        if program and program[0] == "--":
            program = program[1:]
        if not program:
            parser.error("capture: no program given (use: capture -o OUT -- PROGRAM ARGS...)")
        args.program = program
        if args.arch:
            from .hooks import normalize_arch

            try:
                args.arch = normalize_arch(args.arch)
            except ValueError as e:
                parser.error(f"--arch: {e}")
            args.no_launch = True
    return args


def split_program(program: list[str]) -> tuple[str, str | None, list[str]]:
    """How to run PROGRAM: ("script", path, argv), ("module", name, argv),
    ("code", text, argv) in this process, or ("exec", None, program) as a
    child process."""
    if program[0] == "-m" and len(program) > 1:
        return "module", program[1], [program[1]] + program[2:]
    if program[0] == "-c" and len(program) > 1:
        return "code", program[1], ["-c"] + program[2:]
    if program[0].endswith(".py"):
        return "script", program[0], program
    return "exec", None, program


def _main_script(program: list[str]) -> str | None:
    """The .py file a command line runs, if one is visible (for the manifest)."""
    for arg in program:
        if arg.endswith(".py") and os.path.isfile(arg):
            return os.path.abspath(arg)
    return None


def capture_environment(args: argparse.Namespace, base: dict | None = None) -> dict:
    """The environment for the captured program and its child processes."""
    env = dict(os.environ if base is None else base)
    out = os.path.abspath(args.output)
    here = os.path.dirname(os.path.abspath(__file__))
    bootstrap = os.path.join(here, "_bootstrap")
    package_parent = os.path.dirname(here)
    # The bootstrap imports this very package by path (KSNAP_CAPTURE_PLUGIN).
    # Its parent goes on PYTHONPATH only when it is a folder of its own (the
    # source tree, share/ksnap/python): an installed plugin's site-packages
    # would shadow the packages of the program's interpreter.
    shared = os.path.basename(package_parent) in ("site-packages", "dist-packages")
    front = [bootstrap] if shared else [bootstrap, package_parent]
    parts = front + [p for p in env.get("PYTHONPATH", "").split(os.pathsep)
                     if p and p not in (bootstrap, package_parent)]
    env["PYTHONPATH"] = os.pathsep.join(parts)
    env[session.ENV_PLUGIN] = here
    env[session.ENV_DIR] = out
    env[session.ENV_ARGV] = json.dumps(list(args.program))
    script = _main_script(list(args.program))
    if script:
        env[session.ENV_SCRIPT] = script
    else:
        env.pop(session.ENV_SCRIPT, None)
    env["TRITON_CACHE_DIR"] = os.path.join(out, "cache")
    for name, on in ((session.ENV_NO_LAUNCH, args.no_launch),
                     (session.ENV_NO_TRACK, args.no_track_launches)):
        if on:
            env[name] = "1"
        else:
            env.pop(name, None)
    if args.arch:
        env[session.ENV_ARCH] = args.arch
        env["TRITON_OVERRIDE_ARCH"] = args.arch
    else:
        env.pop(session.ENV_ARCH, None)
    return env


def _run_in_process(kind: str, target: str, argv: list[str]) -> int:
    saved_argv = sys.argv
    sys.argv = argv
    if kind == "script":
        sys.path.insert(0, os.path.dirname(os.path.abspath(target)))
    try:
        if session.start_from_env() is None:
            return EXIT_USAGE
        if kind == "script":
            runpy.run_path(target, run_name="__main__")
        elif kind == "code":
            sys.path.insert(0, "")
            exec(compile(target, "<string>", "exec"), {"__name__": "__main__"})
        else:
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        return 0
    except SystemExit as e:
        code = e.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code
        print(code, file=sys.stderr)
        return 1
    finally:
        sys.argv = saved_argv
        rec = session.active_recorder()
        if rec is not None:
            rec.flush()


def _summary(out: str, m: dict) -> str:
    entries = m["entries"]
    kernels = {e.get("qualname") or e["kernel"] for e in entries}
    launched = sum(1 for e in entries if e.get("launched"))
    def count(n: int, what: str) -> str:
        return f"{n} {what}{'' if n == 1 else 's'}"
    return (f"ksnap_triton: {count(len(entries), 'variant')} of {count(len(kernels), 'kernel')} "
            f"({launched} launched) in {os.path.join(out, 'manifest.json')}")


def _capture(args: argparse.Namespace) -> int:
    out = os.path.abspath(args.output)
    os.makedirs(os.path.join(out, "cache"), exist_ok=True)
    env = capture_environment(args)
    kind, target, argv = split_program(args.program)
    if kind == "exec":
        try:
            rc = subprocess.call(args.program, env=env)
        except OSError as e:
            print(f"ksnap_triton: cannot run {args.program[0]!r}: {e.strerror}", file=sys.stderr)
            return EXIT_USAGE
        rc = 128 - rc if rc < 0 else rc  # killed by a signal
    else:
        os.environ.clear()
        os.environ.update(env)
        rc = _run_in_process(kind, target or "", argv)
    try:
        m, warnings = merge_mod.merge_captures(out, build=args.build)
    except (merge_mod.MergeError, OSError) as e:
        print(f"ksnap_triton: merge failed: {e}", file=sys.stderr)
        return EXIT_USAGE
    for w in warnings:
        print(f"ksnap_triton: warning: {w}", file=sys.stderr)
    print(_summary(out, m), file=sys.stderr)
    if args.no_launch:
        print("ksnap_triton: --no-launch: no kernel ran; results the program computed or "
              "checked are wrong", file=sys.stderr)
    if not m["entries"] and rc == 0:
        print("ksnap_triton: warning: the program compiled no Triton kernel", file=sys.stderr)
    return rc


def _merge(args: argparse.Namespace) -> int:
    try:
        m, warnings = merge_mod.merge_captures(args.output, args.shards, build=args.build)
    except (merge_mod.MergeError, OSError) as e:
        print(f"ksnap_triton: merge failed: {e}", file=sys.stderr)
        return EXIT_USAGE
    for w in warnings:
        print(f"ksnap_triton: warning: {w}", file=sys.stderr)
    print(_summary(os.path.abspath(args.output), m), file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["affected"]:  # ksnap diff --affected output -> pytest ids / points
        from . import affected

        return affected.main(argv[1:])
    args = parse_args(argv)
    if args.command == "recompile":
        from . import recompile

        return recompile.main_args(args)
    if args.command == "explain-compile":
        from . import explain

        return explain.main_args(args)
    return _capture(args) if args.command == "capture" else _merge(args)

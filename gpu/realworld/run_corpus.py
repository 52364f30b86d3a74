"""Captures the real-world corpus on the GPU machine: every build of
builds.py, each part of drive.py as its own capture process, many at once.

    run_corpus.py --carry DIR --out OUTDIR [--work W] [--jobs 16]
                  [--stop-launching S] [--kill-after S] [--builds a,b]

DIR is the carried folder: ``python/`` (the ksnap_triton plugin),
``tutorials/`` (the tutorial sources), ``realworld/`` (these scripts).
The cosmetic copy of the tutorials is generated here (make_noise.py).
Each build gets its own capture folder W/<build> (so its own Triton cache:
every build recompiles everything), written by

    python3 -m ksnap_triton capture -o W/<build> --build <build> [--no-launch] --
        python3 drive.py --tutorials T --part P [--target gfx942] --report ...

with the build's knob in the environment. Jobs run longest first, all
builds of a part before the next part; no job starts after --stop-launching
seconds and running ones are stopped at --kill-after (their shards keep what
they recorded). Then every build is merged and pack.py packs W into OUTDIR.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import builds  # noqa: E402
import drive  # noqa: E402  (part names only; nothing imports torch here)

# Rough relative cost of each part (variants x seconds per compile), to
# start the long ones first.
WEIGHT = {"pers_b": 120, "attn_a": 90, "attn_b": 80, "matmul": 70, "pers_a": 70, "pers_c": 60,
          "grouped": 35, "small,gluon": 50, "amd": 60}
# NVIDIA jobs: one per part (small and gluon together); gfx942: one job with
# every part that cross-compiles.
NVIDIA_JOBS = ["pers_b", "attn_a", "attn_b", "matmul", "pers_a", "pers_c", "grouped", "small,gluon"]


def log(msg: str) -> None:
    print(f"[run {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def jobs_for(selected: list[str]) -> list[dict]:
    out = []
    for build in selected:
        if builds.backend_of(build) == "hip":
            out.append({"build": build, "part": ",".join(drive.AMD_PARTS), "weight": WEIGHT["amd"]})
        else:
            out += [{"build": build, "part": p, "weight": WEIGHT[p]} for p in NVIDIA_JOBS]
    out.sort(key=lambda j: -j["weight"])  # stable: builds in builds.py order within a weight
    return out


def report_counts(work: str, job: dict) -> tuple[int, int]:
    """(steps or cross-compiles that worked, that failed) from drive.py's report."""
    path = os.path.join(work, "reports", f"{job['build']}-{job['part'].replace(',', '+')}.json")
    try:
        r = json.load(open(path))
    except (OSError, ValueError):
        return 0, 0
    ok = sum(1 for s in r.get("steps", []) if "part_step" in s and s.get("ok"))
    bad = sum(1 for s in r.get("steps", []) if "part_step" in s and not s.get("ok"))
    ok += sum(1 for x in r.get("cross_compiles", []) if x.get("ok"))
    bad += sum(1 for x in r.get("cross_compiles", []) if x.get("ok") is False)
    return ok, bad


def command(job: dict, carry: str, work: str, tutorials: dict) -> tuple[list[str], dict]:
    b = builds.ALL[job["build"]]
    amd = builds.backend_of(job["build"]) == "hip"
    out = os.path.join(work, job["build"])
    report = os.path.join(work, "reports", f"{job['build']}-{job['part'].replace(',', '+')}.json")
    cmd = [sys.executable, "-m", "ksnap_triton", "capture", "-o", out, "--build", job["build"],
           *b["flags"], "--", sys.executable, os.path.join(HERE, "drive.py"),
           "--tutorials", tutorials[b["tutorials"]], "--part", job["part"],
           "--target", "gfx942" if amd else "cuda", "--report", report]
    env = dict(os.environ)
    env.update(b["env"])
    env["PYTHONPATH"] = os.path.join(carry, "python")
    env["PYTHONUNBUFFERED"] = "1"
    env["TRITON_CACHE_DIR"] = os.path.join(out, "cache")
    env["TRITON_HOME"] = os.path.join(work, "home", job["build"])
    return cmd, env


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--carry", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--work", default="/tmp/ksnap-corpus")
    p.add_argument("--jobs", type=int, default=16)
    p.add_argument("--stop-launching", type=float, default=330)
    p.add_argument("--kill-after", type=float, default=420)
    p.add_argument("--builds", default="")
    a = p.parse_args()
    t0 = time.time()
    carry = os.path.abspath(a.carry)
    work = a.work
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "reports"))
    os.makedirs(os.path.join(work, "logs"))
    tutorials = {"base": os.path.join(carry, "tutorials"), "noise": os.path.join(work, "tutorials_noise")}
    subprocess.run([sys.executable, os.path.join(HERE, "make_noise.py"), tutorials["base"],
                    tutorials["noise"]], check=True)
    subprocess.run([sys.executable, os.path.join(HERE, "make_noise.py"),
                    os.path.join(tutorials["base"], "gluon"), os.path.join(tutorials["noise"], "gluon")],
                   check=True)
    selected = [b for b in (a.builds.split(",") if a.builds else builds.ALL) if b]
    pending = jobs_for(selected)
    log(f"{len(pending)} jobs for {len(selected)} builds, {a.jobs} at a time")
    running: list[tuple[subprocess.Popen, dict, float, object]] = []
    done: list[dict] = []
    while pending or running:
        now = time.time() - t0
        while pending and len(running) < a.jobs and now < a.stop_launching:
            job = pending.pop(0)
            cmd, env = command(job, carry, work, tutorials)
            logf = open(os.path.join(work, "logs", f"{job['build']}-{job['part'].replace(',', '+')}.log"), "w")
            proc = subprocess.Popen(cmd, env=env, stdout=logf, stderr=subprocess.STDOUT,
                                    start_new_session=True)
            running.append((proc, job, time.time(), logf))
        if pending and now >= a.stop_launching:
            for job in pending:
                job.update(rc=None, skipped="not started before --stop-launching")
                done.append(job)
            log(f"{len(pending)} jobs not started (time)")
            pending = []
        still = []
        for proc, job, started, logf in running:
            rc = proc.poll()
            if rc is None and time.time() - t0 > a.kill_after:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    rc = proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    rc = proc.wait()
                job["killed"] = True
            if rc is None:
                still.append((proc, job, started, logf))
                continue
            logf.close()
            job.update(rc=rc, seconds=round(time.time() - started, 1))
            job["ok_steps"], job["failed_steps"] = report_counts(work, job)
            done.append(job)
            log(f"{job['build']}/{job['part']}: rc={rc} in {job['seconds']} s, steps ok/failed "
                f"{job['ok_steps']}/{job['failed_steps']}{' (killed)' if job.get('killed') else ''}")
        running = still
        # A broken setup (loader, plugin, environment) fails every job within
        # seconds: stop instead of spending the device time.
        if len(done) >= 8 and not any(j.get("ok_steps") for j in done) and (pending or running):
            log("the first 8 jobs all failed: stopping")
            for proc, job, _, logf in running:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                logf.close()
                job.update(rc=None, killed=True)
                done.append(job)
            for job in pending:
                job.update(rc=None, skipped="setup failure")
                done.append(job)
            running, pending = [], []
        time.sleep(0.5)
    log("all jobs finished; merging")
    for build in selected:
        out = os.path.join(work, build)
        if os.path.isdir(out):
            env = dict(os.environ, PYTHONPATH=os.path.join(carry, "python"))
            r = subprocess.run([sys.executable, "-m", "ksnap_triton", "merge", out, "--build", build],
                               env=env, capture_output=True, text=True)
            try:
                n = len(json.load(open(os.path.join(out, "manifest.json")))["entries"])
            except Exception as e:  # noqa: BLE001
                n = f"no manifest ({e})"
            log(f"merge {build}: rc={r.returncode} entries={n} {r.stderr.strip()[-300:]}")
    with open(os.path.join(work, "jobs.json"), "w") as f:
        json.dump(done, f, indent=1)
    log(f"capture phase took {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

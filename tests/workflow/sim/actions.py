"""Local equivalents of the well-known actions a workflow `uses:`, with the
behaviour ksnap's workflows rely on:

  actions/checkout@v4           git fetch from the simulated GitHub (a PR's
                                refs/pull/N/head|merge live in the base repo)
  actions/cache/restore@v4      GitHub's cache scopes: a run reads caches of
  actions/cache/save@v4         its own ref, then of the PR's base branch, then
                                of the default branch; keys are immutable
  actions/upload-artifact@v4    per run, per name, immutable
  actions/download-artifact@v4  this run's, or another run's with a token
                                that may read actions
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .runner import Job


class StepFailed(Exception):
    pass


def git(cwd: Path, *args: str) -> str:
    r = subprocess.run(["git", *args], cwd=cwd, text=True, capture_output=True)
    if r.returncode != 0:
        raise StepFailed(f"git {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout.strip()


def checkout(job: "Job", w: dict) -> dict:
    gh = job.github
    repo = w.get("repository") or job.ctx["github"]["repository"]
    event = job.ctx["github"]["event"]
    default_ref = job.ctx["github"]["ref"]
    ref = w.get("ref") or (job.ctx["github"]["sha"] if job.event_name == "push" else default_ref)
    depth = int(float(w.get("fetch-depth", 1) or 0))
    dest = job.workspace / (w.get("path") or "")
    dest.mkdir(parents=True, exist_ok=True)
    git(dest, "init", "-q")
    git(dest, "remote", "add", "origin", str(gh.bare(repo)))
    deepen = [] if depth == 0 else [f"--depth={depth}"]
    if depth == 0:
        git(dest, "fetch", "-q", "origin", "+refs/heads/*:refs/remotes/origin/*",
            "+refs/tags/*:refs/tags/*")
    git(dest, "fetch", "-q", *deepen, "origin", ref)
    git(dest, "checkout", "-q", "--detach", "FETCH_HEAD")
    job.log(f"checkout {repo}@{ref} -> {git(dest, 'rev-parse', 'HEAD')[:12]}"
            f"{' (full history)' if depth == 0 else ''}; event {event.get('action', '')}")
    return {}


def _paths(w: dict) -> list[str]:
    return [p.strip() for p in str(w.get("path", "")).splitlines() if p.strip()]


def _abs(job: "Job", p: str) -> Path:
    p = os.path.expanduser(p)
    return Path(p) if os.path.isabs(p) else job.workspace / p


def cache_restore(job: "Job", w: dict) -> dict:
    key = w["key"]
    prefixes = [k.strip() for k in str(w.get("restore-keys", "")).splitlines() if k.strip()]
    paths = _paths(w)
    found = job.github.caches.lookup(job.cache_scopes(), key, prefixes, paths)
    if found is None:
        job.log(f"cache not found for {key}")
        return {"cache-hit": "false", "cache-primary-key": key, "cache-matched-key": ""}
    for p in paths:
        src = found["dir"] / p.replace("/", "%")
        dst = _abs(job, p)
        if src.is_dir():
            shutil.copytree(src, dst, dirs_exist_ok=True)
        elif src.exists():
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
    job.log(f"cache restored from key {found['key']} (scope {found['scope']})")
    return {"cache-hit": str(found["key"] == key).lower(), "cache-primary-key": key,
            "cache-matched-key": found["key"]}


def cache_save(job: "Job", w: dict) -> dict:
    key, paths = w["key"], _paths(w)
    scope = job.cache_scopes()[0]
    if not any(_abs(job, p).exists() for p in paths):
        job.warning(f"Path Validation Error: no files at {paths}; cache not saved")
        return {}
    if not job.github.caches.save(scope, key, paths, lambda p: _abs(job, p)):
        job.warning(f"Failed to save: Unable to reserve cache with key {key}, another job "
                    "may be creating this cache.")
    else:
        job.log(f"cache saved: {key} (scope {scope})")
    return {}


def upload_artifact(job: "Job", w: dict) -> dict:
    name = w.get("name") or "artifact"
    files = [_abs(job, p) for p in _paths(w)]
    files = [f for f in files if f.exists()]
    if not files:
        mode = w.get("if-no-files-found", "warn")
        if mode == "error":
            raise StepFailed(f"No files were found with the provided path: {w.get('path')}")
        if mode == "warn":
            job.warning(f"No files were found with the provided path: {w.get('path')}. "
                        "No artifacts will be uploaded.")
        return {}
    dest = job.github.artifact_dir(job.run.id, name)
    if dest.exists():
        raise StepFailed(f"an artifact with the name {name!r} already exists in run {job.run.id}")
    root = Path(os.path.commonpath([str(f if f.is_dir() else f.parent) for f in files]))
    for f in files:
        target = dest / f.relative_to(root)
        if f.is_dir():
            shutil.copytree(f, target, dirs_exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, target)
    job.run.artifacts.append(name)
    job.log(f"artifact {name} uploaded ({sum(1 for _ in dest.rglob('*'))} entries)")
    return {"artifact-id": f"{job.run.id}-{name}"}


def download_artifact(job: "Job", w: dict) -> dict:
    run_id = int(float(w.get("run-id") or job.run.id))
    if run_id != job.run.id:
        token = w.get("github-token", "")
        perms = job.github.token_permissions(token)
        if perms is None or perms.get("actions", "none") == "none":
            raise StepFailed("a github-token that can read actions is needed for another run")
    name = w.get("name")
    src = job.github.artifact_dir(run_id, name)
    if not src.is_dir():
        raise StepFailed(f"Unable to download artifact(s): Artifact not found for name: {name}")
    dest = _abs(job, w.get("path") or ".")
    shutil.copytree(src, dest, dirs_exist_ok=True)
    return {"download-path": str(dest)}


WELL_KNOWN = {
    "actions/checkout": checkout,
    "actions/cache/restore": cache_restore,
    "actions/cache/save": cache_save,
    "actions/upload-artifact": upload_artifact,
    "actions/download-artifact": download_artifact,
}


class Caches:
    """actions/cache storage: entries (scope, key, folder, time)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.entries: list[dict[str, Any]] = []

    def save(self, scope: str, key: str, paths: list[str], resolve) -> bool:
        if any(e["scope"] == scope and e["key"] == key for e in self.entries):
            return False
        d = self.root / f"{len(self.entries):04d}"
        d.mkdir(parents=True)
        for p in paths:
            src = resolve(p)
            dst = d / p.replace("/", "%")
            if src.is_dir():
                shutil.copytree(src, dst)
            elif src.exists():
                shutil.copy2(src, dst)
        self.entries.append({"scope": scope, "key": key, "dir": d, "time": time.time(),
                             "n": len(self.entries)})
        return True

    def lookup(self, scopes: list[str], key: str, prefixes: list[str], paths) -> dict | None:
        for scope in scopes:
            for e in self.entries:
                if e["scope"] == scope and e["key"] == key:
                    return e
            for prefix in prefixes:
                hits = [e for e in self.entries if e["scope"] == scope and e["key"].startswith(prefix)]
                if hits:
                    return max(hits, key=lambda e: e["n"])
        return None

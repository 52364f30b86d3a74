"""Fixtures for the end-to-end tests of ci/github/scripts/ksnap_ci.py: a
built ksnap, real corpus captures, throwaway git repositories and a fake gh."""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
SCRIPT = REPO_ROOT / "ci" / "github" / "scripts" / "ksnap_ci.py"
FAKE_GH = Path(__file__).resolve().parent / "fake_gh.py"


def find_ksnap() -> str | None:
    env = os.environ.get("KSNAP_BIN")
    if env:
        return env if os.access(env, os.X_OK) else None
    found = [p for p in glob.glob(str(REPO_ROOT / "build*" / "ksnap"))
             if os.access(p, os.X_OK) and has_store_commands(p)]
    return max(found, key=os.path.getmtime) if found else None


def has_store_commands(ksnap: str) -> bool:
    """A ksnap built with the history store (older builds lack `record`)."""
    r = subprocess.run([ksnap, "record", "--help"], capture_output=True)
    return r.returncode == 0


def find_corpus() -> Path | None:
    for root in (os.environ.get("KSNAP_CORPUS_DIR"), REPO_ROOT / "examples" / "corpus",
                 REPO_ROOT.parent / "shared" / "corpus"):
        if root and (Path(root) / "base" / "manifest.json").exists():
            return Path(root)
    return None


@pytest.fixture(scope="session")
def ksnap() -> str:
    k = find_ksnap()
    if not k:
        pytest.skip("no ksnap binary (build it, or set KSNAP_BIN)")
    return k


@pytest.fixture(scope="session")
def corpus() -> Path:
    c = find_corpus()
    if not c:
        pytest.skip("no corpus (examples/corpus or ../shared/corpus)")
    return c


def git(cwd: Path, *args: str, env: dict | None = None) -> str:
    e = dict(os.environ)
    e.update({"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
              "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"})
    if env:
        e.update(env)
    return subprocess.run(["git", *args], cwd=cwd, env=e, check=True, text=True,
                          capture_output=True).stdout.strip()


class Repo:
    """A git work tree whose commits get one-day-apart dates."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.t = 1733011200
        path.mkdir(parents=True, exist_ok=True)
        git(path, "init", "-q", "-b", "main")

    def commit(self, msg: str) -> str:
        self.t += 86400
        d = f"{self.t} +0000"
        git(self.path, "commit", "-q", "--allow-empty", "-m", msg,
            env={"GIT_AUTHOR_DATE": d, "GIT_COMMITTER_DATE": d})
        return git(self.path, "rev-parse", "HEAD")

    def git(self, *args: str) -> str:
        return git(self.path, *args)


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path / "work")


class FakeGh:
    """State and call log of the fake gh put first on PATH."""

    def __init__(self, tmp: Path) -> None:
        self.bin = tmp / "bin"
        self.bin.mkdir()
        shutil.copy(FAKE_GH, self.bin / "gh")
        os.chmod(self.bin / "gh", 0o755)
        self.state_path = tmp / "gh_state.json"
        self.log_path = tmp / "gh_log.jsonl"
        self.set({"comments": [], "labels": [], "next_id": 1000})

    def set(self, state: dict) -> None:
        self.state_path.write_text(json.dumps(state))

    @property
    def state(self) -> dict:
        return json.loads(self.state_path.read_text())

    def calls(self) -> list[dict]:
        if not self.log_path.exists():
            return []
        return [json.loads(l) for l in self.log_path.read_text().splitlines()]

    def clear_log(self) -> None:
        if self.log_path.exists():
            self.log_path.unlink()

    def env(self) -> dict:
        e = dict(os.environ)
        e["PATH"] = f"{self.bin}{os.pathsep}{e['PATH']}"
        e["FAKE_GH_STATE"] = str(self.state_path)
        e["FAKE_GH_LOG"] = str(self.log_path)
        e.pop("GITHUB_STEP_SUMMARY", None)
        e.pop("GITHUB_OUTPUT", None)
        return e


@pytest.fixture
def gh(tmp_path: Path) -> FakeGh:
    return FakeGh(tmp_path)


def run_script(cwd: Path, env: dict, ksnap: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["/usr/bin/python3", str(SCRIPT), "--ksnap", ksnap, *args], cwd=cwd,
                          env=env, text=True, capture_output=True)

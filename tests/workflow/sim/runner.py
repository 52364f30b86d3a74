"""A local GitHub: repositories, pushes, pull requests from forks, and
workflow runs executed step by step from the real workflow files.

    gh = GitHub(tmp, repo="octo/kernels", action_root=REPO_ROOT, path=[ksnap_bin_dir])
    gh.create_repo(files)                   # main's first commit, .github/workflows/ included
    run = gh.push("main", files, "M1")      # runs every `on: push` workflow of that commit
    pr = gh.open_pull_request("forker/kernels", "fix", files, "P1")   # pull_request runs,
                                            # then the workflow_run workflows of main
    run.conclusion, run.jobs["capture"].summary, gh.gh_state()["comments"]

What a run does, as GitHub does it: workflow files are read from the commit
the event belongs to (the PR's merge commit for pull_request, the default
branch for workflow_run); jobs and steps are filtered by `if:`; `run:` steps
execute with bash -eo pipefail in a fresh workspace with the env a runner
gives (GITHUB_* files, contexts, workflow/job/step env); `uses:` steps are the
local equivalents in actions.py, or a composite action (action.yml) run step
by step; each job gets a token with the job's `permissions:`, read-only for a
pull request from a fork, which the fake `gh` enforces.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from . import actions
from .expressions import condition, interpolate, to_string

FAKE_GH = Path(__file__).resolve().parents[1] / "fake_gh.py"
KSNAP_ACTION = re.compile(r"^[\w.-]+/ksnap@[\w./-]+$")
READ_ONLY = {"contents": "read", "metadata": "read", "pull-requests": "read", "issues": "read",
             "actions": "read"}
ALL_SCOPES = ("actions", "contents", "issues", "pull-requests", "metadata", "statuses", "checks",
              "deployments", "packages", "pages", "security-events", "id-token", "attestations",
              "discussions", "repository-projects")


def load_yaml(text: str) -> dict:
    doc = yaml.safe_load(text)
    if isinstance(doc, dict) and True in doc and "on" not in doc:
        doc["on"] = doc.pop(True)  # YAML 1.1 reads the key `on` as true
    return doc


def git(cwd: Path, *args: str, env: dict | None = None) -> str:
    e = dict(os.environ)
    e.update({"GIT_AUTHOR_NAME": "dev", "GIT_AUTHOR_EMAIL": "dev@example.com",
              "GIT_COMMITTER_NAME": "dev", "GIT_COMMITTER_EMAIL": "dev@example.com"})
    e.update(env or {})
    r = subprocess.run(["git", *args], cwd=cwd, env=e, text=True, capture_output=True)
    if r.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {r.stderr}")
    return r.stdout.strip()


@dataclass
class StepResult:
    name: str
    outcome: str  # success | failure | skipped
    outputs: dict = field(default_factory=dict)


@dataclass
class JobResult:
    name: str
    conclusion: str = "skipped"
    steps: list[StepResult] = field(default_factory=list)
    summary: str = ""
    log: str = ""
    annotations: list[tuple[str, str]] = field(default_factory=list)
    workspace: Path | None = None
    token: str = ""
    permissions: dict = field(default_factory=dict)
    outputs: dict = field(default_factory=dict)


@dataclass
class Run:
    id: int
    workflow_name: str
    workflow_file: str
    event: str
    payload: dict
    head_sha: str
    head_branch: str
    head_repo: str
    jobs: dict[str, JobResult] = field(default_factory=dict)
    artifacts: list[str] = field(default_factory=list)
    conclusion: str = "success"


class GitHub:
    def __init__(self, root: Path, repo: str, action_root: Path, path: list[str],
                 default_branch: str = "main") -> None:
        self.root = root
        self.repo = repo
        self.default_branch = default_branch
        self.action_root = action_root
        self.path = path
        self.vars: dict[str, str] = {}  # repository variables (the vars context)
        self.runs: list[Run] = []
        self.next_run = 9000
        self.caches = actions.Caches(root / "caches")
        self.pulls: dict[int, dict] = {}
        self.forks: dict[str, str] = {}  # fork full name -> its branch head
        self.bin = root / "bin"
        self.bin.mkdir(parents=True)
        shutil.copy(FAKE_GH, self.bin / "gh")
        os.chmod(self.bin / "gh", 0o755)
        self.state_path = root / "gh_state.json"
        self.log_path = root / "gh_log.jsonl"
        self.tokens: dict[str, dict] = {}
        self._write_state({"comments": [], "labels": [], "next_id": 1000, "pulls": [],
                           "runs": [], "artifact_root": str(root / "artifacts"), "tokens": {}})

    # ------------------------------------------------------------ state
    def gh_state(self) -> dict:
        return json.loads(self.state_path.read_text())

    def _write_state(self, st: dict) -> None:
        self.state_path.write_text(json.dumps(st))

    def _update_state(self, **kw: Any) -> None:
        st = self.gh_state()
        st.update(kw)
        self._write_state(st)

    def gh_calls(self) -> list[dict]:
        if not self.log_path.exists():
            return []
        return [json.loads(l) for l in self.log_path.read_text().splitlines()]

    def bare(self, full_name: str) -> Path:
        return self.root / "github" / f"{full_name}.git"

    def artifact_dir(self, run_id: int, name: str) -> Path:
        return self.root / "artifacts" / str(run_id) / name

    def token_permissions(self, token: str) -> dict | None:
        t = self.tokens.get(token)
        return t["permissions"] if t else None

    # ------------------------------------------------------------ repositories
    def _init_bare(self, full_name: str) -> Path:
        b = self.bare(full_name)
        b.parent.mkdir(parents=True, exist_ok=True)
        git(self.root, "init", "-q", "--bare", "-b", self.default_branch, str(b))
        git(b, "config", "uploadpack.allowAnySHA1InWant", "true")
        return b

    def create_repo(self, files: dict[str, str | bytes], message: str = "initial") -> str:
        """The base repository with one commit on the default branch; no run."""
        self._init_bare(self.repo)
        self.work = self.root / "dev" / self.repo
        git(self.root, "clone", "-q", str(self.bare(self.repo)), str(self.work))
        return self._commit_and_push(self.work, self.default_branch, files, message)

    def _commit_and_push(self, work: Path, branch: str, files: dict, message: str) -> str:
        for rel, content in files.items():
            p = work / rel
            if content is None:
                if p.exists():
                    p.unlink()
                continue
            p.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                p.write_bytes(content)
            else:
                p.write_text(content)
        git(work, "add", "-A")
        git(work, "commit", "-q", "--allow-empty", "-m", message)
        git(work, "push", "-q", "origin", f"HEAD:refs/heads/{branch}")
        return git(work, "rev-parse", "HEAD")

    def push(self, branch: str, files: dict, message: str) -> list[Run]:
        """A push to the base repository (a maintainer): on: push workflows run."""
        if branch != self.default_branch:
            raise NotImplementedError("pushes to other branches of the base repository")
        before = git(self.work, "rev-parse", "HEAD")
        sha = self._commit_and_push(self.work, branch, files, message)
        payload = {"ref": f"refs/heads/{branch}", "before": before, "after": sha,
                   "repository": self._repo_payload(), "head_commit": {"id": sha, "message": message}}
        return self._dispatch("push", payload, sha=sha, ref=f"refs/heads/{branch}", workflow_sha=sha,
                              head_branch=branch, head_repo=self.repo)

    def contributor(self, full_name: str) -> Path:
        """A work tree whose origin is `full_name`: a fork (made here on first
        use) or the base repository itself (a same-repository PR)."""
        if full_name in self.forks:
            return Path(self.forks[full_name])
        if full_name != self.repo:
            b = self._init_bare(full_name)
            git(self.bare(self.repo), "push", "-q", "--mirror", str(b))
        work = self.root / "contributors" / full_name
        git(self.root, "clone", "-q", str(self.bare(full_name)), str(work))
        self.forks[full_name] = str(work)
        return work

    def open_pull_request(self, fork: str, branch: str, files: dict, message: str,
                          number: int = 7) -> list[Run]:
        work = self.contributor(fork)
        if number not in self.pulls:
            git(work, "checkout", "-q", "-b", branch, f"origin/{self.default_branch}")
            action = "opened"
        else:
            action = "synchronize"
        head = self._commit_and_push(work, branch, files, message)
        base = self.bare(self.repo)
        git(base, "fetch", "-q", str(self.bare(fork)), f"+refs/heads/{branch}:refs/pull/{number}/head")
        base_sha = git(base, "rev-parse", f"refs/heads/{self.default_branch}")
        merge = self._merge_commit(base_sha, head, number)
        pull = {"number": number, "state": "open", "title": message,
                "head": {"sha": head, "ref": branch, "repo": {"full_name": fork}},
                "base": {"sha": base_sha, "ref": self.default_branch,
                         "repo": {"full_name": self.repo}}}
        self.pulls[number] = pull
        self._update_state(pulls=list(self.pulls.values()))
        payload = {"action": action, "number": number, "pull_request": pull,
                   "repository": self._repo_payload()}
        return self._dispatch("pull_request", payload, sha=merge, ref=f"refs/pull/{number}/merge",
                              workflow_sha=merge, head_branch=branch, head_repo=fork,
                              head_sha=head, base_ref=self.default_branch, head_ref=branch)

    def _merge_commit(self, base_sha: str, head: str, number: int) -> str:
        tmp = self.root / "merge"
        shutil.rmtree(tmp, ignore_errors=True)
        git(self.root, "clone", "-q", str(self.bare(self.repo)), str(tmp))
        git(tmp, "fetch", "-q", "origin", f"refs/pull/{number}/head")
        git(tmp, "checkout", "-q", "--detach", base_sha)
        git(tmp, "merge", "-q", "--no-ff", "-m", f"Merge {head} into {base_sha}", head)
        sha = git(tmp, "rev-parse", "HEAD")
        git(tmp, "push", "-q", "origin", f"HEAD:refs/pull/{number}/merge", "--force")
        shutil.rmtree(tmp)
        return sha

    def _repo_payload(self) -> dict:
        owner, name = self.repo.split("/")
        return {"full_name": self.repo, "name": name, "owner": {"login": owner},
                "default_branch": self.default_branch}

    # ------------------------------------------------------------ runs
    def _workflows_at(self, sha: str) -> list[tuple[str, dict]]:
        base = self.bare(self.repo)
        names = git(base, "ls-tree", "--name-only", sha, ".github/workflows/").splitlines()
        out = []
        for n in names:
            if n.endswith((".yml", ".yaml")):
                out.append((os.path.basename(n), load_yaml(git(base, "show", f"{sha}:{n}"))))
        return out

    def _dispatch(self, event: str, payload: dict, *, sha: str, ref: str, workflow_sha: str,
                  head_branch: str, head_repo: str, head_sha: str | None = None,
                  base_ref: str = "", head_ref: str = "") -> list[Run]:
        runs = []
        for fname, wf in self._workflows_at(workflow_sha):
            if not triggers(wf.get("on"), event, payload, head_branch):
                continue
            run = Run(self.next_run, wf.get("name") or fname, fname, event, payload,
                      head_sha or sha, head_branch, head_repo)
            self.next_run += 1
            self.execute(run, wf, sha=sha, ref=ref, base_ref=base_ref, head_ref=head_ref)
            runs.append(run)
        for run in list(runs):
            runs += self._after(run)
        return runs

    def _after(self, done: Run) -> list[Run]:
        """workflow_run: workflows of the default branch that follow `done`."""
        main = git(self.bare(self.repo), "rev-parse", f"refs/heads/{self.default_branch}")
        runs = []
        for fname, wf in self._workflows_at(main):
            on = normalize_on(wf.get("on"))
            spec = on.get("workflow_run")
            if spec is None or done.workflow_name not in (spec or {}).get("workflows", []):
                continue
            if "completed" not in (spec or {}).get("types", ["completed", "requested"]):
                continue
            payload = {"action": "completed", "repository": self._repo_payload(),
                       "workflow_run": {
                           "id": done.id, "name": done.workflow_name, "event": done.event,
                           "conclusion": done.conclusion, "status": "completed",
                           "head_sha": done.head_sha, "head_branch": done.head_branch,
                           "head_repository": {"full_name": done.head_repo},
                           # GitHub leaves this empty for pull requests from forks.
                           "pull_requests": [] if done.head_repo != self.repo else [
                               {"number": p["number"]} for p in self.pulls.values()
                               if p["head"]["sha"] == done.head_sha]}}
            run = Run(self.next_run, wf.get("name") or fname, fname, "workflow_run", payload,
                      main, self.default_branch, self.repo)
            self.next_run += 1
            self.execute(run, wf, sha=main, ref=f"refs/heads/{self.default_branch}")
            runs.append(run)
        return runs

    def execute(self, run: Run, wf: dict, *, sha: str, ref: str, base_ref: str = "",
                head_ref: str = "") -> None:
        owner = self.repo.split("/")[0]
        github_ctx = {
            "event_name": run.event, "event": run.payload, "sha": sha, "ref": ref,
            "ref_name": ref.split("/", 2)[-1], "repository": self.repo,
            "repository_owner": owner, "run_id": str(run.id), "run_number": str(run.id - 8999),
            "run_attempt": "1", "workflow": run.workflow_name, "actor": "dev",
            "server_url": "https://github.com", "api_url": "https://api.github.com",
            "base_ref": base_ref, "head_ref": head_ref, "job": "", "action_path": "",
            "action_ref": "", "triggering_actor": "dev",
        }
        fork = run.event == "pull_request" and run.head_repo != self.repo
        for job_id, spec in (wf.get("jobs") or {}).items():
            if spec.get("uses"):
                raise RuntimeError(f"{run.workflow_file}: reusable workflows are not simulated")
            if "strategy" in spec:
                raise RuntimeError(f"{run.workflow_file}: matrix jobs are not simulated")
            perms = effective_permissions(spec.get("permissions", wf.get("permissions")), fork)
            job = Job(self, run, job_id, spec, wf, dict(github_ctx), perms)
            run.jobs[job_id] = job.execute()
        concl = [j.conclusion for j in run.jobs.values()]
        run.conclusion = "failure" if "failure" in concl else "success"
        self.runs.append(run)
        st = self.gh_state()
        st["runs"].insert(0, {"databaseId": run.id, "event": run.event,
                              "headBranch": run.head_branch, "workflow": run.workflow_file,
                              "conclusion": run.conclusion})
        self._write_state(st)


def normalize_on(on: Any) -> dict:
    if isinstance(on, str):
        return {on: {}}
    if isinstance(on, list):
        return {e: {} for e in on}
    return {k: (v or {}) for k, v in (on or {}).items()}


def triggers(on: Any, event: str, payload: dict, branch: str) -> bool:
    spec = normalize_on(on).get(event)
    if spec is None:
        return False
    if event == "push":
        branches = spec.get("branches")
        return branches is None or branch in branches
    if event == "pull_request":
        types = spec.get("types", ["opened", "synchronize", "reopened"])
        branches = spec.get("branches")
        return payload["action"] in types and (
            branches is None or payload["pull_request"]["base"]["ref"] in branches)
    return False


def effective_permissions(spec: Any, fork: bool) -> dict:
    """The job token's permissions; a fork's pull_request gets read at most."""
    if spec is None:
        perms = {"contents": "read", "metadata": "read"}
    elif spec == "read-all":
        perms = {s: "read" for s in ALL_SCOPES}
    elif spec == "write-all":
        perms = {s: "write" for s in ALL_SCOPES}
    else:
        perms = dict(spec)
        perms.setdefault("metadata", "read")
    if fork:
        perms = {k: ("read" if v == "write" else v) for k, v in perms.items()}
    return perms


class Job:
    def __init__(self, gh: GitHub, run: Run, job_id: str, spec: dict, wf: dict, github_ctx: dict,
                 perms: dict) -> None:
        self.github = gh
        self.run = run
        self.id = job_id
        self.spec = spec
        self.wf = wf
        self.event_name = run.event
        base = gh.root / "runners" / str(run.id) / job_id
        self.workspace = base / "workspace"
        self.temp = base / "temp"
        self.home = base / "home"
        self.files = base / "files"
        for d in (self.workspace, self.temp, self.home, self.files):
            d.mkdir(parents=True)
        self.token = f"ghs_{run.id}_{job_id}"
        gh.tokens[self.token] = {"job": f"{run.workflow_file}:{job_id}", "permissions": perms}
        gh._update_state(tokens=gh.tokens)
        github_ctx.update(job=job_id, token=self.token, workspace=str(self.workspace))
        self.result = JobResult(job_id, workspace=self.workspace, token=self.token,
                                permissions=perms)
        (self.files / "event.json").write_text(json.dumps(run.payload))
        self.ctx = {"github": github_ctx, "runner": {"os": "Linux", "arch": "X64",
                                                     "temp": str(self.temp), "name": "sim"},
                    "secrets": {"GITHUB_TOKEN": self.token}, "vars": dict(gh.vars), "needs": {},
                    "matrix": {}, "strategy": {}, "job": {"status": "success"}, "inputs": {}}
        self.env: dict[str, str] = {}  # workflow + job env, then GITHUB_ENV
        self.extra_path: list[str] = []
        self.n = 0

    # ------------------------------------------------------------ logging
    def log(self, text: str) -> None:
        self.result.log += text.rstrip("\n") + "\n"

    def warning(self, text: str) -> None:
        self.result.annotations.append(("warning", text))
        self.log(f"::warning::{text}")

    def cache_scopes(self) -> list[str]:
        g = self.ctx["github"]
        scopes = [g["ref"]]
        if g.get("base_ref"):
            scopes.append(f"refs/heads/{g['base_ref']}")
        scopes.append(f"refs/heads/{self.github.default_branch}")
        return list(dict.fromkeys(scopes))

    # ------------------------------------------------------------ execution
    def execute(self) -> JobResult:
        ctx = dict(self.ctx, env={})
        if not condition(self.spec.get("if"), ctx):
            self.result.conclusion = "skipped"
            return self.result
        if "runs-on" not in self.spec:
            raise RuntimeError(f"job {self.id}: no runs-on")
        for layer in (self.wf.get("env") or {}, self.spec.get("env") or {}):
            for k, v in layer.items():
                self.env[k] = to_string(interpolate(v, dict(self.ctx, env=dict(self.env))))
        self.defaults_shell = ((self.spec.get("defaults") or {}).get("run") or {}).get("shell") \
            or ((self.wf.get("defaults") or {}).get("run") or {}).get("shell")
        status, steps_ctx = self.run_steps(self.spec.get("steps") or [], self.ctx, None)
        self.result.conclusion = status
        out_ctx = dict(self.ctx, steps=steps_ctx, env=dict(self.env))
        self.result.outputs = {k: to_string(interpolate(v, out_ctx))
                               for k, v in (self.spec.get("outputs") or {}).items()}
        return self.result

    def run_steps(self, steps: list[dict], base_ctx: dict, action: dict | None
                  ) -> tuple[str, dict]:
        """Runs steps in order; returns (status, steps context)."""
        status = "success"
        steps_ctx: dict[str, dict] = {}
        for i, step in enumerate(steps):
            ctx = dict(base_ctx, steps=steps_ctx, env=dict(self.env), __status__=status)
            name = step.get("name") or step.get("uses") or f"step {i}"
            if not condition(step.get("if"), ctx):
                res = StepResult(to_string(interpolate(name, ctx)), "skipped")
                outcome = "skipped"
            else:
                res = self.run_step(step, ctx, action)
                outcome = res.outcome
                if outcome == "failure" and not truthy_value(step.get("continue-on-error"), ctx):
                    status = "failure"
            self.result.steps.append(res)
            if step.get("id"):
                steps_ctx[step["id"]] = {"outputs": res.outputs, "outcome": outcome,
                                         "conclusion": outcome if outcome != "failure" or
                                         not truthy_value(step.get("continue-on-error"), ctx)
                                         else "success"}
        return status, steps_ctx

    def run_step(self, step: dict, ctx: dict, action: dict | None) -> StepResult:
        name = to_string(interpolate(step.get("name") or step.get("uses") or "run", ctx))
        self.log(f"## {name}")
        step_env = {k: to_string(interpolate(v, ctx)) for k, v in (step.get("env") or {}).items()}
        try:
            if "run" in step:
                outputs = self.run_script(step, ctx, step_env, action)
            else:
                outputs = self.run_uses(step, ctx, step_env)
            return StepResult(name, "success", outputs)
        except actions.StepFailed as e:
            self.log(f"##[error]{e}")
            self.result.annotations.append(("error", str(e)))
            return StepResult(name, "failure")

    def process_env(self, step_env: dict, action: dict | None) -> dict:
        env = {"PATH": os.pathsep.join(self.extra_path + self.github.path +
                                       [str(self.github.bin), "/usr/bin", "/bin"]),
               "HOME": str(self.home), "LANG": "C.UTF-8", "CI": "true", "GITHUB_ACTIONS": "true",
               "RUNNER_TEMP": str(self.temp), "RUNNER_OS": "Linux", "RUNNER_ARCH": "X64",
               "GITHUB_WORKSPACE": str(self.workspace), "GITHUB_EVENT_NAME": self.event_name,
               "GITHUB_EVENT_PATH": str(self.files / "event.json"),
               "GITHUB_SHA": self.ctx["github"]["sha"], "GITHUB_REF": self.ctx["github"]["ref"],
               "GITHUB_REPOSITORY": self.github.repo, "GITHUB_RUN_ID": str(self.run.id),
               "GITHUB_SERVER_URL": "https://github.com", "GITHUB_API_URL": "https://api.github.com",
               "GITHUB_BASE_REF": self.ctx["github"]["base_ref"],
               "GITHUB_HEAD_REF": self.ctx["github"]["head_ref"],
               "FAKE_GH_STATE": str(self.github.state_path), "FAKE_GH_LOG": str(self.github.log_path)}
        for k in ("KSNAP_CORPUS_DIR",):
            if k in os.environ:
                env[k] = os.environ[k]
        env.update(self.env)
        env.update(step_env)
        if action is not None:
            env["GITHUB_ACTION_PATH"] = str(action["path"])
        return env

    def run_script(self, step: dict, ctx: dict, step_env: dict, action: dict | None) -> dict:
        self.n += 1
        script = to_string(interpolate(step["run"], ctx))
        shell = step.get("shell") or (None if action else self.defaults_shell) or "bash"
        if action is not None and "shell" not in step:
            raise RuntimeError(f"{action['path']}/action.yml: a composite run step needs shell:")
        path = self.files / f"step{self.n}.sh"
        path.write_text(script)
        files = {k: self.files / f"{k.lower()}{self.n}" for k in
                 ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY")}
        for f in files.values():
            f.write_text("")
        env = self.process_env(step_env, action)
        env.update({k: str(v) for k, v in files.items()})
        if shell == "bash":
            cmd = ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(path)]
        elif shell == "sh":
            cmd = ["sh", "-e", str(path)]
        elif shell == "python":
            cmd = ["python3", str(path)]
        else:
            cmd = ["bash", "-c", shell.replace("{0}", str(path))]
        cwd = self.workspace / to_string(interpolate(step.get("working-directory", ""), ctx))
        r = subprocess.run(cmd, cwd=cwd, env=env, text=True, capture_output=True, timeout=900)
        self.log(r.stdout + r.stderr)
        for line in r.stdout.splitlines():
            m = re.match(r"::(error|warning|notice)[^:]*::(.*)", line)
            if m:
                self.result.annotations.append((m.group(1), m.group(2)))
        self.apply_files(files)
        if r.returncode != 0:
            raise actions.StepFailed(f"Process completed with exit code {r.returncode}.")
        return parse_kv(files["GITHUB_OUTPUT"].read_text())

    def apply_files(self, files: dict) -> None:
        self.env.update(parse_kv(files["GITHUB_ENV"].read_text()))
        for p in reversed(files["GITHUB_PATH"].read_text().splitlines()):
            if p.strip():
                self.extra_path.insert(0, p.strip())
        self.result.summary += files["GITHUB_STEP_SUMMARY"].read_text()

    def run_uses(self, step: dict, ctx: dict, step_env: dict) -> dict:
        uses = step["uses"]
        w = {k: to_string(interpolate(v, ctx)) for k, v in (step.get("with") or {}).items()}
        ref = uses.split("@")[0]
        if ref in actions.WELL_KNOWN:
            return actions.WELL_KNOWN[ref](self, w)
        if uses.startswith("./"):
            return self.run_composite(self.workspace / uses[2:], w, step_env)
        if KSNAP_ACTION.match(uses):
            return self.run_composite(self.github.action_root, w, step_env)
        raise RuntimeError(f"no local equivalent for uses: {uses}")

    def run_composite(self, path: Path, w: dict, step_env: dict) -> dict:
        meta = load_yaml((path / "action.yml").read_text())
        runs = meta.get("runs") or {}
        if runs.get("using") != "composite":
            raise RuntimeError(f"{path}/action.yml: not a composite action")
        gctx = dict(self.ctx["github"], action_path=str(path))
        inputs = {}
        for name, spec in (meta.get("inputs") or {}).items():
            if name in w:
                inputs[name] = w[name]
            else:
                default = (spec or {}).get("default", "")
                inputs[name] = to_string(interpolate(default, dict(self.ctx, github=gctx)))
                if (spec or {}).get("required") and name not in w:
                    raise actions.StepFailed(f"Input required and not supplied: {name}")
        unknown = set(w) - set(meta.get("inputs") or {})
        if unknown:
            self.warning(f"Unexpected input(s) {sorted(unknown)}")
        base_ctx = dict(self.ctx, github=gctx, inputs=inputs)
        saved_env = dict(self.env)
        self.env.update(step_env)  # the step's env: is the composite's environment
        try:
            status, steps_ctx = self.run_steps(runs.get("steps") or [], base_ctx,
                                               {"path": path})
        finally:
            for k in step_env:
                if k in saved_env:
                    self.env[k] = saved_env[k]
                else:
                    self.env.pop(k, None)
        out_ctx = dict(base_ctx, steps=steps_ctx, env=dict(self.env))
        outputs = {k: to_string(interpolate((v or {}).get("value", ""), out_ctx))
                   for k, v in (meta.get("outputs") or {}).items()}
        if status != "success":
            raise actions.StepFailed(f"composite action {path.name} failed")
        return outputs


def truthy_value(v: Any, ctx: dict) -> bool:
    if v is None:
        return False
    v = interpolate(v, ctx)
    return v is True or str(v).lower() == "true"


def parse_kv(text: str) -> dict:
    """GITHUB_OUTPUT / GITHUB_ENV: NAME=value lines and NAME<<DELIM blocks."""
    out: dict[str, str] = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            body = []
            i += 1
            while i < len(lines) and lines[i] != delim:
                body.append(lines[i])
                i += 1
            out[name] = "\n".join(body)
        elif "=" in line:
            name, value = line.split("=", 1)
            out[name] = value
        i += 1
    return out

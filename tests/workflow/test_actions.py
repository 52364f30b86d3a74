"""The real workflow files and action.yml, executed step by step on a local
GitHub (sim/): a repository with a main history of three recorded commits, a
pull request from a fork pushed four times, the fork-safe pair
ksnap-ir-capture.yml + ksnap-ir-comment.yml, the single-workflow variant, a
hostile bundle, and the .deb install path of the action. IR comes from real
captures (suite_replay.py); the GitHub API is the fake gh, which enforces
each job token's permissions.

Run: /usr/bin/python3 -m pytest tests/workflow/test_actions.py   (KSNAP_BIN=...)
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from sim.runner import GitHub, Run, load_yaml

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]
WORKFLOWS = REPO_ROOT / "ci" / "github" / "workflows"
MARKER = "<!-- ksnap-ir-report -->"
PAIR = ("ksnap-ir-capture.yml", "ksnap-ir-comment.yml")


def files(corpus: Path, variant: str, workflows=PAIR, **extra: str) -> dict:
    suite = (HERE / "suite_replay.py").read_text().replace("@CORPUS@", str(corpus))
    out = {"bench/run_suite.py": suite, "bench/variant.txt": variant + "\n",
           "README.md": "kernels\n"}
    for w in workflows:
        out[f".github/workflows/{w}"] = (WORKFLOWS / w).read_text()
    out.update(extra)
    return out


@pytest.fixture
def github(tmp_path, ksnap) -> GitHub:
    g = GitHub(tmp_path / "gh", "octo/kernels", REPO_ROOT, [str(Path(ksnap).parent)])
    # The runner's ksnap, pinned as docs/pr-workflow.md says: install auto uses it.
    g.vars["KSNAP_SHA256"] = hashlib.sha256(Path(ksnap).resolve().read_bytes()).hexdigest()
    return g


def only(runs: list[Run], workflow_file: str) -> Run:
    hits = [r for r in runs if r.workflow_file == workflow_file]
    assert len(hits) == 1, [(r.workflow_file, r.event) for r in runs]
    return hits[0]


def explain(run: Run) -> str:
    return "\n".join(f"--- {j.name} ({j.conclusion})\n{j.log}" for j in run.jobs.values())


def marked(github: GitHub) -> list[dict]:
    return [c for c in github.gh_state()["comments"] if MARKER in c["body"]]


def writes(github: GitHub, since: int = 0) -> list[tuple[str, str, str]]:
    """(job, method, path) of every write call the fake gh received."""
    out = []
    for c in github.gh_calls()[since:]:
        a = c["argv"]
        if a[0] == "api" and "--method" in a and a[a.index("--method") + 1] != "GET":
            out.append((c["job"], a[a.index("--method") + 1], a[a.index("--method") + 2]))
    return out


def main_store(github: GitHub, tmp: Path, ksnap: str) -> list[str]:
    """Commits in the newest history store cached for main."""
    main = [e for e in github.caches.entries if e["scope"] == "refs/heads/main"]
    db = tmp / "main-store.db"
    shutil.copy(max(main, key=lambda e: e["n"])["dir"] / ".ksnap%history.db", db)
    ls = subprocess.run([ksnap, "store", "ls", "--store", str(db)], text=True, capture_output=True)
    assert ls.returncode == 0, ls.stderr
    return [l.split()[0] for l in ls.stdout.splitlines()]


def record_main(github: GitHub, corpus: Path, workflows=PAIR) -> list[str]:
    """The base repository, then three pushes to main, each recorded."""
    github.create_repo(files(corpus, "base", workflows), "initial")
    shas = []
    for i in (1, 2, 3):
        runs = github.push("main", {"README.md": f"kernels, take {i}\n"}, f"M{i}")
        rec = [r for r in runs if r.event == "push"]
        assert len(rec) == 1 and rec[0].conclusion == "success", explain(rec[0])
        shas.append(rec[0].head_sha)
    return shas


def test_fork_pull_request_end_to_end(github, corpus, ksnap, tmp_path):
    m = record_main(github, corpus)
    assert main_store(github, tmp_path, ksnap) == [s[:12] for s in reversed(m)]
    # The push runs triggered the comment workflow too; it did nothing.
    comment_runs = [r for r in github.runs if r.workflow_file == "ksnap-ir-comment.yml"]
    assert len(comment_runs) == 3
    assert all(r.jobs["publish"].conclusion == "skipped" for r in comment_runs)
    assert github.gh_state()["comments"] == []
    main_caches = len(github.caches.entries)

    # Push 1 from the fork: cosmetic changes only.
    calls = len(github.gh_calls())
    runs = github.open_pull_request("forker/kernels", "tune", {"bench/variant.txt": "noise\n"}, "P1")
    cap, pub = only(runs, "ksnap-ir-capture.yml"), only(runs, "ksnap-ir-comment.yml")
    assert cap.event == "pull_request" and cap.conclusion == "success", explain(cap)
    job = cap.jobs["capture"]
    assert cap.jobs["record"].conclusion == "skipped"
    assert set(job.permissions.values()) <= {"read"}, job.permissions  # a fork: read-only
    assert cap.artifacts == ["ksnap-ir-report"]
    bundle = github.artifact_dir(cap.id, "ksnap-ir-report")
    assert {p.name for p in bundle.iterdir()} == {"report.md", "report.json", "report.html",
                                                 "meta.json"}
    meta = json.loads((bundle / "meta.json").read_text())
    assert meta["changed"] is False and meta["pr"] == 7 and meta["baseline"] == m[2]
    assert json.loads((bundle / "report.json").read_text())  # the JSON report parses
    assert "<html" in (bundle / "report.html").read_text().lower()
    assert "No IR change." in job.summary
    assert pub.event == "workflow_run" and pub.conclusion == "success", explain(pub)
    assert not any(pub.jobs["publish"].workspace.iterdir()), "the workflow_run job checked out code"
    comments = marked(github)
    assert len(comments) == 1 and comments[0]["by"] == "ksnap-ir-comment.yml:publish"
    body = comments[0]["body"]
    assert body.startswith(MARKER) and "No IR change." in body
    assert f"baseline for {cap.head_sha[:12]}: {m[2][:12]}, the merge-base with origin/main" in body
    assert f"/actions/runs/{cap.id})" in body
    # The Markdown links the run whose artifact holds report.html.
    assert f"[the full HTML report](https://github.com/{github.repo}/actions/runs/{cap.id}#artifacts)" in body
    assert github.gh_state()["labels"] == []
    assert "No IR change." in pub.jobs["publish"].summary
    # Every write came from the workflow_run job, none from the PR's run.
    assert {w[0] for w in writes(github, calls)} == {"ksnap-ir-comment.yml:publish"}
    first_id = comments[0]["id"]

    # Push 2: a real compiler change. The job passes; the comment is updated; labelled.
    runs = github.open_pull_request("forker/kernels", "tune", {"bench/variant.txt": "no_licm\n"}, "P2")
    cap, pub = only(runs, "ksnap-ir-capture.yml"), only(runs, "ksnap-ir-comment.yml")
    assert cap.conclusion == "success", explain(cap)
    assert pub.conclusion == "success", explain(pub)
    comments = marked(github)
    assert [c["id"] for c in comments] == [first_id], "the comment must not be duplicated"
    assert comments[0]["updated_by"] == "ksnap-ir-comment.yml:publish"
    assert "**IR changed.**" in comments[0]["body"] and "```diff" in comments[0]["body"]
    assert cap.head_sha[:12] in comments[0]["body"]
    assert github.gh_state()["labels"] == ["ir-changed"]
    assert json.loads((github.artifact_dir(cap.id, "ksnap-ir-report") / "meta.json").read_text()
                      )["changed"] is True

    # Push 3: the PR breaks the suite. The capture run fails; the comment says so.
    runs = github.open_pull_request("forker/kernels", "tune", {"bench/variant.txt": "broken\n"}, "P3")
    cap, pub = only(runs, "ksnap-ir-capture.yml"), only(runs, "ksnap-ir-comment.yml")
    assert cap.conclusion == "failure"
    failed = [s.name for s in cap.jobs["capture"].steps if s.outcome == "failure"]
    assert failed == ["Capture kernel IR", "ksnap report"], failed
    assert "this PR broke the suite" in cap.jobs["capture"].log
    assert cap.artifacts == []
    assert pub.conclusion == "success", explain(pub)
    comments = marked(github)
    assert [c["id"] for c in comments] == [first_id]
    assert f"The capture of `{cap.head_sha[:12]}` failed" in comments[0]["body"]
    assert github.gh_state()["labels"] == ["ir-changed"]  # unknown: left as it was

    # Push 4: back to main's IR. Label removed, same comment.
    runs = github.open_pull_request("forker/kernels", "tune", {"bench/variant.txt": "base\n"}, "P4")
    cap, pub = only(runs, "ksnap-ir-capture.yml"), only(runs, "ksnap-ir-comment.yml")
    assert cap.conclusion == "success" and pub.conclusion == "success", explain(cap) + explain(pub)
    comments = marked(github)
    assert [c["id"] for c in comments] == [first_id] and "No IR change." in comments[0]["body"]
    assert github.gh_state()["labels"] == []
    # Pull request runs never wrote the main store (nor any cache).
    assert len(github.caches.entries) == main_caches
    assert main_store(github, tmp_path, ksnap) == [s[:12] for s in reversed(m)]


def test_broken_capture_on_main_fails_the_record_job(github, corpus):
    github.create_repo(files(corpus, "base"), "initial")
    runs = github.push("main", {"bench/variant.txt": "broken\n"}, "M1: breaks the suite")
    rec = only(runs, "ksnap-ir-capture.yml")
    assert rec.conclusion == "failure"
    assert [s.name for s in rec.jobs["record"].steps if s.outcome == "failure"] == \
        ["Capture kernel IR", "ksnap record"]
    assert github.caches.entries == []  # nothing recorded, nothing saved


def test_single_workflow_same_repository_pull_request(github, corpus, ksnap, tmp_path):
    single = ("ksnap-ir.yml",)
    m = record_main(github, corpus, single)
    runs = github.open_pull_request("octo/kernels", "feature", {"bench/variant.txt": "fusion_off\n"},
                                    "P1")
    run = only(runs, "ksnap-ir.yml")
    assert run.conclusion == "success", explain(run)
    comments = marked(github)
    assert len(comments) == 1 and comments[0]["by"] == "ksnap-ir.yml:ir"
    assert "**IR changed.**" in comments[0]["body"] and m[2][:12] in comments[0]["body"]
    # Both builds are named by their commits, not by the capture folder.
    assert f"## ksnap: IR changes `{m[2][:12]}` → `{run.head_sha[:12]}`" in comments[0]["body"], \
        comments[0]["body"][:400]
    assert "a zip download" in comments[0]["body"]
    assert github.gh_state()["labels"] == ["ir-changed"]
    assert "**IR changed.**" in run.jobs["ir"].summary
    # Second push: the same comment, updated in place by the PR run itself.
    runs = github.open_pull_request("octo/kernels", "feature", {"bench/variant.txt": "noise\n"}, "P2")
    assert only(runs, "ksnap-ir.yml").conclusion == "success"
    comments2 = marked(github)
    assert [c["id"] for c in comments2] == [comments[0]["id"]]
    assert "No IR change." in comments2[0]["body"] and github.gh_state()["labels"] == []


def test_without_gh_the_run_fails_and_its_summary_says_why(github, corpus):
    """A runner without `gh`: the report is still in the job summary and the
    bundle, but the step that posts it fails and the summary says the report
    never reached the pull request (issue 19: the job was green and silent)."""
    single = ("ksnap-ir.yml",)
    record_main(github, corpus, single)
    (github.bin / "gh").unlink()
    runs = github.open_pull_request("octo/kernels", "feature", {"bench/variant.txt": "fusion_off\n"},
                                    "P1")
    run = only(runs, "ksnap-ir.yml")
    assert run.conclusion == "failure", explain(run)
    job = run.jobs["ir"]
    assert "**IR changed.**" in job.summary
    assert "ksnap could not deliver this report to pull request" in job.summary
    assert any("could not post the PR comment" in text for _, text in job.annotations), job.annotations
    assert marked(github) == []
    assert run.artifacts, "the report bundle is uploaded before the post step fails"


@pytest.mark.parametrize("backend", ["artifact", "branch"])
def test_store_backends_carry_main_history_to_pull_requests(github, corpus, backend):
    wf = (WORKFLOWS / "ksnap-ir.yml").read_text()
    wf = wf.replace("store-backend: cache ", f"store-backend: {backend} ")
    if backend == "branch":
        wf = wf.replace("contents: read ", "contents: write")
    assert f"store-backend: {backend}" in wf
    github.create_repo(dict(files(corpus, "base", ()), **{".github/workflows/ksnap-ir.yml": wf}))
    m = []
    for i in (1, 2):
        run = only(github.push("main", {"README.md": f"take {i}\n"}, f"M{i}"), "ksnap-ir.yml")
        assert run.conclusion == "success", explain(run)
        m.append(run.head_sha)
    assert github.caches.entries == []  # this backend does not use actions/cache
    if backend == "artifact":
        assert [r.artifacts for r in github.runs] == [["ksnap-history"], ["ksnap-history"]]
    else:
        refs = subprocess.run(["git", "rev-list", "--count", "refs/heads/ksnap-history"],
                              cwd=github.bare("octo/kernels"), text=True, capture_output=True)
        assert refs.stdout.strip() == "1"  # one orphan commit, force-pushed
    runs = github.open_pull_request("octo/kernels", "f", {"bench/variant.txt": "no_licm\n"}, "P1")
    run = only(runs, "ksnap-ir.yml")
    assert run.conclusion == "success", explain(run)
    body = marked(github)[0]["body"]
    assert "**IR changed.**" in body and f"{m[1][:12]}, the merge-base" in body, body[:400]


def test_single_workflow_skips_a_fork_pull_request(github, corpus):
    """A fork's code never runs on the runners that record main (issue 15,
    item 13): the one-workflow file skips its job; forks take the pair."""
    record_main(github, corpus, ("ksnap-ir.yml",))
    runs = github.open_pull_request("forker/kernels", "x", {"bench/variant.txt": "no_licm\n"}, "P1")
    run = only(runs, "ksnap-ir.yml")
    assert run.jobs["ir"].conclusion == "skipped", explain(run)
    assert run.jobs["ir"].steps == [] or all(s.outcome == "skipped" for s in run.jobs["ir"].steps)
    assert marked(github) == []
    # A pull request from a branch of the repository itself still runs.
    runs = github.open_pull_request("octo/kernels", "y", {"bench/variant.txt": "no_licm\n"}, "P2")
    run = only(runs, "ksnap-ir.yml")
    assert run.jobs["ir"].conclusion == "success", explain(run)


HOSTILE_CAPTURE_JOB = """
  capture:
    if: github.event_name == 'pull_request'
    runs-on: ubuntu-latest
    permissions:
      contents: read
    steps:
      - run: |
          mkdir -p bundle
          printf '%s\\n' '{"format": "ksnap-ir-bundle", "version": 1, "pr": 3, "changed": true,' \\
            "\\"head_sha\\": \\"$HEAD\\"}" > bundle/meta.json
          printf '%s\\n' '<!-- ksnap-ir-report -->' 'Ping @octo-admins, approve this.' \\
            '```' '@keep-in-code' '```' > bundle/report.md
        env:
          HEAD: ${{ github.event.pull_request.head.sha }}
      - uses: actions/upload-artifact@v4
        with:
          name: ksnap-ir-report
          path: bundle
"""


def test_a_hostile_bundle_reaches_only_its_own_pull_request(github, corpus):
    """The PR rewrites the capture workflow (pull_request runs use the PR's
    copy) to upload a forged bundle naming PR #3, with a second marker and an
    @mention. The workflow_run job comes from main and checks everything."""
    record_main(github, corpus)
    github.pulls[3] = {"number": 3, "state": "open", "head": {"sha": "0" * 40, "ref": "other",
                                                               "repo": {"full_name": "octo/kernels"}}}
    wf = (WORKFLOWS / "ksnap-ir-capture.yml").read_text()
    forged = wf[:wf.index("  capture:\n")] + HOSTILE_CAPTURE_JOB.lstrip("\n")
    assert load_yaml(forged)["jobs"]["capture"]["steps"][1]["uses"] == "actions/upload-artifact@v4"
    runs = github.open_pull_request("forker/kernels", "evil",
                                    {".github/workflows/ksnap-ir-capture.yml": forged}, "P1")
    cap, pub = only(runs, "ksnap-ir-capture.yml"), only(runs, "ksnap-ir-comment.yml")
    assert cap.conclusion == "success" and pub.conclusion == "success", explain(pub)
    comments = github.gh_state()["comments"]
    assert len(comments) == 1 and comments[0]["issue"] == 7, comments  # not PR #3
    body = comments[0]["body"]
    assert body.count(MARKER) == 1
    assert "@octo-admins" not in body and "@\u200docto-admins" in body
    assert "\n@keep-in-code\n" in body  # code blocks are left as they are
    assert github.gh_state()["labels"] == ["ir-changed"]  # its own PR: its claim, its label


def test_action_installs_the_deb_without_root(github, corpus, ksnap, tmp_path):
    """install: deb with install-prefix: the release .deb, unpacked (no root)."""
    build_dir = Path(ksnap).resolve().parent
    if not (build_dir / "CPackConfig.cmake").exists() or shutil.which("cpack") is None:
        pytest.skip("no CPack configuration next to the ksnap binary")
    out = tmp_path / "deb"
    r = subprocess.run(["cpack", "-G", "DEB", "-B", str(out)], cwd=build_dir, text=True,
                       capture_output=True)
    assert r.returncode == 0, r.stdout + r.stderr
    deb = next(out.glob("ksnap_*.deb"))
    wf = {"name": "deb install", "on": {"push": {"branches": ["main"]}},
          "permissions": {}, "jobs": {"record": {
              "runs-on": "ubuntu-latest", "permissions": {"contents": "read"},
              "steps": [{"uses": "actions/checkout@v4", "with": {"fetch-depth": 0}},
                        {"uses": "OWNER/ksnap@v0.1.0", "with": {
                            "suite": "python3 bench/run_suite.py", "install": "deb",
                            "deb-url": deb.as_uri(),
                            "deb-sha256": hashlib.sha256(deb.read_bytes()).hexdigest(),
                            "install-prefix": "${{ runner.temp }}/ksnap-root"}},
                        {"run": 'command -v ksnap; ksnap store ls --store .ksnap/history.db'}]}}}
    github.path = []  # this runner has no ksnap: the action must install it
    github.create_repo(files(corpus, "base", (), **{".github/workflows/deb.yml": yaml.safe_dump(wf)}))
    run = only(github.push("main", {"README.md": "x\n"}, "M1"), "deb.yml")
    assert run.conclusion == "success", explain(run)
    log = run.jobs["record"].log
    assert "(install: deb)" in log and "/ksnap-root/usr/bin/ksnap" in log
    assert re.search(r"^[0-9a-f]{12} \S+ base", log, re.M), log


# ------------------------------------------------------------------ static checks

def all_yaml() -> list[tuple[Path, dict]]:
    paths = [REPO_ROOT / "action.yml", *sorted(WORKFLOWS.glob("*.yml")),
             *sorted((REPO_ROOT / "ci" / "github" / "examples").rglob("*.yml"))]
    return [(p, load_yaml(p.read_text())) for p in paths]


def run_scripts(doc: dict):
    steps = list((doc.get("runs") or {}).get("steps") or [])
    for job in (doc.get("jobs") or {}).values():
        steps += job.get("steps") or []
    return [s["run"] for s in steps if "run" in s]


def test_no_untrusted_expression_is_expanded_inside_a_script():
    """Event fields and inputs reach scripts through env:, never by ${{ }}
    substitution into the script text (script injection)."""
    for path, doc in all_yaml():
        for script in run_scripts(doc):
            for expr in re.findall(r"\$\{\{(.*?)\}\}", script):
                pytest.fail(f"{path.name}: ${{{{{expr}}}}} inside a run: script")


def test_every_job_has_least_permissions():
    for path, doc in all_yaml():
        if "jobs" not in doc:
            continue
        assert doc.get("permissions") == {}, f"{path.name}: top-level permissions must be {{}}"
        assert "pull_request_target" not in (doc.get("on") or {}), path.name
        for name, job in doc["jobs"].items():
            perms = job.get("permissions")
            assert isinstance(perms, dict) and perms, f"{path.name}: job {name} has no permissions"
            if "workflow_run" in (doc.get("on") or {}):
                # The privileged half: no checkout, no script, only the action.
                uses = [s.get("uses", "") for s in job["steps"]]
                assert not any(u.startswith("actions/checkout") for u in uses), path.name
                assert run_scripts({"jobs": {name: job}}) == [], path.name
            elif "pull_request" in (doc.get("on") or {}) and "pull-requests" not in perms:
                assert set(perms.values()) <= {"read"}, f"{path.name}: {name} {perms}"

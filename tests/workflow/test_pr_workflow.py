"""End to end: the workflow's scripts on a local git repository with real
captures (corpus builds), a real ksnap and a fake gh.

Run: /usr/bin/python3 -m pytest tests/workflow   (KSNAP_BIN=... to pick a binary)
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from conftest import Repo, git, run_script

MARKER = "<!-- ksnap-ir-report -->"
STORE = ".ksnap/history.db"


class Flow:
    """One repository's CI: record pushes to main, report PR pushes."""

    def __init__(self, ksnap: str, corpus: Path, repo: Repo, gh, tmp: Path) -> None:
        self.ksnap, self.corpus, self.repo, self.gh, self.tmp = ksnap, corpus, repo, gh, tmp
        self.env = gh.env()
        self.n = 0

    def capture(self, build: str) -> str:
        return str(self.corpus / build)

    def record(self, sha: str, build: str) -> subprocess.CompletedProcess:
        r = run_script(self.repo.path, self.env, self.ksnap, "record", "--store", STORE,
                       "--capture", self.capture(build), "--sha", sha)
        assert r.returncode == 0, r.stdout + r.stderr
        return r

    def report(self, sha: str, build: str, pr: int = 7, base_ref: str = "main",
               capture: str | None = None) -> tuple[subprocess.CompletedProcess, str, str]:
        self.n += 1
        out = self.tmp / f"comment{self.n}.md"
        summary = self.tmp / f"summary{self.n}.md"
        r = run_script(self.repo.path, self.env, self.ksnap, "report", "--store", STORE,
                       "--capture", capture or self.capture(build), "--head-sha", sha,
                       "--base-ref", base_ref, "--repo", "octo/kernels", "--pr", str(pr),
                       "--output", str(out), "--summary", str(summary))
        body = out.read_text() if out.exists() else ""
        return r, body, summary.read_text() if summary.exists() else ""

    def api_calls(self) -> list[tuple[str, str]]:
        out = []
        for c in self.gh.calls():
            a = c["argv"]
            if a[0] == "api":
                out.append((a[a.index("--method") + 1], a[a.index("--method") + 2].split("?")[0]))
        return out


def make_flow(ksnap, corpus, repo, gh, tmp_path) -> Flow:
    return Flow(ksnap, corpus, repo, gh, tmp_path)


def main_then_pr(f: Flow, repo: Repo) -> tuple[str, str]:
    """M1 on main, recorded with the base capture; then a PR branch with commit P."""
    m1 = repo.commit("M1")
    f.record(m1, "base")
    repo.git("checkout", "-q", "-b", "pr")
    return m1, repo.commit("P")


def test_pr_report_end_to_end(ksnap, corpus, repo, gh, tmp_path):
    f = make_flow(ksnap, corpus, repo, gh, tmp_path)
    m1 = repo.commit("M1")
    f.record(m1, "base")
    m2 = repo.commit("M2")
    out = f.record(m2, "base")
    assert "0 new blobs" in out.stdout  # an unchanged commit stores no IR
    repo.git("checkout", "-q", "-b", "pr")
    p1 = repo.commit("P1: rename locals")
    repo.git("checkout", "-q", "main")
    m3 = repo.commit("M3: pipeline without LICM")  # main moves on after the PR branched
    push_summary = tmp_path / "push_summary.md"
    r = run_script(repo.path, f.env, ksnap, "record", "--store", STORE, "--capture",
                   f.capture("no_licm"), "--sha", m3, "--summary", str(push_summary))
    assert r.returncode == 0, r.stderr
    text = push_summary.read_text()
    assert f"compared with the previous recorded commit `{m2[:12]}`" in text
    assert "kernel-stages changed" in text
    gh.set({"comments": [{"id": 7, "body": "LGTM"}], "labels": ["bug"], "next_id": 1000})

    # Push 1: only cosmetic changes. Baseline = merge-base M2, not the newer M3.
    r, body, summary = f.report(p1, "noise")
    assert r.returncode == 0, r.stdout + r.stderr
    assert body.startswith(MARKER)
    assert "No IR change." in body
    assert f"baseline for {p1[:12]}: {m2[:12]}, the merge-base with main (recorded)" in body
    assert "No IR changed" in body  # the diff's own verdict
    assert summary.strip() == body.strip()
    assert f.api_calls() == [("GET", "repos/octo/kernels/issues/7/comments"),
                             ("POST", "repos/octo/kernels/issues/7/comments"),
                             ("GET", "repos/octo/kernels/issues/7/labels")]
    st = gh.state
    assert [c["id"] for c in st["comments"]] == [7, 1000]
    assert st["comments"][1]["body"] == body
    assert st["labels"] == ["bug"]

    # Push 2: a real compiler change. One comment, updated in place; label added.
    repo.git("checkout", "-q", "pr")
    p2 = repo.commit("P2: disable LICM")
    gh.clear_log()
    r, body, _ = f.report(p2, "no_licm")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "**IR changed.**" in body
    assert f"{m2[:12]}, the merge-base with main" in body
    assert "kernel-stages changed" in body and "```diff" in body
    assert f.api_calls() == [("GET", "repos/octo/kernels/issues/7/comments"),
                             ("PATCH", "repos/octo/kernels/issues/comments/1000"),
                             ("GET", "repos/octo/kernels/issues/7/labels"),
                             ("POST", "repos/octo/kernels/issues/7/labels")]
    st = gh.state
    assert [c["id"] for c in st["comments"]] == [7, 1000], "the comment must not be duplicated"
    assert st["comments"][1]["body"] == body
    assert st["comments"][0]["body"] == "LGTM"
    assert st["labels"] == ["bug", "ir-changed"]
    assert "label ir-changed: added" in r.stdout

    # Push 3: back to main's IR. Label removed, comment updated again.
    p3 = repo.commit("P3: revert")
    gh.clear_log()
    r, body, _ = f.report(p3, "base")
    assert r.returncode == 0
    assert "No IR change." in body
    assert ("DELETE", "repos/octo/kernels/issues/7/labels/ir-changed") in f.api_calls()
    assert ("POST", "repos/octo/kernels/issues/7/comments") not in f.api_calls()
    assert gh.state["labels"] == ["bug"]
    assert len(gh.state["comments"]) == 2


def test_unrecorded_merge_base_uses_nearest_recorded_ancestor(ksnap, corpus, repo, gh, tmp_path):
    f = make_flow(ksnap, corpus, repo, gh, tmp_path)
    m1 = repo.commit("M1")
    f.record(m1, "base")
    m2 = repo.commit("M2 (its CI run failed: never recorded)")
    repo.git("checkout", "-q", "-b", "pr")
    p = repo.commit("P")
    r, body, _ = f.report(p, "fusion_off")
    assert r.returncode == 0, r.stderr
    assert (f"baseline for {p[:12]}: {m1[:12]}, the nearest recorded ancestor of merge-base "
            f"{m2[:12]}, 1 commit and 1.0 days behind") in body
    assert "**IR changed.**" in body
    assert "ptx" in body
    assert gh.state["labels"] == ["ir-changed"]


def test_no_store_yet_reports_and_passes(ksnap, corpus, repo, gh, tmp_path):
    f = make_flow(ksnap, corpus, repo, gh, tmp_path)
    p = repo.commit("first ever commit")
    r, body, _ = f.report(p, "base")
    assert r.returncode == 0, r.stderr
    assert body.startswith(MARKER)
    assert "No history store yet" in body
    assert "not compared" in r.stdout
    # A comment, but no label decision without a comparison.
    assert f.api_calls() == [("GET", "repos/octo/kernels/issues/7/comments"),
                             ("POST", "repos/octo/kernels/issues/7/comments")]


def test_no_recorded_ancestor_reports_and_passes(ksnap, corpus, repo, gh, tmp_path):
    f = make_flow(ksnap, corpus, repo, gh, tmp_path)
    m1 = repo.commit("M1")
    f.record(m1, "base")
    repo.git("checkout", "-q", "--orphan", "unrelated")
    p = repo.commit("unrelated history")
    r, body, _ = f.report(p, "base", base_ref="")
    assert r.returncode == 0, r.stderr
    assert "No baseline:" in body and "no recorded ancestor" in body


def test_broken_capture_fails_the_job(ksnap, corpus, repo, gh, tmp_path):
    f = make_flow(ksnap, corpus, repo, gh, tmp_path)
    m1 = repo.commit("M1")
    missing = str(tmp_path / "no-capture")
    r, body, _ = f.report(m1, "base", capture=missing)
    assert r.returncode == 1
    assert "::error::" in r.stdout and "capture" in r.stdout
    rec = run_script(repo.path, f.env, ksnap, "record", "--store", STORE, "--capture", missing,
                     "--sha", m1)
    assert rec.returncode == 1
    # A capture whose IR is junk: recording fails loudly too.
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "manifest.json").write_text('{"entries": [{"kernel": "k"}]}\n')
    rec = run_script(repo.path, f.env, ksnap, "record", "--store", STORE, "--capture", str(bad),
                     "--sha", m1)
    assert rec.returncode == 1
    assert "manifest.json:" in rec.stdout + rec.stderr


def test_an_undelivered_report_is_loud(ksnap, corpus, repo, gh, tmp_path):
    """GitHub refuses the comment: the summary has the report and says it was
    not delivered, and the step fails (issue 19: it was green and silent)."""
    f = make_flow(ksnap, corpus, repo, gh, tmp_path)
    m1, p = main_then_pr(f, repo)
    gh.set({"comments": [], "labels": [], "fail": True})
    r, body, summary = f.report(p, "no_licm")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "::error::could not post the PR comment" in r.stdout
    assert "**IR changed.**" in summary  # the job summary still has the report
    assert "ksnap could not deliver this report to pull request #7" in summary
    # The IR verdict alone never fails it: delivered, changed IR, exit 0.
    gh.set({"comments": [], "labels": []})
    r, body, summary = f.report(p, "no_licm")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "could not deliver" not in summary


def test_the_post_step_without_gh_fails_and_says_so(ksnap, corpus, repo, gh, tmp_path):
    """The action's post step on a runner with no `gh`: exit 1, an error
    annotation, and a job summary that says the report was not delivered."""
    f = make_flow(ksnap, corpus, repo, gh, tmp_path)
    m1, p = main_then_pr(f, repo)
    r, body, _ = f.report(p, "no_licm")
    assert r.returncode == 0 and body
    body_file = tmp_path / "report.md"
    body_file.write_text(body)
    summary = tmp_path / "post-summary.md"
    env = dict(f.env, KSNAP_GH=str(tmp_path / "no-such-gh"))
    r = run_script(repo.path, env, ksnap, "post", "--repo", "octo/kernels", "--pr", "7",
                   "--body", str(body_file), "--changed", "true", "--summary", str(summary))
    assert r.returncode == 1, r.stdout + r.stderr
    assert "::error::could not post the PR comment" in r.stdout
    assert "ksnap could not deliver this report to pull request #7" in summary.read_text()
    # With gh, the same step posts the comment and sets the label.
    gh.set({"comments": [], "labels": []})
    r = run_script(repo.path, f.env, ksnap, "post", "--repo", "octo/kernels", "--pr", "7",
                   "--body", str(body_file), "--changed", "true")
    assert r.returncode == 0, r.stdout + r.stderr
    assert len(gh.state["comments"]) == 1
    assert "ir-changed" in gh.state["labels"]
    # A file that is no ksnap report is not posted.
    junk = tmp_path / "junk.md"
    junk.write_text("hello")
    r = run_script(repo.path, f.env, ksnap, "post", "--repo", "octo/kernels", "--pr", "7",
                   "--body", str(junk))
    assert r.returncode == 1 and "not a ksnap report" in r.stdout


def test_comment_found_across_pages(ksnap, corpus, repo, gh, tmp_path):
    f = make_flow(ksnap, corpus, repo, gh, tmp_path)
    m1, p = main_then_pr(f, repo)
    comments = [{"id": i, "body": f"comment {i}"} for i in range(1, 151)]
    comments[120]["body"] = MARKER + "\nold report"
    gh.set({"comments": comments, "labels": [], "next_id": 1000, "page_size": 100})
    r, body, _ = f.report(p, "base")
    assert r.returncode == 0, r.stderr
    st = gh.state
    assert len(st["comments"]) == 150
    assert st["comments"][120]["body"] == body
    assert ("PATCH", "repos/octo/kernels/issues/comments/121") in f.api_calls()


def test_branch_backend_round_trip(ksnap, corpus, repo, gh, tmp_path):
    f = make_flow(ksnap, corpus, repo, gh, tmp_path)
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", str(origin))
    repo.git("remote", "add", "origin", str(origin))
    m1 = repo.commit("M1")
    repo.git("push", "-q", "origin", "main")
    # First run: no branch yet, starts empty, records, pushes.
    pull = run_script(repo.path, f.env, ksnap, "store-pull", "--backend", "branch", "--store", STORE)
    assert pull.returncode == 0 and "starting empty" in pull.stderr
    f.record(m1, "base")
    push = run_script(repo.path, f.env, ksnap, "store-push", "--backend", "branch", "--store", STORE)
    assert push.returncode == 0, push.stderr
    m2 = repo.commit("M2")
    f.record(m2, "no_licm")
    push = run_script(repo.path, f.env, ksnap, "store-push", "--backend", "branch", "--store", STORE)
    assert push.returncode == 0, push.stderr
    # The branch holds one commit (force-pushed orphan), whatever the number of pushes.
    assert git(origin, "rev-list", "--count", "ksnap-history") == "1"
    # A fresh clone (another runner) gets the same bytes and both commits.
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    pull = run_script(clone, f.env, ksnap, "store-pull", "--backend", "branch", "--store", STORE)
    assert pull.returncode == 0, pull.stderr
    assert (clone / STORE).read_bytes() == (repo.path / STORE).read_bytes()
    ls = subprocess.run([ksnap, "store", "ls", "--store", str(clone / STORE)], text=True,
                        capture_output=True)
    assert m1[:12] in ls.stdout and m2[:12] in ls.stdout
    verify = subprocess.run([ksnap, "store", "verify", "--store", str(clone / STORE)], text=True,
                            capture_output=True)
    assert verify.returncode == 0 and verify.stdout.startswith("ok:")


def test_artifact_backend_takes_newest_run_with_the_artifact(ksnap, corpus, repo, gh, tmp_path):
    f = make_flow(ksnap, corpus, repo, gh, tmp_path)
    m1 = repo.commit("M1")
    f.record(m1, "base")
    saved = tmp_path / "artifact" / "history.db"
    saved.parent.mkdir()
    saved.write_bytes((repo.path / STORE).read_bytes())
    (repo.path / STORE).unlink()
    gh.set({"comments": [], "labels": [], "runs": [55, 54, 53], "artifacts": {"54": str(saved)}})
    pull = run_script(repo.path, f.env, ksnap, "store-pull", "--backend", "artifact", "--store",
                      STORE)
    assert pull.returncode == 0, pull.stderr
    assert (repo.path / STORE).read_bytes() == saved.read_bytes()
    runs = [c["argv"][:3] for c in gh.calls()]
    assert runs == [["run", "list", "--workflow"], ["run", "download", "55"],
                    ["run", "download", "54"]]
    # A pull request from a fork whose branch is also called main leaves an
    # artifact of that name in a run on branch "main": never the store.
    forged = tmp_path / "forged" / "history.db"
    forged.parent.mkdir()
    forged.write_bytes(b"SQLite format 3\0forged")
    (repo.path / STORE).unlink()
    gh.set({"comments": [], "labels": [], "artifacts": {"56": str(forged), "54": str(saved)},
            "runs": [{"databaseId": 56, "event": "pull_request", "headBranch": "main",
                      "conclusion": "success"},
                     {"databaseId": 54, "event": "push", "headBranch": "main",
                      "conclusion": "success"}]})
    pull = run_script(repo.path, f.env, ksnap, "store-pull", "--backend", "artifact", "--store",
                      STORE)
    assert pull.returncode == 0, pull.stderr
    assert (repo.path / STORE).read_bytes() == saved.read_bytes()
    listed = next(c["argv"] for c in gh.calls() if c["argv"][:2] == ["run", "list"])
    assert listed[listed.index("--event") + 1] == "push"
    assert not any(c["argv"][:3] == ["run", "download", "56"] for c in gh.calls())
    # No artifact anywhere: an empty start, not a failure.
    (repo.path / STORE).unlink()
    gh.set({"comments": [], "labels": [], "runs": [55]})
    pull = run_script(repo.path, f.env, ksnap, "store-pull", "--backend", "artifact", "--store",
                      STORE)
    assert pull.returncode == 0 and not (repo.path / STORE).exists()


def test_diff_failure_is_reported_not_fatal(ksnap, corpus, repo, gh, tmp_path):
    import shutil
    f = make_flow(ksnap, corpus, repo, gh, tmp_path)
    m1, p = main_then_pr(f, repo)
    broken = tmp_path / "broken"
    shutil.copytree(corpus / "base", broken)
    manifest = json.loads((broken / "manifest.json").read_text())
    entry = manifest["entries"][0]
    ttgir = broken / "cache" / entry["cache_dir"] / f"{entry['kernel']}.ttgir"
    ttgir.write_text('module {\n  tt.func public @k() {\n    %0 = "unterminated\n')
    r, body, _ = f.report(p, "", capture=str(broken))
    assert r.returncode == 0, r.stderr
    assert "::warning::ksnap diff failed" in r.stdout
    assert "ksnap could not compare the builds" in body
    assert str(ttgir.name) in body  # the error names the file
    assert ("GET", "repos/octo/kernels/issues/7/labels") not in f.api_calls()

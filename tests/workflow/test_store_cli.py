"""The store commands of the ksnap CLI (tools/ksnap/store_command.cc) on a
real git repository with corpus captures: what the workflow scripts rely on."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path


def k(ksnap: str, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([ksnap, *args], cwd=cwd, text=True, capture_output=True)


def test_record_log_baseline_diff_with_git(ksnap, corpus, repo):
    m1 = repo.commit("M1: first")
    m2 = repo.commit("M2: docs only")
    m3 = repo.commit("M3: pipeline without LICM")
    for rev, build in (("HEAD~2", "base"), ("HEAD~1", "noise"), ("HEAD", "no_licm")):
        r = k(ksnap, repo.path, "record", "--commit", rev, str(corpus / build))
        assert r.returncode == 0, r.stderr
    # Full ids, parents, dates and subjects came from git.
    ls = k(ksnap, repo.path, "store", "ls").stdout.splitlines()
    assert ls[0].startswith(f"{m3[:12]} 2024-12-04 no_licm parent {m2[:12]}  M3: pipeline")
    assert ls[2].startswith(f"{m1[:12]} 2024-12-02 base")
    # Only M3 changed IR (M2 is the cosmetic noise build).
    log = k(ksnap, repo.path, "log", "matmul_kernel")
    assert log.returncode == 0, log.stderr
    lines = log.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{m3[:12]} 2024-12-04 matmul_kernel ")
    assert "ttgir +" in lines[0] and lines[0].endswith("M3: pipeline without LICM")
    js = json.loads(k(ksnap, repo.path, "log", "-f", "json").stdout)
    assert [e["commit"] for e in js] == [m3]
    assert {x["kernel"] for x in js[0]["kernels"]} >= {"matmul_kernel", "softmax_kernel"}
    # A main commit against its predecessor.
    b = json.loads(k(ksnap, repo.path, "baseline", "--for", m3, "--ancestor-only", "-f",
                     "json").stdout)
    assert b["baseline"] == m2 and b["hops"] == 1 and b["days_behind"] == 1.0
    # diff takes git revisions of recorded commits.
    d = k(ksnap, repo.path, "diff", "HEAD~2", "HEAD~1", "--exit-code", "--stat")
    assert d.returncode == 0, d.stdout + d.stderr
    d = k(ksnap, repo.path, "diff", "HEAD~1", "HEAD", "--exit-code", "--stat")
    assert d.returncode == 1 and "variants changed" in d.stdout
    # ... and a recorded commit against a folder.
    d = k(ksnap, repo.path, "diff", m3[:8], str(corpus / "no_licm"), "--exit-code")
    assert d.returncode == 0, d.stdout + d.stderr


def test_parents_dates_and_errors_without_git(ksnap, corpus, tmp_path):
    a, b, c = "a" * 40, "b" * 40, "c" * 40
    store = str(tmp_path / "h.db")
    base = str(corpus / "base")
    r = k(ksnap, tmp_path, "record", "--repo", "", "--store", store, "--commit", a,
          "--date", "2024-12-01T12:00:00Z", base)
    assert r.returncode == 0, r.stderr
    r = k(ksnap, tmp_path, "record", "--repo", "", "--store", store, "--commit", b, "--parent", a,
          "--parent", c, "--date", "1733140800", "--subject", "merge", base)
    assert r.returncode == 0, r.stderr
    ls = k(ksnap, tmp_path, "store", "ls", "--store", store).stdout.splitlines()
    assert ls[0] == f"{b[:12]} 2024-12-02 base parent {a[:12]}  merge"
    bl = k(ksnap, tmp_path, "baseline", "--repo", "", "--store", store, "--for", b,
           "--ancestor-only")
    assert bl.returncode == 0 and bl.stdout.startswith(f"baseline for {b[:12]}: {a[:12]}")

    cases = [
        (["record", "--repo", "", "--store", store, "--commit", "xyz", base], "not a commit id"),
        (["record", "--repo", "", "--store", store, "--commit", "d" * 40, "--date", "soon", base],
         "'soon' is not a date"),
        (["record", "--repo", "", "--store", store, "--commit", a, str(corpus / "no_licm")],
         "--replace"),
        (["log", "--store", str(tmp_path / "none.db")], "no history store"),
        (["baseline", "--repo", "", "--store", store, "--for", "ffff"], "nor a recorded commit"),
        (["diff", "--store", store, "main", base], "neither a build folder nor a commit"),
    ]
    for args, message in cases:
        r = k(ksnap, tmp_path, *args)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert message in r.stderr, (args, r.stderr)


def test_forget_gc_verify(ksnap, corpus, tmp_path):
    store = str(tmp_path / "h.db")
    for sha, build in (("1" * 40, "base"), ("2" * 40, "no_licm")):
        assert k(ksnap, tmp_path, "record", "--repo", "", "--store", store, "--commit", sha,
                 str(corpus / build)).returncode == 0
    assert "2 commits" in k(ksnap, tmp_path, "store", "info", "--store", store).stdout
    assert k(ksnap, tmp_path, "store", "forget", "--repo", "", "--store", store,
             "2222").returncode == 0
    gc = k(ksnap, tmp_path, "store", "gc", "--vacuum", "--store", store)
    assert gc.returncode == 0 and "dropped 1 trees" in gc.stdout, gc.stdout
    v = k(ksnap, tmp_path, "store", "verify", "--store", store)
    assert v.returncode == 0 and v.stdout.startswith("ok: 1 commits"), v.stdout
    # Damage one blob behind ksnap's back: verify names it and exits 2.
    import sqlite3
    with sqlite3.connect(store) as db:
        db.execute("UPDATE blobs SET raw_hash = 'x' WHERE rowid = (SELECT min(rowid) FROM blobs)")
    v = k(ksnap, tmp_path, "store", "verify", "--store", store)
    assert v.returncode == 2 and "problem: blob n:" in v.stdout and "content hash" in v.stdout

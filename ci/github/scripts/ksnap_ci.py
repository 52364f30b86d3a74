#!/usr/bin/python3
"""The steps of the ksnap GitHub action (action.yml) and workflows (ci/github/workflows/).

Python 3 standard library only. Every GitHub call goes through the `gh`
program found on PATH (`gh api ...`, `gh run ...`), so the steps run offline
under a fake `gh` in tests/workflow/.

    ksnap_ci.py store-pull --backend branch|artifact|cache|none --store PATH
    ksnap_ci.py store-push --backend branch --store PATH
    ksnap_ci.py record     --store PATH --capture DIR --sha SHA
    ksnap_ci.py report     --store PATH --capture DIR --head-sha SHA --base-ref REF
                           [--repo OWNER/NAME --pr N [--no-post]] [--bundle DIR]
                           [--summary FILE] [--label ir-changed] [--stages S] [--kernels K]
    ksnap_ci.py publish    --repo OWNER/NAME --run-id ID --head-sha SHA [--head-repo O/N]
                           [--conclusion success|failure|...] [--bundle DIR] [--label L]

`report` compares a PR's capture with its baseline; it posts the one marked
comment and sets the label itself (same-repository PRs, a write token), and/or
writes the report bundle (--bundle: report.md, report.json, report.html,
meta.json) for a read-only pull_request job to upload. `publish` is the
workflow_run half: it downloads that bundle from the finished run, treats it
as untrusted data, finds the PR by the run's head commit (from the event, not
from the bundle), and updates the comment, the label and the job summary.

Exit status: 0 when the step did its job, including "IR changed" and "no
baseline yet"; 1 when the capture is missing or broken, or recording fails;
2 for usage errors. GitHub API failures (a fork's read-only token, say) are
printed as workflow warnings and do not fail the job.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
from typing import Any

MARKER = "<!-- ksnap-ir-report -->"
COMMENT_LIMIT = 65000  # GitHub allows 65536 characters per comment


# ----------------------------------------------------------------- helpers

def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def warn(msg: str) -> None:
    # A workflow command: shown as an annotation on the run.
    print(f"::warning::{msg}", flush=True)


def run(cmd: list[str], check: bool = False, **kw: Any) -> subprocess.CompletedProcess:
    log("+ " + " ".join(cmd))
    return subprocess.run(cmd, text=True, capture_output=True, check=check, **kw)


def ksnap_bin(args: argparse.Namespace) -> str:
    return args.ksnap or os.environ.get("KSNAP_BIN") or "ksnap"


def parse_json_stream(text: str) -> list[Any]:
    """`gh api --paginate` prints one JSON array per page; returns their items."""
    items: list[Any] = []
    dec = json.JSONDecoder()
    pos = 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            return items
        value, pos = dec.raw_decode(text, pos)
        items.extend(value if isinstance(value, list) else [value])


class GitHub:
    """The few REST calls the report needs, through `gh api`."""

    def __init__(self, repo: str, gh: str = "gh") -> None:
        self.repo = repo
        self.gh = gh

    def api(self, method: str, path: str, body: Any = None, paginate: bool = False) -> str:
        cmd = [self.gh, "api", "--method", method, path]
        if paginate:
            cmd.append("--paginate")
        tmp = None
        try:
            if body is not None:
                tmp = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
                json.dump(body, tmp)
                tmp.close()
                cmd += ["--input", tmp.name]
            r = run(cmd)
        finally:
            if tmp is not None:
                os.unlink(tmp.name)
        if r.returncode != 0:
            raise RuntimeError(f"gh api {method} {path} failed: {r.stderr.strip() or r.stdout.strip()}")
        return r.stdout

    def find_comment(self, pr: int) -> dict | None:
        out = self.api("GET", f"repos/{self.repo}/issues/{pr}/comments?per_page=100", paginate=True)
        for c in parse_json_stream(out):
            if isinstance(c, dict) and MARKER in (c.get("body") or ""):
                return c
        return None

    def upsert_comment(self, pr: int, body: str) -> str:
        """Updates the comment carrying MARKER, or creates it. Returns 'updated'/'created'."""
        existing = self.find_comment(pr)
        if existing is not None:
            self.api("PATCH", f"repos/{self.repo}/issues/comments/{existing['id']}", {"body": body})
            return "updated"
        self.api("POST", f"repos/{self.repo}/issues/{pr}/comments", {"body": body})
        return "created"

    def labels(self, pr: int) -> list[str]:
        out = self.api("GET", f"repos/{self.repo}/issues/{pr}/labels?per_page=100", paginate=True)
        return [l.get("name", "") for l in parse_json_stream(out) if isinstance(l, dict)]

    def set_label(self, pr: int, label: str, present: bool) -> str:
        """Adds or removes `label`; returns 'added', 'removed' or 'unchanged'."""
        have = label in self.labels(pr)
        if present and not have:
            self.api("POST", f"repos/{self.repo}/issues/{pr}/labels", {"labels": [label]})
            return "added"
        if not present and have:
            quoted = urllib.parse.quote(label, safe="")
            self.api("DELETE", f"repos/{self.repo}/issues/{pr}/labels/{quoted}")
            return "removed"
        return "unchanged"


def set_output(name: str, value: str) -> None:
    path = os.environ.get("GITHUB_OUTPUT")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"{name}={value}\n")


# ----------------------------------------------------------------- store

def store_pull(args: argparse.Namespace) -> int:
    os.makedirs(os.path.dirname(os.path.abspath(args.store)), exist_ok=True)
    if args.backend in ("none", "cache"):
        # cache: actions/cache restored it before this step; nothing to do.
        log(f"store backend {args.backend}: " +
            ("found " if os.path.exists(args.store) else "no ") + args.store)
        return 0
    if args.backend == "branch":
        r = run(["git", "fetch", "--depth=1", args.remote, f"+refs/heads/{args.branch}:refs/ksnap/store"])
        if r.returncode != 0:
            log(f"no store branch {args.branch} yet: starting empty")
            return 0
        blob = subprocess.run(["git", "show", f"refs/ksnap/store:{args.file}"], capture_output=True)
        if blob.returncode != 0:
            warn(f"branch {args.branch} has no {args.file}: starting empty")
            return 0
        with open(args.store, "wb") as f:
            f.write(blob.stdout)
        log(f"store: {len(blob.stdout)} bytes from branch {args.branch}")
        return 0
    if args.backend == "artifact":
        gh = args.gh
        # Only runs of pushes to the main branch: a pull request from a fork
        # whose branch is also called "main" has runs on branch "main" too,
        # and its artifacts must never become the history store.
        r = run([gh, "run", "list", "--workflow", args.workflow, "--branch", args.main_branch,
                 "--event", "push", "--status", "success", "--limit", "20",
                 "--json", "databaseId,event,headBranch"])
        if r.returncode != 0:
            warn(f"cannot list workflow runs: {r.stderr.strip()}")
            return 0
        runs = [x["databaseId"] for x in json.loads(r.stdout or "[]")
                if x.get("event") == "push" and x.get("headBranch") == args.main_branch]
        for run_id in runs:
            tmp = tempfile.mkdtemp()
            d = run([gh, "run", "download", str(run_id), "--name", args.artifact, "--dir", tmp])
            src = os.path.join(tmp, os.path.basename(args.store))
            if d.returncode == 0 and os.path.exists(src):
                shutil.move(src, args.store)
                shutil.rmtree(tmp, ignore_errors=True)
                log(f"store: artifact {args.artifact} of run {run_id}")
                return 0
            shutil.rmtree(tmp, ignore_errors=True)
        log("no store artifact found: starting empty")
        return 0
    log(f"unknown backend {args.backend}")
    return 2


def store_push(args: argparse.Namespace) -> int:
    if args.backend != "branch":
        log(f"store backend {args.backend}: the workflow saves it (actions/cache or upload-artifact)")
        return 0
    if not os.path.exists(args.store):
        log(f"no store at {args.store}")
        return 1
    # Plumbing only: no checkout of the branch, the work tree is untouched.
    # One orphan commit, force-pushed: the branch never accumulates old copies.
    blob = run(["git", "hash-object", "-w", args.store], check=True).stdout.strip()
    tree = subprocess.run(["git", "mktree"], input=f"100644 blob {blob}\t{args.file}\n",
                          text=True, capture_output=True, check=True).stdout.strip()
    env = dict(os.environ)
    env.setdefault("GIT_AUTHOR_NAME", "ksnap")
    env.setdefault("GIT_AUTHOR_EMAIL", "ksnap@users.noreply.github.com")
    env.setdefault("GIT_COMMITTER_NAME", env["GIT_AUTHOR_NAME"])
    env.setdefault("GIT_COMMITTER_EMAIL", env["GIT_AUTHOR_EMAIL"])
    commit = run(["git", "commit-tree", tree, "-m", "ksnap history store"], check=True,
                 env=env).stdout.strip()
    r = run(["git", "push", "--force", args.remote, f"{commit}:refs/heads/{args.branch}"])
    if r.returncode != 0:
        log(r.stderr)
        return 1
    return 0


# ----------------------------------------------------------------- record

def check_capture(capture: str) -> str | None:
    """Why the capture is unusable, or None."""
    if not os.path.isdir(capture):
        return f"capture folder {capture} does not exist: the capture step broke"
    if not os.path.exists(os.path.join(capture, "manifest.json")):
        return f"{capture}/manifest.json is missing: the capture step broke"
    return None


def record(args: argparse.Namespace) -> int:
    why = check_capture(args.capture)
    if why:
        print(f"::error::{why}", flush=True)
        return 1
    r = run([ksnap_bin(args), "record", "--store", args.store, "--commit", args.sha, args.capture])
    sys.stdout.write(r.stdout)
    sys.stderr.write(r.stderr)
    if r.returncode != 0:
        print(f"::error::ksnap record failed: {r.stderr.strip()}", flush=True)
        return 1
    summary = args.summary or os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as f:
            f.write(main_summary(args))
    return 0


def main_summary(args: argparse.Namespace) -> str:
    """Markdown for a push: what this commit changed against the previous recorded one."""
    b = run([ksnap_bin(args), "baseline", "--store", args.store, "--for", args.sha,
             "--ancestor-only", "--format", "json"])
    if b.returncode != 0:
        return f"Recorded `{args.sha[:12]}`: the first recorded commit, nothing to compare with.\n"
    base = json.loads(b.stdout)
    d = run([ksnap_bin(args), "diff", "--store", args.store, base["baseline"], args.sha,
             "--format", "markdown", "--no-diffs"])
    if d.returncode != 0:
        return f"Recorded `{args.sha[:12]}`; comparing it failed: {d.stderr.strip()}\n"
    return f"Recorded `{args.sha[:12]}`, compared with the previous recorded commit " \
           f"`{base['baseline'][:12]}`.\n\n{d.stdout}"


# ----------------------------------------------------------------- report

def find_baseline(args: argparse.Namespace) -> tuple[dict | None, str]:
    """(baseline JSON, message). None when there is no store or no recorded ancestor."""
    if not os.path.exists(args.store):
        return None, "No history store yet: the first push to the main branch records one."
    cmd = [ksnap_bin(args), "baseline", "--store", args.store, "--for", args.head_sha, "--format", "json"]
    if args.base_ref:
        cmd += ["--base-ref", args.base_ref]
    r = run(cmd)
    if r.returncode != 0:
        return None, f"No baseline: {r.stderr.strip().removeprefix('ksnap: ')}"
    return json.loads(r.stdout), ""


def filter_args(args: argparse.Namespace) -> list[str]:
    """`ksnap diff` flags for the stages and kernels the report covers."""
    out = []
    if getattr(args, "stages", ""):
        out += ["--stages", args.stages]
    if getattr(args, "kernels", ""):
        out += ["--kernel", args.kernels]
    return out


def label_args(args: argparse.Namespace, base: dict) -> list[str]:
    """Builds named by their commits in the report ("`3f2a9c1d0b7e` → `9e8d…`"),
    not by the capture folder's name."""
    return ["--base-label", str(base["baseline"])[:12], "--head-label", args.head_sha[:12]]


def html_url_args(args: argparse.Namespace) -> list[str]:
    """`--html-url` for the Markdown: the page of this run, where the uploaded
    report bundle (report.html) is listed, when the run is known."""
    url = getattr(args, "report_url", "")
    return ["--html-url", url] if url else []


def default_report_url() -> str:
    """$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID#artifacts,
    or "" outside GitHub Actions."""
    env = os.environ
    if not (env.get("GITHUB_REPOSITORY") and env.get("GITHUB_RUN_ID")):
        return ""
    server = env.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/")
    return f"{server}/{env['GITHUB_REPOSITORY']}/actions/runs/{env['GITHUB_RUN_ID']}#artifacts"


def build_report(args: argparse.Namespace) -> tuple[str, bool | None, dict | None]:
    """(Markdown body, changed?, baseline); changed is None when nothing could
    be compared."""
    base, why = find_baseline(args)
    head = f"`{args.head_sha[:12]}`"
    if base is None:
        return f"{MARKER}\n## ksnap IR report for {head}\n\n{why}\n", None, None
    md_path = os.path.join(tempfile.mkdtemp(), "report.md")
    r = run([ksnap_bin(args), "diff", "--store", args.store, base["baseline"], args.capture,
             "--format", "markdown", "--max-bytes", str(args.max_bytes), "--exit-code",
             "--output", md_path] + html_url_args(args) + filter_args(args) + label_args(args, base))
    desc = base["description"]
    if r.returncode not in (0, 1):
        err = r.stderr.strip().removeprefix("ksnap: ")
        warn(f"ksnap diff failed: {err}")
        return (f"{MARKER}\n## ksnap IR report for {head}\n\n_{desc}._\n\n"
                f"ksnap could not compare the builds:\n\n```\n{err}\n```\n"), None, base
    with open(md_path, encoding="utf-8") as f:
        diff_md = f.read()
    changed = r.returncode == 1
    verdict = "**IR changed.**" if changed else "No IR change."
    body = f"{MARKER}\n{verdict} _{desc}._\n\n{diff_md}"
    return fit_comment(body), changed, base


def fit_comment(body: str) -> str:
    if len(body) > COMMENT_LIMIT:
        body = body[:COMMENT_LIMIT - 200] + "\n\n… report cut to fit a GitHub comment; the job summary has it all.\n"
    return body


def write_bundle(args: argparse.Namespace, body: str, changed: bool | None,
                 base: dict | None) -> None:
    """The report bundle a read-only job uploads: report.md (the comment body),
    report.json and report.html (`ksnap diff --format json|html`, when there
    was a baseline) and meta.json."""
    os.makedirs(args.bundle, exist_ok=True)
    with open(os.path.join(args.bundle, "report.md"), "w", encoding="utf-8") as f:
        f.write(body)
    files = ["report.md"]
    if base is not None and changed is not None:
        for fmt in ("json", "html"):
            out = os.path.join(args.bundle, f"report.{fmt}")
            r = run([ksnap_bin(args), "diff", "--store", args.store, base["baseline"],
                     args.capture, "--format", fmt, "--output", out] + filter_args(args)
                    + label_args(args, base))
            if r.returncode == 0:
                files.append(f"report.{fmt}")
            else:
                warn(f"ksnap diff --format {fmt} failed: {r.stderr.strip()}")
    meta = {"format": BUNDLE_FORMAT, "version": BUNDLE_VERSION, "pr": args.pr or None,
            "head_sha": args.head_sha, "baseline": base["baseline"] if base else None,
            "changed": changed, "files": files}
    with open(os.path.join(args.bundle, "meta.json"), "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")


def report(args: argparse.Namespace) -> int:
    why = check_capture(args.capture)
    if why:
        print(f"::error::{why}", flush=True)
        return 1
    body, changed, base = build_report(args)
    if args.bundle:
        write_bundle(args, body, changed, base)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(body)
    summary = args.summary or os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as f:
            f.write(body + "\n")
    set_output("changed", "unknown" if changed is None else str(changed).lower())
    print("IR changed" if changed else "no IR change" if changed is False else "not compared")
    if args.repo and args.pr and args.post:
        failures = post(GitHub(args.repo, args.gh), args.pr, body, changed, args.label)
        if failures:
            return undelivered(args, args.pr, failures)
    return 0


def post_report(args: argparse.Namespace) -> int:
    """The action's "Post the report" step: the comment body `report` wrote
    (--body), onto pull request --pr, with the label by --changed."""
    try:
        body = read_limited(args.body)
    except (OSError, ValueError) as e:
        print(f"::error::no report to post: {e}", flush=True)
        return 1
    if MARKER not in body:
        print(f"::error::{args.body}: not a ksnap report (no {MARKER})", flush=True)
        return 1
    changed = {"true": True, "false": False}.get(args.changed)
    failures = post(GitHub(args.repo, args.gh), args.pr, fit_comment(body), changed, args.label)
    return undelivered(args, args.pr, failures) if failures else 0


def post(gh: GitHub, pr: int, body: str, changed: bool | None, label: str) -> list[str]:
    """The one marked comment, and the label when there was a comparison.
    Returns what could not be delivered (empty: all of it), each also an
    annotation on the run."""
    failures = []
    try:
        print(f"comment: {gh.upsert_comment(pr, body)}")
    except (RuntimeError, OSError, ValueError) as e:
        failures.append(f"could not post the PR comment: {e}")
    if changed is not None and label:
        try:
            print(f"label {label}: {gh.set_label(pr, label, changed)}")
        except (RuntimeError, OSError, ValueError) as e:
            failures.append(f"could not set the label {label}: {e}")
    for f in failures:
        print(f"::error::{f}", flush=True)
    return failures


def undelivered(args: argparse.Namespace, pr: int, failures: list[str]) -> int:
    """A report that did not reach the pull request is loud: the job summary
    says so (the report itself is there and in the bundle) and the step
    fails. Whether IR changed never fails a step; this does. Returns 1."""
    note = (f"\n> [!WARNING]\n> **ksnap could not deliver this report to pull request #{pr}.**\n"
            + "".join(f"> - {f}\n" for f in failures)
            + "> The report above is complete; the step that posts it failed so that this is "
              "seen.\n")
    summary = getattr(args, "summary", None) or os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as f:
            f.write(note)
    log(note.strip())
    return 1


# ----------------------------------------------------------------- publish

BUNDLE_FORMAT = "ksnap-ir-bundle"
BUNDLE_VERSION = 1
BUNDLE_MAX_BYTES = 1 << 20  # report.md and meta.json are read at most this far


def read_limited(path: str, limit: int = BUNDLE_MAX_BYTES) -> str:
    with open(path, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"{path}: larger than {limit} bytes")
    return data.decode("utf-8", errors="replace")


def read_bundle(root: str) -> tuple[dict, str]:
    """(meta, report.md) of a downloaded bundle; ValueError names what is wrong.
    The bundle was made by code of the pull request: nothing in it is trusted
    beyond its types and sizes."""
    meta_path = os.path.join(root, "meta.json")
    try:
        meta = json.loads(read_limited(meta_path))
    except json.JSONDecodeError as e:
        raise ValueError(f"{meta_path}:{e.lineno}: not JSON: {e.msg}") from None
    if not isinstance(meta, dict) or meta.get("format") != BUNDLE_FORMAT:
        raise ValueError(f"{meta_path}: not a {BUNDLE_FORMAT} file")
    if meta.get("version") != BUNDLE_VERSION:
        raise ValueError(f"{meta_path}: version {meta.get('version')!r} is not {BUNDLE_VERSION}")
    if meta.get("changed") not in (True, False, None):
        raise ValueError(f"{meta_path}: 'changed' must be true, false or null")
    pr = meta.get("pr")
    if pr is not None and (not isinstance(pr, int) or isinstance(pr, bool) or pr <= 0):
        raise ValueError(f"{meta_path}: 'pr' must be a positive integer")
    return meta, read_limited(os.path.join(root, "report.md"))


# Raw HTML constructs that may run over several lines and blank lines
# (CommonMark HTML blocks 1-5): a fence inside one is no fence. Opener →
# end marker; matched anywhere in a line (more than CommonMark does: when
# unsure, the text is treated as text and neutralized).
RAW_HTML = [(re.compile(r"<(script|pre|style|textarea)(?=[\s>/]|$)", re.I),
             re.compile(r"</(script|pre|style|textarea)>", re.I)),
            (re.compile(r"<!--"), re.compile(r"-->")),
            (re.compile(r"<\?"), re.compile(r"\?>")),
            (re.compile(r"<!\[CDATA\["), re.compile(r"\]\]>")),
            (re.compile(r"<![A-Za-z]"), re.compile(r">"))]
# A fenced block opener that is one for certain: at column 0, three or more
# backticks with no backtick after them, or three or more tildes.
FENCE_OPEN = re.compile(r"(`{3,})[^`]*|(~{3,}).*")
# "@" as an HTML character reference (CommonMark decodes these in text).
AT_ENTITY = re.compile(r"&(?:#0*64|#[xX]0*40|commat);")


def remove_markers(markdown: str) -> str:
    """`markdown` with no MARKER left, even one that removing an inner one
    re-forms ("<!-- ksnap-<!-- ksnap-ir-report -->ir-report -->")."""
    while MARKER in markdown:
        markdown = markdown.replace(MARKER, "")
    return markdown


def code_lines(lines: list[str]) -> list[bool]:
    """For each line, True only when GitHub (CommonMark) certainly shows it
    inside a fenced code block: the opener at column 0 (no list or quote
    holds it: a fence is no lazy continuation line), after a blank line or
    with no "<" since the last one (no HTML block holds it), and outside any
    raw HTML that may span lines; the block runs to its CommonMark closer (up to
    3 spaces, the same character, at least as long, nothing after) or the
    end. Anything else — inline code spans included — counts as text: a
    wrong guess only neutralizes a code line, never lets text through."""
    code = [False] * len(lines)
    fence = ""  # the open fence, or ""
    raw_end = None  # the end marker of an open raw HTML construct
    prev_blank = True
    run_has_lt = False  # a "<" since the last blank line: an HTML block may be open
    for i, raw in enumerate(lines):
        line = raw.rstrip("\r\n")
        if fence:
            code[i] = True
            if re.fullmatch(r" {0,3}" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}[ \t]*",
                            line):
                fence, run_has_lt = "", False
            continue
        pos = 0
        if raw_end is not None:
            m = raw_end.search(line)
            if m is None:
                prev_blank = False
                continue
            raw_end, pos = None, m.end()
        certain = prev_blank or not run_has_lt  # no HTML block (types 6, 7) holds it
        m = FENCE_OPEN.fullmatch(line) if certain and pos == 0 else None
        if m:
            fence = m.group(1) or m.group(2)
            code[i] = True
            continue
        # Raw HTML opened on this line (and not closed after its opener).
        while raw_end is None:
            starts = [(m.start(), m.end(), end) for op, end in RAW_HTML
                      for m in [op.search(line, pos)] if m]
            if not starts:
                break
            _, opened, end = min(starts, key=lambda t: t[0])
            close = end.search(line, opened)
            if close is None:
                raw_end = end
            else:
                pos = close.end()
        prev_blank = not line.strip(" \t")
        run_has_lt = not prev_blank and (run_has_lt or "<" in line)
    return code


def defang(markdown: str) -> str:
    """Text of a report made by PR code, safe to post as the bot: no second
    marker (the comment must stay the only marked one) and no @mention
    anywhere GitHub could render one — a zero-width joiner after every "@"
    (and every "&#64;"-style reference to one) that is not certainly inside
    a fenced code block (code_lines). The report's Markdown structure is not
    trusted: a backtick that opens no span, a fence that is no fence, ~~~
    inside ``` all leave the text neutralized."""
    # Lines as CommonMark ends them (\n, \r\n, \r), not as str.splitlines
    # does (\u2028, \x0c, ... are no line ends to GitHub).
    lines = re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z", remove_markers(markdown))
    code = code_lines(lines)
    out = []
    for line, is_code in zip(lines, code):
        if not is_code:
            line = AT_ENTITY.sub("@", line).replace("@", "@\u200d")
        out.append(line)
    return "".join(out)


def pr_for_head(gh: GitHub, head_sha: str, head_repo: str, hint: int | None) -> int | None:
    """The open PR whose head is `head_sha` (and repository `head_repo`): the
    bundle's number is only a hint, checked against the PR's real head."""
    def matches(p: dict) -> bool:
        head = p.get("head") or {}
        repo = (head.get("repo") or {}).get("full_name", "")
        return head.get("sha") == head_sha and (not head_repo or repo == head_repo)

    if hint:
        try:
            p = json.loads(gh.api("GET", f"repos/{gh.repo}/pulls/{hint}"))
            if isinstance(p, dict) and matches(p) and p.get("state") == "open":
                return hint
        except (RuntimeError, ValueError):
            pass
    out = gh.api("GET", f"repos/{gh.repo}/pulls?state=open&per_page=100", paginate=True)
    for p in parse_json_stream(out):
        if isinstance(p, dict) and matches(p) and isinstance(p.get("number"), int):
            return p["number"]
    return None


def download_bundle(args: argparse.Namespace) -> str | None:
    """Downloads the bundle artifact of run `args.run_id`; its folder, or None."""
    dest = args.bundle or tempfile.mkdtemp(prefix="ksnap-bundle-")
    if os.path.isfile(os.path.join(dest, "meta.json")):
        return dest
    r = run([args.gh, "run", "download", str(args.run_id), "--repo", args.repo,
             "--name", args.artifact, "--dir", dest])
    if r.returncode != 0:
        log(f"no {args.artifact} artifact in run {args.run_id}: {r.stderr.strip()}")
        return None
    return dest


def publish(args: argparse.Namespace) -> int:
    """workflow_run: the comment, label and summary for a finished PR run."""
    gh = GitHub(args.repo, args.gh)
    run_url = f"{args.server_url}/{args.repo}/actions/runs/{args.run_id}"
    head = f"`{args.head_sha[:12]}`"
    bundle = download_bundle(args)
    meta: dict = {}
    if bundle is None:
        if args.conclusion == "success":
            warn(f"run {args.run_id} succeeded but left no {args.artifact} artifact")
            return 0
        body = (f"{MARKER}\n## ksnap IR report for {head}\n\n"
                f"The capture of {head} failed ([run]({run_url}), {args.conclusion}): "
                "no report for this push.\n")
        changed = None
    else:
        try:
            meta, report_md = read_bundle(bundle)
        except (OSError, ValueError) as e:
            warn(f"the report bundle of run {args.run_id} is unusable: {e}")
            return 0
        if meta.get("head_sha") != args.head_sha:
            warn(f"the bundle names head {str(meta.get('head_sha'))[:40]!r}, the run was for "
                 f"{args.head_sha}: not published")
            return 0
        changed = meta["changed"]
        body = fit_comment(f"{MARKER}\n{defang(report_md.lstrip())}\n"
                           f"<sub>ksnap, from [this run]({run_url}).</sub>\n")
    summary = args.summary or os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as f:
            f.write(body + "\n")
    try:
        pr = pr_for_head(gh, args.head_sha, args.head_repo, meta.get("pr"))
    except (RuntimeError, OSError, ValueError) as e:
        warn(f"cannot list pull requests: {e}")
        return 0
    if pr is None:
        log(f"no open pull request has head {args.head_sha}: nothing to publish (a newer push?)")
        return 0
    set_output("pr", str(pr))
    set_output("changed", "unknown" if changed is None else str(changed).lower())
    print(f"pull request #{pr}")
    failures = post(gh, pr, body, changed, args.label)
    return undelivered(args, pr, failures) if failures else 0


# ----------------------------------------------------------------- main

def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ksnap_ci.py", description=__doc__.split("\n")[0])
    p.add_argument("--ksnap", help="ksnap binary (default $KSNAP_BIN or ksnap on PATH)")
    p.add_argument("--gh", default=os.environ.get("KSNAP_GH", "gh"), help="gh binary")
    sub = p.add_subparsers(dest="cmd", required=True)

    def store_args(c: argparse.ArgumentParser) -> None:
        c.add_argument("--store", default=os.environ.get("KSNAP_STORE", ".ksnap/history.db"))

    for name in ("store-pull", "store-push"):
        c = sub.add_parser(name)
        store_args(c)
        c.add_argument("--backend", choices=["branch", "artifact", "cache", "none"], required=True)
        c.add_argument("--branch", default="ksnap-history", help="branch backend: branch name")
        c.add_argument("--remote", default="origin")
        c.add_argument("--file", default="history.db", help="branch backend: file in the branch")
        c.add_argument("--workflow", default="ksnap-ir.yml", help="artifact backend: workflow file")
        c.add_argument("--artifact", default="ksnap-history", help="artifact backend: name")
        c.add_argument("--main-branch", default="main")
    c = sub.add_parser("record")
    store_args(c)
    c.add_argument("--capture", required=True)
    c.add_argument("--sha", required=True)
    c.add_argument("--summary", help="append what changed here (default $GITHUB_STEP_SUMMARY)")
    c = sub.add_parser("report")
    store_args(c)
    c.add_argument("--capture", required=True)
    c.add_argument("--head-sha", required=True)
    c.add_argument("--base-ref", default="", help="e.g. origin/main: baseline = its merge-base")
    c.add_argument("--repo", default=os.environ.get("GITHUB_REPOSITORY", ""), help="OWNER/NAME")
    c.add_argument("--pr", type=int, default=0)
    c.add_argument("--label", default="ir-changed", help="label for PRs that change IR ('' = none)")
    c.add_argument("--summary", help="append the report here (default $GITHUB_STEP_SUMMARY)")
    c.add_argument("--output", help="also write the comment body here")
    c.add_argument("--max-bytes", type=int, default=60000)
    c.add_argument("--bundle", help="write the report bundle (md, json, html, meta) here")
    c.add_argument("--report-url", default=default_report_url(),
                   help="where the bundle's report.html can be found, linked from the comment "
                        "(default: this GitHub Actions run's page; '' = no link)")
    c.add_argument("--no-post", dest="post", action="store_false",
                   help="do not post the comment or set the label (a read-only job)")
    c.add_argument("--stages", default="", help="comma-separated stages to compare")
    c.add_argument("--kernels", default="", help="comma-separated kernel names to compare")
    c = sub.add_parser("post", help="post a report's comment body onto a pull request")
    c.add_argument("--repo", required=True, help="OWNER/NAME")
    c.add_argument("--pr", required=True, type=int)
    c.add_argument("--body", required=True, help="the comment body (report --output, or the "
                   "bundle's report.md)")
    c.add_argument("--changed", default="unknown", choices=["true", "false", "unknown"],
                   help="report's `changed` output: sets or clears the label (unknown: neither)")
    c.add_argument("--label", default="ir-changed", help="label for PRs that change IR ('' = none)")
    c.add_argument("--summary", help="where an undelivered report is said (default $GITHUB_STEP_SUMMARY)")
    c = sub.add_parser("publish")
    c.add_argument("--repo", required=True, help="OWNER/NAME of the base repository")
    c.add_argument("--run-id", required=True, type=int, help="the finished pull_request run")
    c.add_argument("--head-sha", required=True, help="its head commit (workflow_run.head_sha)")
    c.add_argument("--head-repo", default="", help="its head repository (fork) OWNER/NAME")
    c.add_argument("--conclusion", default="success", help="workflow_run.conclusion")
    c.add_argument("--artifact", default="ksnap-ir-report", help="the bundle's artifact name")
    c.add_argument("--bundle", help="folder of an already downloaded bundle (or where to put it)")
    c.add_argument("--label", default="ir-changed", help="label for PRs that change IR ('' = none)")
    c.add_argument("--summary", help="append the report here (default $GITHUB_STEP_SUMMARY)")
    c.add_argument("--server-url", default=os.environ.get("GITHUB_SERVER_URL", "https://github.com"))
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    fn = {"store-pull": store_pull, "store-push": store_push, "record": record, "report": report,
          "post": post_report, "publish": publish}
    return fn[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""A stand-in for the GitHub CLI: enough of `gh api` and `gh run` for
ci/github/scripts/ksnap_ci.py, backed by a JSON state file.

    FAKE_GH_STATE  JSON file:
      {"comments": [{"id", "body", "issue"?, "by"?}], "labels": [names],
       "next_id": int, "page_size": int, "fail": bool,
       "pulls": [{"number", "state", "head": {"sha", "ref", "repo": {"full_name"}}}],
       "runs": [id | {"databaseId", "event", "headBranch", "workflow", "conclusion"}],
       "artifacts": {"<run id>": "<file path>"},      # gh run download: one file
       "artifact_root": "<dir>",                      # or <dir>/<run id>/<name>/...
       "tokens": {"<token>": {"job": "...", "permissions": {"issues": "write", ...}}}}
    FAKE_GH_LOG    every call is appended as one JSON line: {"argv", "body", "job"}

When "tokens" is present, GH_TOKEN must be one of them, as on GitHub: writing
comments and labels needs issues or pull-requests write; `gh run list` and
`gh run download` need actions read. Otherwise nothing is checked.
"""

import json
import os
import re
import shutil
import sys
import urllib.parse


def load():
    with open(os.environ["FAKE_GH_STATE"], encoding="utf-8") as f:
        return json.load(f)


def save(state):
    with open(os.environ["FAKE_GH_STATE"], "w", encoding="utf-8") as f:
        json.dump(state, f)


def opt(argv, name, default=None):
    return argv[argv.index(name) + 1] if name in argv else default


def fail(msg, code=1):
    print(msg, file=sys.stderr)
    sys.exit(code)


def pages(items, size):
    # Like `gh api --paginate`: one JSON array per page, printed back to back.
    if not items:
        return "[]"
    return "".join(json.dumps(items[i:i + size]) for i in range(0, len(items), size))


def token_of(state):
    """(job name, permissions) of GH_TOKEN; (None, None) when tokens are not checked."""
    tokens = state.get("tokens")
    if tokens is None:
        return None, None
    tok = os.environ.get("GH_TOKEN") or os.environ.get("GITHUB_TOKEN")
    if not tok:
        fail("gh: To use GitHub CLI in a GitHub Actions workflow, set the GH_TOKEN environment variable", 4)
    if tok not in tokens:
        fail("HTTP 401: Bad credentials")
    return tokens[tok]["job"], tokens[tok]["permissions"]


def need(perms, *wanted):
    """wanted: ("issues", "write"), ...: any one of them suffices."""
    if perms is None:
        return
    rank = {"none": 0, "read": 1, "write": 2}
    for scope, level in wanted:
        if rank.get(perms.get(scope, "none"), 0) >= rank[level]:
            return
    fail("HTTP 403: Resource not accessible by integration")


WRITE_ISSUES = (("issues", "write"), ("pull-requests", "write"))


def on_issue(c, issue):
    return c.get("issue") in (None, issue)


def api(argv, state, job, perms):
    method = opt(argv, "--method", "GET")
    path = next(a for a in argv[1:] if not a.startswith("-") and a != method and
                a != opt(argv, "--input"))
    query = urllib.parse.parse_qs(path.split("?", 1)[1]) if "?" in path else {}
    path = path.split("?")[0]
    body = None
    if "--input" in argv:
        with open(opt(argv, "--input"), encoding="utf-8") as f:
            body = json.load(f)
    log_call(argv, body, job)
    if state.get("fail"):
        fail("HTTP 403: Resource not accessible by integration")
    size = state.get("page_size", 100)
    if method != "GET":
        need(perms, *WRITE_ISSUES)
    if m := re.fullmatch(r"repos/[^/]+/[^/]+/issues/(\d+)/comments", path):
        issue = int(m.group(1))
        if method == "GET":
            return pages([c for c in state["comments"] if on_issue(c, issue)], size)
        if method == "POST":
            c = {"id": state.get("next_id", 1000), "body": body["body"], "issue": issue, "by": job}
            state["next_id"] = c["id"] + 1
            state["comments"].append(c)
            return json.dumps(c)
    if m := re.fullmatch(r"repos/[^/]+/[^/]+/issues/comments/(\d+)", path):
        cid = int(m.group(1))
        for c in state["comments"]:
            if c["id"] == cid and method == "PATCH":
                c["body"] = body["body"]
                c["updated_by"] = job
                return json.dumps(c)
        fail("HTTP 404: Not Found")
    if m := re.fullmatch(r"repos/[^/]+/[^/]+/issues/(\d+)/labels", path):
        if method == "GET":
            return pages([{"name": n} for n in state["labels"]], size)
        if method == "POST":
            for n in body["labels"]:
                if n not in state["labels"]:
                    state["labels"].append(n)
            return json.dumps([{"name": n} for n in state["labels"]])
    if m := re.fullmatch(r"repos/[^/]+/[^/]+/issues/(\d+)/labels/(.+)", path):
        name = urllib.parse.unquote(m.group(2))
        if method == "DELETE":
            if name not in state["labels"]:
                fail("HTTP 404: Label does not exist")
            state["labels"].remove(name)
            return "[]"
    if m := re.fullmatch(r"repos/[^/]+/[^/]+/pulls/(\d+)", path):
        for p in state.get("pulls", []):
            if p["number"] == int(m.group(1)):
                return json.dumps(p)
        fail("HTTP 404: Not Found")
    if re.fullmatch(r"repos/[^/]+/[^/]+/pulls", path) and method == "GET":
        want = query.get("state", ["open"])[0]
        return pages([p for p in state.get("pulls", []) if want in ("all", p["state"])], size)
    fail(f"fake gh: unsupported {method} {path}", 2)


def runs_of(state):
    for r in state.get("runs", []):
        yield r if isinstance(r, dict) else {"databaseId": r, "event": "push", "headBranch": "main",
                                             "conclusion": "success"}


def run_cmd(argv, state, job, perms):
    log_call(argv, None, job)
    need(perms, ("actions", "read"))
    if argv[1] == "list":
        out = []
        for r in runs_of(state):
            if opt(argv, "--event") and r.get("event") != opt(argv, "--event"):
                continue
            if opt(argv, "--branch") and r.get("headBranch") != opt(argv, "--branch"):
                continue
            if opt(argv, "--workflow") and r.get("workflow", opt(argv, "--workflow")) != opt(argv, "--workflow"):
                continue
            if opt(argv, "--status") == "success" and r.get("conclusion", "success") != "success":
                continue
            out.append(r)
        fields = (opt(argv, "--json") or "databaseId").split(",")
        return json.dumps([{k: r.get(k) for k in fields} for r in out])
    if argv[1] == "download":
        run_id, dest = argv[2], opt(argv, "--dir", ".")
        name = opt(argv, "--name") or opt(argv, "-n")
        root = state.get("artifact_root")
        src_dir = os.path.join(root, run_id, name) if root and name else None
        if src_dir and os.path.isdir(src_dir):
            shutil.copytree(src_dir, dest, dirs_exist_ok=True)
            return ""
        src = state.get("artifacts", {}).get(run_id)
        if not src:
            fail("no artifact matches any of the names or patterns provided")
        os.makedirs(dest, exist_ok=True)
        shutil.copy(src, os.path.join(dest, os.path.basename(src)))
        return ""
    fail("fake gh: unsupported run command", 2)


def log_call(argv, body, job):
    with open(os.environ["FAKE_GH_LOG"], "a", encoding="utf-8") as f:
        f.write(json.dumps({"argv": argv, "body": body, "job": job}) + "\n")


def main():
    argv = sys.argv[1:]
    state = load()
    job, perms = token_of(state)
    if argv and argv[0] == "api":
        out = api(argv, state, job, perms)
    elif argv and argv[0] == "run":
        out = run_cmd(argv, state, job, perms)
    else:
        fail(f"fake gh: unsupported command {argv}", 2)
    save(state)
    sys.stdout.write(out)


if __name__ == "__main__":
    main()

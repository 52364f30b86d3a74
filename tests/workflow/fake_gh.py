#!/usr/bin/python3
"""A stand-in for the GitHub CLI: enough of `gh api` and `gh run` for
ci/github/scripts/ksnap_ci.py, backed by a JSON state file.

    FAKE_GH_STATE  JSON file: {"comments": [{"id", "body"}], "labels": [names],
                   "next_id": int, "page_size": int, "fail": bool,
                   "runs": [ids], "artifacts": {"<run id>": "<file path>"}}
    FAKE_GH_LOG    every call is appended as one JSON line: {"argv", "body"}
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


def api(argv, state):
    method = opt(argv, "--method", "GET")
    path = next(a for a in argv[1:] if not a.startswith("-") and a != method and
                a != opt(argv, "--input"))
    path = path.split("?")[0]
    body = None
    if "--input" in argv:
        with open(opt(argv, "--input"), encoding="utf-8") as f:
            body = json.load(f)
    log_call(argv, body)
    if state.get("fail"):
        fail("HTTP 403: Resource not accessible by integration")
    size = state.get("page_size", 100)
    if m := re.fullmatch(r"repos/[^/]+/[^/]+/issues/(\d+)/comments", path):
        if method == "GET":
            return pages(state["comments"], size)
        if method == "POST":
            c = {"id": state.get("next_id", 1000), "body": body["body"]}
            state["next_id"] = c["id"] + 1
            state["comments"].append(c)
            return json.dumps(c)
    if m := re.fullmatch(r"repos/[^/]+/[^/]+/issues/comments/(\d+)", path):
        cid = int(m.group(1))
        for c in state["comments"]:
            if c["id"] == cid and method == "PATCH":
                c["body"] = body["body"]
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
    fail(f"fake gh: unsupported {method} {path}", 2)


def run_cmd(argv, state):
    log_call(argv, None)
    if argv[1] == "list":
        return json.dumps([{"databaseId": r} for r in state.get("runs", [])])
    if argv[1] == "download":
        src = state.get("artifacts", {}).get(argv[2])
        if not src:
            fail(f"no artifact matches any of the names or patterns provided")
        dest = opt(argv, "--dir", ".")
        os.makedirs(dest, exist_ok=True)
        shutil.copy(src, os.path.join(dest, os.path.basename(src)))
        return ""
    fail("fake gh: unsupported run command", 2)


def log_call(argv, body):
    with open(os.environ["FAKE_GH_LOG"], "a", encoding="utf-8") as f:
        f.write(json.dumps({"argv": argv, "body": body}) + "\n")


def main():
    argv = sys.argv[1:]
    state = load()
    if argv and argv[0] == "api":
        out = api(argv, state)
    elif argv and argv[0] == "run":
        out = run_cmd(argv, state)
    else:
        fail(f"fake gh: unsupported command {argv}", 2)
    save(state)
    sys.stdout.write(out)


if __name__ == "__main__":
    main()

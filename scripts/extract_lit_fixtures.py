#!/usr/bin/python3
"""Extracts MLIR lit tests from a git checkout or bare mirror into a fixture folder.

Usage:
  scripts/extract_lit_fixtures.py --git-dir /path/to/repo.git --name intel-xpu-backend-for-triton \
      [--rev HEAD] [--prefix test/] [--out tests/fixtures/lit]

For every `<prefix>**/*.mlir` at `rev` it writes `<out>/<name>/<path below prefix>`:
the same text less the lines that are only a FileCheck / lit comment (`// RUN:`,
`// CHECK...`, any `// PREFIX:` directive, and other comment-only lines). The
`// -----` separators that split a file into modules (when a RUN line
passes -split-input-file) stay, and so do
`expected-error` style annotations (they mark modules that are invalid on purpose).
Nothing else is changed: the IR lines are byte for byte the repository's.
Prints one summary line per repository (files, modules, bytes) and writes
`<out>/<name>/SOURCE` with the repository, the commit and the file count.
"""
import argparse
import os
import re
import subprocess
import sys

SEPARATOR = re.compile(r"^\s*//\s*-----\s*$")
KEEP_COMMENT = re.compile(r"expected-(error|warning|remark|note)")
COMMENT_ONLY = re.compile(r"^\s*//")


def git(git_dir, *args):
    return subprocess.run(["git", "--git-dir", git_dir, *args], check=True,
                          stdout=subprocess.PIPE).stdout


def strip(text):
    # `// -----` splits the file only where lit runs it with -split-input-file;
    # elsewhere it is a comment like any other.
    split = "split-input-file" in text
    out = []
    blank = False
    for line in text.splitlines():
        if SEPARATOR.match(line) and split:
            out.append("// -----")
            blank = False
            continue
        if COMMENT_ONLY.match(line) and not KEEP_COMMENT.search(line):
            continue
        if not line.strip():
            if blank:
                continue
            blank = True
        else:
            blank = False
        out.append(line.rstrip())
    return "\n".join(out).strip("\n") + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--git-dir", required=True)
    ap.add_argument("--name", required=True, help="folder name under --out (the repository)")
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--prefix", default="test/")
    ap.add_argument("--out", default="tests/fixtures/lit")
    ap.add_argument("--repo", default="", help="owner/name, recorded in SOURCE")
    a = ap.parse_args()

    commit = git(a.git_dir, "rev-parse", a.rev).decode().strip()
    paths = [p for p in git(a.git_dir, "ls-tree", "-r", "--name-only", commit).decode().splitlines()
             if p.startswith(a.prefix) and p.endswith(".mlir")]
    root = os.path.join(a.out, a.name)
    files = modules = size = 0
    for path in sorted(paths):
        raw = git(a.git_dir, "show", f"{commit}:{path}")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            print(f"skipped (not UTF-8): {path}", file=sys.stderr)
            continue
        body = strip(text)
        dest = os.path.join(root, path[len(a.prefix):])
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "w", encoding="utf-8") as f:
            f.write(body)
        files += 1
        modules += 1 + sum(1 for l in body.splitlines() if l == "// -----")
        size += len(body.encode())
    with open(os.path.join(root, "SOURCE"), "w", encoding="utf-8") as f:
        f.write(f"repository: {a.repo or a.name}\ncommit: {commit}\npaths: {a.prefix}**/*.mlir\n"
                f"files: {files}\nmodules: {modules}\nbytes: {size}\n")
    print(f"{a.name}: {files} files, {modules} modules, {size} bytes at {commit}")


if __name__ == "__main__":
    main()

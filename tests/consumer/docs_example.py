"""The example files a document shows are shown as they are.

A fenced code block right after the line ``<!-- file: PATH -->`` must hold
exactly the text of PATH (relative to the repository root), and every file of
each example folder named on the command line must be shown that way, so the
document's code is the code that tests/consumer/run.sh builds and runs.

    /usr/bin/python3 tests/consumer/docs_example.py docs/autotune.md examples/tune-cpu
    => docs_example: docs/autotune.md shows examples/tune-cpu/CMakeLists.txt, examples/tune-cpu/main.cc as they are

Exit 0 when they agree, 1 with the first differing line of each file that
does not, 2 on bad usage.
"""

import os
import re
import sys

MARKER = re.compile(r"^<!-- file: (\S+) -->\s*$")
FENCE = re.compile(r"^(```+|~~~+)")


def shown_blocks(doc_lines):
    """(path, block text, line number of the marker) for every marked block."""
    out = []
    i = 0
    while i < len(doc_lines):
        m = MARKER.match(doc_lines[i])
        if not m:
            i += 1
            continue
        marker_line = i + 1
        if i + 1 >= len(doc_lines) or not FENCE.match(doc_lines[i + 1]):
            out.append((m.group(1), None, marker_line))
            i += 1
            continue
        fence = FENCE.match(doc_lines[i + 1]).group(1)
        body = []
        j = i + 2
        while j < len(doc_lines) and not doc_lines[j].startswith(fence):
            body.append(doc_lines[j])
            j += 1
        out.append((m.group(1), "".join(body) if j < len(doc_lines) else None, marker_line))
        i = j + 1
    return out


def first_difference(want, got):
    a, b = want.splitlines(), got.splitlines()
    for n, (x, y) in enumerate(zip(a, b), 1):
        if x != y:
            return f"line {n}: the file has {x!r}, the document {y!r}"
    if len(a) != len(b):
        return f"the file has {len(a)} lines, the document {len(b)}"
    return "they differ in line endings or a final newline"


def main(argv):
    if len(argv) < 2:
        print("usage: docs_example.py DOC.md EXAMPLE_DIR...", file=sys.stderr)
        return 2
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    doc = argv[0]
    with open(os.path.join(root, doc), encoding="utf-8") as f:
        doc_lines = f.readlines()
    blocks = shown_blocks(doc_lines)
    errors = []
    shown = set()
    for path, text, line in blocks:
        if text is None:
            errors.append(f"{doc}:{line}: the marker for {path} is not followed by a closed code block")
            continue
        try:
            with open(os.path.join(root, path), encoding="utf-8", newline="") as f:
                want = f.read()
        except OSError as e:
            errors.append(f"{doc}:{line}: {path}: {e.strerror}")
            continue
        shown.add(path)
        if want != text:
            errors.append(f"{doc}:{line}: {path} differs: {first_difference(want, text)}")
    for folder in argv[1:]:
        files = sorted(
            os.path.join(folder, name)
            for name in os.listdir(os.path.join(root, folder))
            if os.path.isfile(os.path.join(root, folder, name))
        )
        if not files:
            errors.append(f"{folder} holds no files")
        for path in files:
            if path not in shown:
                errors.append(f"{doc} does not show {path} (a '<!-- file: {path} -->' block)")
    if errors:
        for e in errors:
            print(f"docs_example: {e}", file=sys.stderr)
        return 1
    print(f"docs_example: {doc} shows {', '.join(sorted(shown))} as they are")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

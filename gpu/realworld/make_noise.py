"""Writes a cosmetically perturbed copy of kernel sources (the corpus's
``noise_path`` build): same code, other folder, other line numbers, other
local variable names inside every ``@*.jit`` function.

    make_noise.py SRC_DIR DST_DIR [--header-lines 7] [--suffix _r]

Mechanical and checked:

* every local variable of a jitted function (a name the function binds that
  is not a parameter and not declared global/nonlocal, read with
  :mod:`symtable`) is renamed to ``<name><suffix>`` (more suffixes if that
  name is taken anywhere in the file) at every position the AST gives for
  it inside that function; keyword-argument names, attributes and strings
  are untouched; a local that also appears inside an f-string is left alone;
* ``--header-lines`` comment lines go on top, so every line number moves;
* the result is parsed again and, with the renaming undone, must give the
  original AST (positions aside), else the file is rejected.

Triton derives SSA value names from Python variable names and locations from
lines and the file path, so the TTIR/TTGIR text, LLVM debug info and PTX
``.loc``/``.file`` lines of the copy differ from the original's while the
compiled code must not.

Worked example::

    # a.py:   @triton.jit\\ndef k(X):\\n    offs = tl.arange(0, 4)\\n    tl.store(X + offs, 0)
    # noise:  (7 comment lines)\\n@triton.jit\\ndef k(X):\\n    offs_r = tl.arange(0, 4)\\n ...
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import symtable
import sys

__all__ = ["perturb", "jit_functions", "local_names"]


def _is_jit_decorator(dec: ast.expr) -> bool:
    node = dec.func if isinstance(dec, ast.Call) else dec
    if isinstance(node, ast.Attribute):
        return node.attr == "jit"
    return isinstance(node, ast.Name) and node.id == "jit"


def jit_functions(tree: ast.AST) -> list[ast.FunctionDef]:
    """Every function (at any depth) with a ``*.jit`` decorator."""
    return [n for n in ast.walk(tree)
            if isinstance(n, ast.FunctionDef) and any(_is_jit_decorator(d) for d in n.decorator_list)]


def local_names(fn: ast.FunctionDef) -> set[str]:
    """Names bound in ``fn``'s own scope that are neither parameters nor
    declared global/nonlocal."""
    fn_copy = ast.FunctionDef(name=fn.name, args=fn.args, body=fn.body, decorator_list=[],
                              returns=None, type_comment=None, type_params=[])
    table = symtable.symtable(ast.unparse(ast.fix_missing_locations(ast.Module(
        body=[fn_copy], type_ignores=[]))), "<fn>", "exec")
    [ft] = [c for c in table.get_children() if c.get_name() == fn.name]
    params = set(ft.get_parameters())
    out = set()
    for s in ft.get_symbols():
        if s.is_assigned() and not s.is_parameter() and not s.is_global() \
                and not s.is_nonlocal() and s.get_name() not in params:
            out.add(s.get_name())
    return out


def _own_scope_names(fn: ast.FunctionDef):
    """ast.Name nodes of ``fn``'s own scope (not inside nested scopes)."""
    stack = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
                             ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue
        if isinstance(node, ast.Name):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _names_in_fstrings(fn: ast.FunctionDef) -> set[str]:
    return {n.id for js in ast.walk(fn) if isinstance(js, ast.JoinedStr)
            for n in ast.walk(js) if isinstance(n, ast.Name)}


def _fresh(name: str, suffix: str, taken: set[str]) -> str:
    new = name + suffix
    while new in taken:
        new += suffix
    return new


def perturb(source: str, header_lines: int = 7, suffix: str = "_r",
            header_text: str = "cosmetic copy for the ksnap corpus: locals renamed, lines moved"):
    """Returns (new_source, renames) where renames maps ``fn -> {old: new}``."""
    tree = ast.parse(source)
    taken = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | \
            {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
    lines = source.splitlines(keepends=True)
    edits: dict[int, list[tuple[int, int, str]]] = {}  # line -> [(col, end_col, new)]
    renames: dict[str, dict[str, str]] = {}
    for fn in jit_functions(tree):
        names = local_names(fn) - _names_in_fstrings(fn)
        if not names:
            continue
        mapping = {}
        for old in sorted(names):
            mapping[old] = _fresh(old, suffix, taken)
            taken.add(mapping[old])
        renames[fn.name] = mapping
        for node in _own_scope_names(fn):
            if node.id in mapping:
                if node.lineno != node.end_lineno:
                    raise ValueError(f"line {node.lineno}: name spans lines")
                edits.setdefault(node.lineno, []).append(
                    (node.col_offset, node.end_col_offset, mapping[node.id]))
    for lineno, spans in edits.items():
        raw = lines[lineno - 1].encode("utf-8")  # AST columns are UTF-8 byte offsets
        for col, end, new in sorted(spans, reverse=True):
            raw = raw[:col] + new.encode() + raw[end:]
        lines[lineno - 1] = raw.decode("utf-8")
    header = [f"# {header_text}\n"] + ["#\n"] * (header_lines - 1)
    out = "".join(header + lines)
    _check(source, out, renames)
    return out, renames


def _check(original: str, perturbed: str, renames: dict[str, dict[str, str]]) -> None:
    """Undoes the renaming on the perturbed AST and compares with the original."""
    new_tree = ast.parse(perturbed)
    for fn in jit_functions(new_tree):
        back = {v: k for k, v in renames.get(fn.name, {}).items()}
        for node in _own_scope_names(fn):
            if node.id in back:
                node.id = back[node.id]
    if ast.dump(new_tree) != ast.dump(ast.parse(original)):
        raise ValueError("renaming changed more than local names")


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("src")
    p.add_argument("dst")
    p.add_argument("--header-lines", type=int, default=7)
    p.add_argument("--suffix", default="_r")
    a = p.parse_args()
    os.makedirs(a.dst, exist_ok=True)
    report = {}
    for name in sorted(os.listdir(a.src)):
        src = os.path.join(a.src, name)
        if not name.endswith(".py") or not os.path.isfile(src):
            continue
        with open(src, encoding="utf-8") as f:
            text = f.read()
        out, renames = perturb(text, a.header_lines, a.suffix)
        with open(os.path.join(a.dst, name), "w", encoding="utf-8") as f:
            f.write(out)
        report[name] = renames
        n = sum(len(m) for m in renames.values())
        print(f"{name}: {len(renames)} jit functions, {n} locals renamed", file=sys.stderr)
    with open(os.path.join(a.dst, "RENAMES.json"), "w") as f:
        json.dump(report, f, indent=1, sort_keys=True)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

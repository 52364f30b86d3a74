"""Loads only the definitions a driver needs from one of Triton's tutorial
scripts, without running the script's tests, plots or benchmark sweeps.

A tutorial is a script: besides its kernels and wrappers it allocates
tensors, checks results and runs ``benchmark.run(...)`` at top level. The
corpus drivers call the wrappers themselves (with short sweeps), so this
module executes the subset of top-level statements that the requested names
depend on, found with :mod:`symtable` (decorators, default values, function
bodies and nested lambdas included), in file order. The code object keeps
the tutorial's file name and line numbers, so Triton's ``inspect.getsource``
of each kernel reads the unmodified file on disk and the IR's locations point
into it.

Worked example::

    mod = load("tutorials/01-vector-add.py", "tutorial_01", ["add"])
    mod.add(x, y)          # compiles and launches add_kernel
    sorted(mod.KEPT)       # the top-level statements that ran, by line

Imports are always kept (they define the names the kept code uses and are
cheap), each guarded so that a missing optional module only warns; a statement that defines nothing needed (``benchmark.run(...)``,
``output = add(x, y)`` when ``output`` is not needed) never runs.
"""

from __future__ import annotations

import ast
import symtable
import sys
import types
from typing import Iterable

__all__ = ["load", "select_statements", "statement_names"]


def _globals_of_table(table: symtable.SymbolTable) -> set[str]:
    """Global names referenced anywhere inside a function/class table."""
    out: set[str] = set()
    if isinstance(table, symtable.Function):
        out.update(table.get_globals())
    elif isinstance(table, symtable.Class):
        # A class body's free names resolve in the module.
        for s in table.get_symbols():
            if s.is_referenced() and (s.is_global() or not s.is_assigned()):
                out.add(s.get_name())
    for child in table.get_children():
        out |= _globals_of_table(child)
    return out


def statement_names(stmt: ast.stmt) -> tuple[set[str], set[str]]:
    """(names the statement defines at module level, global names it uses)."""
    table = symtable.symtable(ast.unparse(stmt), "<stmt>", "exec")
    defined: set[str] = set()
    used: set[str] = set()
    for s in table.get_symbols():
        if s.is_assigned() or s.is_imported():
            defined.add(s.get_name())
        if s.is_referenced():
            used.add(s.get_name())
    for child in table.get_children():
        used |= _globals_of_table(child)
    return defined, used


def select_statements(tree: ast.Module, needed: Iterable[str]) -> list[ast.stmt]:
    """Top-level statements (file order) that define ``needed`` names and,
    transitively, everything those statements use. Imports always."""
    body = list(tree.body)
    info = [statement_names(s) for s in body]
    keep = [isinstance(s, (ast.Import, ast.ImportFrom)) for s in body]
    want = set(needed)
    changed = True
    while changed:
        changed = False
        for i, (defined, used) in enumerate(info):
            if keep[i] or not (defined & want):
                continue
            keep[i] = True
            changed = True
            want |= used
        for i, (_, used) in enumerate(info):
            if keep[i] and not used <= want:
                want |= used
                changed = True
    return [s for s, k in zip(body, keep) if k]


def _guard_import(stmt: ast.stmt) -> ast.stmt:
    """``import x`` -> ``try: import x / except ImportError as e: warn``: an
    import the kept code does not use (``triton.profiler`` for a benchmark
    that never runs) must not stop the load; one it does use fails later
    with a NameError that names it."""
    if not isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return stmt
    warn = ast.parse("__import__('sys').stderr.write("
                     "f'tutorial_loader: {__file__}: {_import_error}\\n')").body[0]
    handler = ast.ExceptHandler(type=ast.Name("ImportError", ast.Load()), name="_import_error",
                                body=[warn])
    node = ast.Try(body=[stmt], handlers=[handler], orelse=[], finalbody=[])
    for n in ast.walk(node):
        ast.copy_location(n, stmt)
        n.end_lineno, n.end_col_offset = stmt.end_lineno, stmt.end_col_offset
    return node


def load(path: str, module_name: str, needed: Iterable[str]) -> types.ModuleType:
    """Executes the statements of ``path`` that ``needed`` depends on as a
    fresh module ``module_name`` (registered in ``sys.modules``)."""
    with open(path, encoding="utf-8") as f:
        source = f.read()
    tree = ast.parse(source, filename=path)
    kept = select_statements(tree, needed)
    sub = ast.Module(body=[_guard_import(s) for s in kept], type_ignores=[])
    code = compile(sub, path, "exec")  # original file name and line numbers
    mod = types.ModuleType(module_name)
    mod.__file__ = path
    sys.modules[module_name] = mod
    exec(code, mod.__dict__)
    mod.KEPT = [s.lineno for s in kept]  # type: ignore[attr-defined]
    missing = [n for n in needed if n not in mod.__dict__]
    if missing:
        raise ImportError(f"{path}: no top-level definition of {', '.join(missing)}")
    return mod

"""What ``triton.compile`` needs to rebuild a kernel: its source and globals.

At capture time :func:`record_source` walks a ``JITFunction``: the text of the
function (``raw_src`` as Triton read it, decorators included), its file, first
line and module/qualname, and every global or closure name the function's
``def`` (annotations, defaults, body) reads, each as a tagged JSON value:

=====================  ==================================================
``1``, ``"s"``, ...    a JSON scalar (int, float, bool, str, null)
``{"float": "inf"}``   a float JSON cannot hold
``{"constexpr": v}``   ``tl.constexpr(v)``
``{"dtype": "fp16"}``  a ``tl.dtype``
``{"tuple": [...]}``   a tuple (also ``{"list": [...]}``)
``{"module": "m"}``    a module importable anywhere Triton is (triton.*, stdlib)
``{"namespace": {}}``  a user module: only the attributes the kernel reads
``{"jit": "m.f"}``     another ``@triton.jit`` function (recorded too)
``{"python": "m.f"}``  a plain Python function (recorded too)
``{"import": "m:q"}``  an object importable by module and qualified name
``{"unsupported": t}`` anything else: the variant cannot be rebuilt
=====================  ==================================================

The record is a JSON document (``ksnap-kernel-source`` version 1) kept in the
variant's cache folder as ``__ksnap_source__<kernel>.json`` (see
docs/capture-format.md). :func:`build_function` (recompile workers) rebuilds
the ``JITFunction`` from it without the program: each function's text is
parsed and checked (one ``def``; literal defaults, type-marker annotations,
decorators never evaluated; see docs/hostile-input.md), and only that ``def``
runs, in a namespace holding exactly the recorded globals (allow-listed
modules only), compiled under its original file name and line, with the
original lines in ``linecache``, so Triton's locations, names and hashes come
out as in the captured run.

Worked example (see tests/test_kernelsrc.py)::

    doc = record_source(matmul_kernel)          # a JITFunction
    doc["root"]                                 # 'suite_kernels.matmul_kernel'
    doc["functions"][doc["root"]]["globals"]    # {'tl': {'module': 'triton.language'}, ...}
    fn = build_function(doc, triton)            # a fresh JITFunction, same IR
"""

from __future__ import annotations

import ast
import hashlib
import json
import linecache
import math
import os
import sys
import textwrap
import types
from typing import Any

FORMAT = "ksnap-kernel-source"
VERSION = 1

__all__ = ["FORMAT", "VERSION", "SourceError", "record_source", "encode_value",
           "decode_value", "build_function", "build_functions", "source_file_name",
           "write_source"]

# ``from __future__ import annotations`` as a compile() flag.
_FUTURE_ANNOTATIONS = 0x1000000


class SourceError(ValueError):
    """A source record that cannot be rebuilt; the message says why."""


def source_file_name(kernel: str) -> str:
    """Name of the source record in a variant's cache folder."""
    return f"__ksnap_source__{kernel}.json"


def _class_name(obj: Any) -> str:
    return type(obj).__name__


def _is_jit(obj: Any) -> bool:
    """A Triton JIT function (JITFunction, GluonJITFunction, ...)."""
    return (_class_name(obj).endswith("JITFunction") and hasattr(obj, "fn")
            and hasattr(obj, "raw_src"))


def _is_constexpr_function(obj: Any) -> bool:
    return _class_name(obj) == "ConstexprFunction" and hasattr(obj, "fn")


def _portable_module(name: str) -> bool:
    """Modules the recompile machine has whenever it has Triton."""
    root = name.split(".", 1)[0]
    return root in ("triton", "numpy") or root in getattr(sys, "stdlib_module_names", ())


def _full_name(fn: Any) -> str:
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', '?')}"


class _Recorder:
    def __init__(self) -> None:
        self.functions: dict[str, dict] = {}
        self.files: dict[str, str] = {}

    # -- values ------------------------------------------------------------
    def value(self, v: Any, depth: int = 0) -> Any:
        if depth > 20:
            return {"unsupported": "nesting deeper than 20"}
        if v is None or isinstance(v, (bool, int, str)):
            return v
        if isinstance(v, float):
            return v if math.isfinite(v) else {"float": repr(v)}
        if isinstance(v, tuple) and not hasattr(v, "_fields"):
            return {"tuple": [self.value(x, depth + 1) for x in v]}
        if isinstance(v, list):
            return {"list": [self.value(x, depth + 1) for x in v]}
        cls = _class_name(v)
        if cls == "constexpr" and hasattr(v, "value"):
            return {"constexpr": self.value(v.value, depth + 1)}
        if cls in ("dtype", "pointer_type", "block_type") or (
                type(v).__module__.startswith("triton.language") and hasattr(v, "is_ptr")
                and hasattr(v, "name")):
            return {"dtype": str(v)}
        if isinstance(v, types.ModuleType):
            return {"module": v.__name__}
        if _is_jit(v):
            return {"jit": self.function(v)}
        if _is_constexpr_function(v):
            return {"constexpr_function": self.function(v)}
        if isinstance(v, types.FunctionType):
            mod = getattr(v, "__module__", "") or ""
            if _portable_module(mod) and "<locals>" not in v.__qualname__:
                return {"import": f"{mod}:{v.__qualname__}"}
            return {"python": self.function(v)}
        mod = getattr(v, "__module__", None)
        qual = getattr(v, "__qualname__", None)
        if isinstance(mod, str) and isinstance(qual, str) and "<locals>" not in qual and \
                mod != "__main__":
            return {"import": f"{mod}:{qual}"}
        return {"unsupported": f"{type(v).__module__}.{cls}"}

    # -- functions ---------------------------------------------------------
    def function(self, obj: Any) -> str:
        """Records a JIT / constexpr / plain function; returns its key."""
        py = obj.fn if (_is_jit(obj) or _is_constexpr_function(obj)) else obj
        while hasattr(py, "fn") and not isinstance(py, types.FunctionType):
            py = py.fn  # decorators that wrap a JITFunction
        key = _full_name(py)
        if key in self.functions:
            return key
        rec: dict[str, Any] = {"module": py.__module__, "qualname": py.__qualname__,
                               "name": py.__name__}
        self.functions[key] = rec  # placeholder first: recursion ends here
        if _is_jit(obj):
            rec["kind"] = "gluon" if "Gluon" in _class_name(obj) else "triton"
            raw = list(obj.raw_src)
            first = int(obj.starting_line_number)
            rec["jit"] = {k: _jsonable(getattr(obj, k, None))
                          for k in ("noinline", "debug", "do_not_specialize",
                                    "do_not_specialize_on_alignment")
                          if getattr(obj, k, None) is not None}
        else:
            rec["kind"] = "constexpr_function" if _is_constexpr_function(obj) else "python"
            import inspect

            try:
                raw, first = inspect.getsourcelines(py)
            except (OSError, TypeError) as e:
                rec["error"] = f"no source for {key}: {e}"
                return key
        code = py.__code__
        rec["file"] = code.co_filename
        rec["first_line"] = first
        rec["text"] = "".join(raw)
        self._snapshot(code.co_filename, first, raw)
        rec["future_annotations"] = bool(code.co_flags & _FUTURE_ANNOTATIONS)
        rec["globals"] = self._globals(py, rec["text"])
        return key

    def _snapshot(self, filename: str, first: int, raw: list) -> None:
        """Keeps the source file as Triton read it (through linecache), if it
        holds the function's lines where the function says they are."""
        if filename in self.files:
            return
        lines = linecache.getlines(filename)
        if lines[first - 1:first - 1 + len(raw)] == list(raw):
            self.files[filename] = "".join(lines)

    def _globals(self, py: Any, text: str) -> dict:
        try:
            tree = ast.parse(textwrap.dedent(text))
        except SyntaxError as e:
            return {"__error__": {"unsupported": f"source does not parse: {e.msg}"}}
        fdef = next((n for n in ast.walk(tree)
                     if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
        if fdef is None:
            return {}
        nonlocals = {}
        if py.__closure__:
            for name, cell in zip(py.__code__.co_freevars, py.__closure__):
                try:
                    nonlocals[name] = cell.cell_contents
                except ValueError:
                    pass
        scope = dict(py.__globals__)
        scope.update(nonlocals)
        reads = _free_reads(fdef)
        out: dict[str, Any] = {}
        for name, attrs in sorted(reads.items()):
            if name not in scope:
                continue  # a builtin, or a name Triton resolves itself
            out[name] = self._global(scope[name], attrs)
        return out

    def _global(self, v: Any, attrs: dict) -> Any:
        if isinstance(v, types.ModuleType) and not _portable_module(v.__name__):
            ns = {}
            for attr, sub in sorted(attrs.items()):
                if hasattr(v, attr):
                    ns[attr] = self._global(getattr(v, attr), sub)
            return {"namespace": ns, "name": v.__name__}
        return self.value(v)


def _jsonable(v: Any) -> Any:
    if isinstance(v, (list, tuple, set, frozenset)):
        return [_jsonable(x) for x in v]
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return str(v)


def _free_reads(fdef: ast.AST) -> dict[str, dict]:
    """Names the function reads but does not bind, each with the attribute
    tree read off it (``tl.math.exp`` -> {"tl": {"math": {"exp": {}}}})."""
    bound: set[str] = set()
    args = fdef.args
    for a in args.posonlyargs + args.args + args.kwonlyargs:
        bound.add(a.arg)
    if args.vararg:
        bound.add(args.vararg.arg)
    if args.kwarg:
        bound.add(args.kwarg.arg)
    for node in ast.walk(fdef):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node is not fdef:
            bound.add(node.name)
    reads: dict[str, dict] = {}

    def chain(node: ast.AST) -> list[str] | None:
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name):
            return [node.id] + parts[::-1]
        return None

    nodes = list(ast.iter_child_nodes(fdef))
    fdef_nodes = [n for n in nodes if n not in getattr(fdef, "decorator_list", [])]
    for top in fdef_nodes:
        for node in ast.walk(top):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                c = chain(node)
                if c and c[0] not in bound:
                    d = reads.setdefault(c[0], {})
                    for p in c[1:]:
                        d = d.setdefault(p, {})
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                if node.id not in bound:
                    reads.setdefault(node.id, {})
    return reads


def record_source(jit_function: Any) -> dict:
    """The source record of a JIT function and everything it reads."""
    r = _Recorder()
    root = r.function(jit_function)
    unsupported = sorted(f"{k}: {name} is {v['unsupported']}"
                         for k, f in r.functions.items()
                         for name, v in _walk_tags(f.get("globals", {}))
                         if isinstance(v, dict) and "unsupported" in v)
    errors = sorted(f["error"] for f in r.functions.values() if "error" in f)
    doc = {"format": FORMAT, "version": VERSION, "root": root,
           "functions": dict(sorted(r.functions.items())),
           "files": dict(sorted(r.files.items()))}
    if unsupported or errors:
        doc["problems"] = errors + unsupported
    return doc


def _walk_tags(globs: dict, prefix: str = ""):
    for name, v in globs.items():
        yield prefix + name, v
        if isinstance(v, dict) and isinstance(v.get("namespace"), dict):
            yield from _walk_tags(v["namespace"], prefix + name + ".")


def encode_value(v: Any) -> Any:
    """Tagged JSON of a constexpr value (JIT functions become {"jit": name}
    without their source; record_source records those)."""
    return _Recorder().value(v)


def write_source(folder: str, kernel: str, doc: dict) -> str:
    """Writes the record into ``folder`` (atomic); returns its file name."""
    name = source_file_name(kernel)
    path = os.path.join(folder, name)
    data = json.dumps(doc, sort_keys=True, indent=None).encode("utf-8")
    if os.path.exists(path):
        try:
            with open(path, "rb") as f:
                if f.read() == data:
                    return name
        except OSError:
            pass
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return name


def source_digest(doc: dict) -> str:
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


# ---------------------------------------------------------------------------
# Rebuilding (recompile workers; needs the real Triton)
# ---------------------------------------------------------------------------

def decode_value(v: Any, tl: Any, functions: dict | None = None,
                 trusted: tuple = ()) -> Any:
    """Python value of a tagged JSON value (see the table above).

    ``{"module"}`` and ``{"import"}`` name only allowed modules
    (:func:`allowed_module`: Triton's language, math, and ``trusted``, the
    libraries named with ``--trust-module``); anything else is a SourceError
    and nothing is imported.
    """
    if not isinstance(v, dict):
        return v
    if "constexpr" in v:
        return tl.constexpr(decode_value(v["constexpr"], tl, functions, trusted))
    if "dtype" in v:
        return _dtype(v["dtype"], tl)
    if "tuple" in v:
        return tuple(decode_value(x, tl, functions, trusted) for x in v["tuple"])
    if "list" in v:
        return [decode_value(x, tl, functions, trusted) for x in v["list"]]
    if "float" in v:
        return float(v["float"])
    if "module" in v:
        import importlib

        return importlib.import_module(_allowed_name(v["module"], trusted))
    if "import" in v:
        return _import_object(v["import"], trusted)
    for tag in ("jit", "python", "constexpr_function"):
        if tag in v:
            if functions is None or v[tag] not in functions:
                raise SourceError(f"function {v[tag]} is not in the source record")
            return functions[v[tag]]
    if "unsupported" in v:
        raise SourceError(f"a value of type {v['unsupported']} was not recorded")
    raise SourceError(f"unknown value tag {sorted(v)}")


#: Modules a record may name without being told: Triton's language (and the
#: ``triton`` package object itself, not its other submodules) and math.
ALLOWED_MODULES = ("triton.language", "math")


def allowed_module(name: str, trusted: tuple = ()) -> bool:
    """Whether a capture may make a recompile worker import module ``name``:
    ``triton``, ``triton.language[.*]``, ``math[.*]``, or a module of a
    library named on the command line (``trusted``, with its submodules)."""
    if not isinstance(name, str) or not name or any(
            not p.isidentifier() or p.startswith("__") for p in name.split(".")):
        return False
    if name == "triton":
        return True
    return any(name == root or name.startswith(root + ".")
               for root in ALLOWED_MODULES + tuple(trusted))


def _allowed_name(name: Any, trusted: tuple) -> str:
    if not allowed_module(name, trusted):
        raise SourceError(f"module {name!r} is not allowed (Triton's language, math, or a "
                          "library named with --trust-module)")
    return name


def _dtype(name: str, tl: Any) -> Any:
    if name.startswith("pointer<") and name.endswith(">"):
        return tl.pointer_type(_dtype(name[len("pointer<"):-1], tl))
    return tl.dtype(name)


def _import_object(spec: Any, trusted: tuple = ()) -> Any:
    import importlib

    if not isinstance(spec, str):
        raise SourceError(f"import {spec!r} is not a string")
    mod, _, qual = spec.partition(":")
    parts = qual.split(".")
    if any(not p.isidentifier() or p.startswith("__") for p in parts):
        raise SourceError(f"import {spec!r}: {qual!r} is not a plain qualified name")
    obj = importlib.import_module(_allowed_name(mod, trusted))
    for part in parts:
        obj = getattr(obj, part)
    return obj


#: Builtins a kernel's text may not name (unless it binds the name itself):
#: each reaches code or objects beyond the kernel's recorded globals.
_REFUSED_BUILTINS = frozenset((
    "__import__", "breakpoint", "compile", "delattr", "eval", "exec", "exit", "getattr",
    "globals", "help", "input", "locals", "memoryview", "object", "open", "quit", "setattr",
    "super", "type", "vars"))


def _where(rec: dict, node: Any, first: int) -> str:
    """``file:line`` of an AST node of the recorded text (original numbering)."""
    return f"{rec.get('file')}:{first - 1 + getattr(node, 'lineno', 1)}"


def _chain(node: Any) -> list | None:
    """``a.b.c`` as ["a", "b", "c"]; None for anything but names and attributes."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return [node.id] + parts[::-1]
    return None


def _is_marker(node: Any) -> bool:
    """A type marker in an annotation: ``tl.constexpr``, ``int``, ``"str"``,
    ``None``, ``A[B, C]`` and ``A | B`` of markers."""
    if isinstance(node, ast.Constant):
        return node.value is None or isinstance(node.value, str)
    if _chain(node) is not None:
        return True
    if isinstance(node, ast.Subscript):
        inner = node.slice.value if type(node.slice).__name__ == "Index" else node.slice
        items = inner.elts if isinstance(inner, ast.Tuple) else [inner]
        return _chain(node.value) is not None and all(
            _is_marker(i) or _is_literal(i) for i in items)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _is_marker(node.left) and _is_marker(node.right)
    return False


def _is_literal(node: Any) -> bool:
    """A default value evaluated at ``def`` time without running code: a
    constant, a negated constant, a tuple/list of those, a name or attribute
    (``tl.float16``), or ``tl.constexpr(<literal>)``."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return isinstance(node.operand, ast.Constant) and isinstance(
            node.operand.value, (int, float, complex)) and not isinstance(node.operand.value, bool)
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_is_literal(e) for e in node.elts)
    if _chain(node) is not None:
        return True
    if isinstance(node, ast.Call):
        c = _chain(node.func)
        return bool(c) and c[-1] == "constexpr" and not node.keywords and \
            len(node.args) == 1 and _is_literal(node.args[0])
    return False


def _shown(node: Any) -> str:
    """Short text of an AST node for an error message."""
    text = ast.unparse(node) if hasattr(ast, "unparse") else type(node).__name__
    return repr(text if len(text) <= 60 else text[:57] + "...")


def _check_definition(rec: dict, key: str, tree: ast.Module, first: int) -> ast.FunctionDef:
    """The one ``def`` of a recorded text; SourceError (located) when the text
    holds anything else, or when what ``def`` evaluates — defaults and
    annotations — is not a literal / type marker, or when it names a dunder
    attribute or a refused builtin anywhere."""
    body = tree.body
    if len(body) != 1 or not isinstance(body[0], ast.FunctionDef):
        node = next((n for n in body if not isinstance(n, ast.FunctionDef)), body[-1]
                    if body else None)
        raise SourceError(f"{_where(rec, node, first)}: {key}: the recorded text must be "
                          "exactly one function definition")
    fdef = body[0]
    if fdef.name != rec.get("name"):
        raise SourceError(f"{_where(rec, fdef, first)}: {key}: the text defines "
                          f"{fdef.name!r}, the record says {rec.get('name')!r}")
    args = fdef.args
    for d in args.defaults + [d for d in args.kw_defaults if d is not None]:
        if not _is_literal(d):
            raise SourceError(f"{_where(rec, d, first)}: {key}: default value "
                              f"{_shown(d)} is not a literal (it would run at "
                              "definition time)")
    params = args.posonlyargs + args.args + args.kwonlyargs + [
        a for a in (args.vararg, args.kwarg) if a is not None]
    for ann in [a.annotation for a in params] + [fdef.returns]:
        if ann is not None and not _is_marker(ann):
            raise SourceError(f"{_where(rec, ann, first)}: {key}: annotation "
                              f"{_shown(ann)} is not a type marker")
    bound = {a.arg for a in params} | set(rec.get("globals") or {})
    for node in ast.walk(fdef):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
    for top in [fdef.args, fdef.returns] + fdef.body:
        for node in ast.walk(top) if top is not None else ():
            name = node.attr if isinstance(node, ast.Attribute) else \
                node.id if isinstance(node, ast.Name) else None
            if name is None:
                continue
            if name.startswith("__") and name.endswith("__"):
                raise SourceError(f"{_where(rec, node, first)}: {key}: the text names "
                                  f"{name!r}; dunder names are refused")
            if isinstance(node, ast.Name) and name in _REFUSED_BUILTINS and name not in bound:
                raise SourceError(f"{_where(rec, node, first)}: {key}: the text calls on "
                                  f"the builtin {name!r}; refused")
    return fdef


def _define_function(key: str, rec: dict, namespace: dict, files: dict) -> Any:
    """Defines the recorded function in ``namespace`` at its original place.

    Only the ``def`` statement runs: the text is parsed, checked
    (:func:`_check_definition`), its decorators replaced by one stand-in on
    the first decorator's line (so that co_firstlineno, and hence Triton's
    starting_line_number, is the same) and never evaluated.
    """
    text = rec["text"]
    first = int(rec["first_line"])
    filename = rec["file"]
    if not isinstance(text, str) or not isinstance(filename, str) or first < 1:
        raise SourceError(f"{key}: text, file or first_line is not valid")
    lines = text.splitlines(keepends=True)
    if filename not in files:
        # No snapshot: the function's lines at their numbers, each region
        # closed by a column-0 statement so that inspect's block finder
        # stops where the function does.
        cached = linecache.cache.get(filename)
        old = list(cached[2]) if cached is not None and len(cached) == 4 and \
            cached[1] is None else []
        end = first - 1 + len(lines)
        if len(old) < end + 1:
            old += ["\n"] * (end + 1 - len(old))
        old[first - 1:end] = lines
        if not old[end].strip():
            old[end] = "__ksnap_end__ = 0\n"
        linecache.cache[filename] = (sum(map(len, old)), None, old, filename)
    try:
        tree = ast.parse(textwrap.dedent(text), filename, "exec")
    except SyntaxError as e:
        raise SourceError(f"{filename}:{first - 1 + (e.lineno or 1)}: {key}: recorded text "
                          f"does not parse: {e.msg}") from None
    except (ValueError, RecursionError, MemoryError) as e:  # NUL bytes, nesting
        raise SourceError(f"{filename}:{first}: {key}: recorded text does not parse: "
                          f"{type(e).__name__}: {e}") from None
    fdef = _check_definition(rec, key, tree, first)
    if fdef.decorator_list:
        keep = ast.Name(id="__ksnap_keep__", ctx=ast.Load())
        ast.copy_location(keep, fdef.decorator_list[0])
        fdef.decorator_list = [keep]
    ast.increment_lineno(tree, first - 1)
    flags = _FUTURE_ANNOTATIONS if rec.get("future_annotations") else 0
    code = compile(tree, filename, "exec", flags=flags, dont_inherit=True)
    namespace["__ksnap_keep__"] = lambda f: f
    before = namespace.get(rec["name"], _MISSING)
    try:
        exec(code, namespace)  # only the checked `def`: nothing else is in `tree`
        fn = namespace[rec["name"]]
    finally:
        if before is _MISSING:
            namespace.pop(rec["name"], None)
        else:
            namespace[rec["name"]] = before
        namespace.pop("__ksnap_keep__", None)
    fn.__qualname__ = rec["qualname"]
    import inspect

    try:
        seen = "".join(inspect.getsourcelines(fn)[0])
    except (OSError, TypeError):
        seen = None
    if seen != text:
        # Triton reads the function through inspect: it must read the text
        # that was checked, not other lines of a file snapshot.
        raise SourceError(f"{filename}:{first}: {key}: the file snapshot does not hold the "
                          "recorded text at its line")
    return fn


def _check_reach(key: str, rec: dict, namespace: dict, trusted: tuple) -> None:
    """Attribute chains of the text that start at a recorded global must not
    lead to a module outside the allow-list (``tl.core.builtins``,
    ``triton.compiler.compiler.os``): Triton's front end calls what a kernel
    reaches while it compiles."""
    tree = ast.parse(textwrap.dedent(rec["text"]))
    first = int(rec["first_line"])
    fdef = tree.body[0]
    for top in [fdef.args] + fdef.body:
        for node in ast.walk(top):
            c = _chain(node) if isinstance(node, ast.Attribute) else None
            if not c or c[0] not in (rec.get("globals") or {}) or c[0] not in namespace:
                continue
            obj = namespace[c[0]]
            for i, attr in enumerate(c[1:], 1):
                if isinstance(obj, types.ModuleType) and not getattr(obj, "__ksnap_namespace__",
                                                                     False):
                    try:
                        obj = getattr(obj, attr)
                    except Exception:  # noqa: BLE001 - Triton reports what is missing
                        break
                    if isinstance(obj, types.ModuleType) and not allowed_module(
                            obj.__name__, trusted):
                        raise SourceError(
                            f"{_where(rec, node, first)}: {key}: {'.'.join(c[:i + 1])} is "
                            f"module {obj.__name__!r}, outside the allowed modules")
                else:
                    break


_MISSING = object()


def build_function(doc: dict, triton: Any, trusted: tuple = ()) -> Any:
    """The root JITFunction of a source record, rebuilt from its text."""
    return build_functions(doc, triton, trusted)[0]


def build_functions(doc: dict, triton: Any, trusted: tuple = ()) -> tuple[Any, dict]:
    """(root JITFunction, {full name: rebuilt function}) of a source record.

    The record is untrusted (it comes with a capture): nothing of it runs
    but the checked ``def`` of each JIT function (see docs/hostile-input.md).
    Plain Python and constexpr functions, whose bodies Triton would run while
    compiling, are imported from their installed module when it is named in
    ``trusted`` and refused otherwise. Raises SourceError (with the reason and,
    where there is one, ``file:line`` of the recorded text).
    """
    if doc.get("format") != FORMAT or not isinstance(doc.get("version"), int) or \
            doc["version"] > VERSION:
        raise SourceError(f"not a {FORMAT} record of version <= {VERSION}")
    trusted = tuple(trusted)
    tl = triton.language
    records = doc.get("functions") or {}
    if not isinstance(records, dict) or doc.get("root") not in records or \
            not all(isinstance(r, dict) for r in records.values()):
        raise SourceError("the record has no root function")
    for problem in doc.get("problems", []):
        raise SourceError(problem)
    for key, rec in records.items():
        if "error" in rec or "text" not in rec:
            raise SourceError(rec.get("error") or f"{key}: no source text recorded")
        for field in ("module", "qualname", "name", "file"):
            if not isinstance(rec.get(field), str):
                raise SourceError(f"{key}: {field!r} is not a string")
        if not isinstance(rec.get("globals", {}), dict):
            raise SourceError(f"{key}: 'globals' is not an object")
    files = {f: t for f, t in (doc.get("files") or {}).items()
             if isinstance(f, str) and isinstance(t, str)}
    for filename, text in files.items():
        # The file as Triton read it; inspect finds the functions' lines here.
        lines = text.splitlines(keepends=True)
        linecache.cache[filename] = (len(text), None, lines, filename)
    namespaces: dict[str, dict] = {}
    built: dict[str, Any] = {}
    for key, rec in records.items():
        ns = namespaces.setdefault(rec["module"], {"__name__": rec["module"],
                                                   "__builtins__": __builtins__})
        for name, v in rec.get("globals", {}).items():
            if not _refers_to_function(v):
                ns[name] = _decode_checked(key, name, v, tl, None, trusted)
    for key, rec in records.items():
        kind = rec.get("kind", "triton")
        if kind in ("python", "constexpr_function"):
            built[key] = _installed_function(key, rec, trusted)
            continue
        try:
            fn = _define_function(key, rec, namespaces[rec["module"]], files)
        except SyntaxError as e:
            raise SourceError(f"{rec['file']}:{e.lineno or rec.get('first_line')}: {key}: "
                              f"recorded text does not compile: {e.msg}") from None
        except SourceError:
            raise
        except Exception as e:  # noqa: BLE001 - a default/annotation that fails at def time
            raise SourceError(f"{rec['file']}:{rec.get('first_line')}: {key}: defining it "
                              f"failed: {type(e).__name__}: {e}") from None
        if kind == "gluon":
            from triton.experimental import gluon

            built[key] = gluon.jit(fn, **_jit_kwargs(gluon.jit, rec))
        elif kind == "triton":
            built[key] = triton.jit(fn, **_jit_kwargs(triton.jit, rec))
        else:
            raise SourceError(f"{key}: unknown function kind {kind!r}")
    for key, rec in records.items():
        ns = namespaces[rec["module"]]
        for name, v in rec.get("globals", {}).items():
            if _refers_to_function(v):
                ns[name] = _decode_checked(key, name, v, tl, built, trusted)
    for key, rec in records.items():
        if rec.get("kind", "triton") in ("triton", "gluon"):
            _check_reach(key, rec, namespaces[rec["module"]], trusted)
    return built[doc["root"]], built


def _installed_function(key: str, rec: dict, trusted: tuple) -> Any:
    """A plain Python or constexpr function, from its installed module: its
    body would run while Triton compiles, so the recorded text is not used."""
    if not allowed_module(rec["module"], trusted) or rec["module"] == "triton":
        raise SourceError(
            f"{rec['file']}:{rec.get('first_line')}: {key}: a {rec.get('kind')} function runs "
            f"while Triton compiles; it is taken only from an installed module named with "
            f"--trust-module (not {rec['module']!r})")
    try:
        return _import_object(f"{rec['module']}:{rec['qualname']}", trusted)
    except SourceError:
        raise
    except Exception as e:  # noqa: BLE001 - the installed library lacks it
        raise SourceError(f"{key}: cannot import it from the installed {rec['module']}: "
                          f"{type(e).__name__}: {e}") from None


def _refers_to_function(v: Any) -> bool:
    if not isinstance(v, dict):
        return False
    if any(t in v for t in ("jit", "python", "constexpr_function")):
        return True
    if "namespace" in v:
        return any(_refers_to_function(x) for x in v["namespace"].values())
    if "tuple" in v or "list" in v:
        return any(_refers_to_function(x) for x in v.get("tuple", v.get("list")))
    return False


def _decode_checked(key: str, name: str, v: Any, tl: Any, functions: dict | None,
                    trusted: tuple = ()) -> Any:
    try:
        return _decode_global(v, tl, functions, trusted)
    except SourceError as e:
        raise SourceError(f"{key}: global {name}: {e}") from None
    except Exception as e:  # noqa: BLE001 - an import that fails here, a bad dtype
        raise SourceError(f"{key}: global {name}: {type(e).__name__}: {e}") from None


def _decode_global(v: Any, tl: Any, functions: dict | None, trusted: tuple = ()) -> Any:
    if isinstance(v, dict) and "namespace" in v:
        if not isinstance(v["namespace"], dict):
            raise SourceError("namespace is not an object")
        mod = types.ModuleType(str(v.get("name") or "ksnap_namespace"))
        mod.__ksnap_namespace__ = True  # recorded values only, never imported
        for attr, sub in v["namespace"].items():
            if not isinstance(attr, str) or not attr.isidentifier() or attr.startswith("__"):
                raise SourceError(f"namespace attribute {attr!r} is not a plain name")
            setattr(mod, attr, _decode_global(sub, tl, functions, trusted))
        return mod
    return decode_value(v, tl, functions, trusted)


def _jit_kwargs(jit: Any, rec: dict) -> dict:
    import inspect

    try:
        accepted = set(inspect.signature(jit).parameters)
    except (TypeError, ValueError):
        accepted = set()
    out = {}
    for k, v in (rec.get("jit") or {}).items():
        if k in accepted and v is not None:
            out[k] = v
    return out

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
exec'd in a namespace holding exactly the recorded globals, compiled under
its original file name and line, with the original lines in ``linecache``,
so Triton's locations, names and hashes come out as in the captured run.

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

def decode_value(v: Any, tl: Any, functions: dict | None = None) -> Any:
    """Python value of a tagged JSON value (see the table above)."""
    if not isinstance(v, dict):
        return v
    if "constexpr" in v:
        return tl.constexpr(decode_value(v["constexpr"], tl, functions))
    if "dtype" in v:
        return _dtype(v["dtype"], tl)
    if "tuple" in v:
        return tuple(decode_value(x, tl, functions) for x in v["tuple"])
    if "list" in v:
        return [decode_value(x, tl, functions) for x in v["list"]]
    if "float" in v:
        return float(v["float"])
    if "module" in v:
        import importlib

        return importlib.import_module(v["module"])
    if "import" in v:
        return _import_object(v["import"])
    for tag in ("jit", "python", "constexpr_function"):
        if tag in v:
            if functions is None or v[tag] not in functions:
                raise SourceError(f"function {v[tag]} is not in the source record")
            return functions[v[tag]]
    if "unsupported" in v:
        raise SourceError(f"a value of type {v['unsupported']} was not recorded")
    raise SourceError(f"unknown value tag {sorted(v)}")


def _dtype(name: str, tl: Any) -> Any:
    if name.startswith("pointer<") and name.endswith(">"):
        return tl.pointer_type(_dtype(name[len("pointer<"):-1], tl))
    return tl.dtype(name)


def _import_object(spec: str) -> Any:
    import importlib

    mod, _, qual = spec.partition(":")
    obj = importlib.import_module(mod)
    for part in qual.split("."):
        obj = getattr(obj, part)
    return obj


def _exec_function(rec: dict, namespace: dict, files: dict) -> Any:
    """Defines the recorded function in ``namespace`` at its original place."""
    text = rec["text"]
    first = int(rec["first_line"])
    filename = rec["file"]
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
    # Code: one stand-in decorator on the first decorator's line (so that
    # co_firstlineno, and hence Triton's starting_line_number, is the same),
    # the dedented `def` at its original line.
    dedented = textwrap.dedent(text).splitlines(keepends=True)
    def_at = next((i for i, l in enumerate(dedented)
                   if l.lstrip().startswith(("def ", "async def "))), None)
    if def_at is None:
        raise SourceError(f"{rec['module']}.{rec['qualname']}: no 'def' in the recorded text")
    body = "".join(dedented[def_at:])
    prefix = "\n" * (first - 1)
    if def_at > 0:
        prefix += "@__ksnap_keep__\n" + "\n" * (def_at - 1)
    flags = _FUTURE_ANNOTATIONS if rec.get("future_annotations") else 0
    code = compile(prefix + body, filename, "exec", flags=flags, dont_inherit=True)
    namespace["__ksnap_keep__"] = lambda f: f
    before = namespace.get(rec["name"], _MISSING)
    exec(code, namespace)
    fn = namespace[rec["name"]]
    if before is _MISSING:
        del namespace[rec["name"]]
    else:
        namespace[rec["name"]] = before
    del namespace["__ksnap_keep__"]
    fn.__qualname__ = rec["qualname"]
    return fn


_MISSING = object()


def build_function(doc: dict, triton: Any) -> Any:
    """The root JITFunction of a source record, rebuilt from its text."""
    return build_functions(doc, triton)[0]


def build_functions(doc: dict, triton: Any) -> tuple[Any, dict]:
    """(root JITFunction, {full name: rebuilt function}) of a source record.

    Raises SourceError (with the reason) when something was not recorded or
    the recorded text does not define the function.
    """
    if doc.get("format") != FORMAT or not isinstance(doc.get("version"), int) or \
            doc["version"] > VERSION:
        raise SourceError(f"not a {FORMAT} record of version <= {VERSION}")
    tl = triton.language
    records = doc.get("functions") or {}
    if doc.get("root") not in records:
        raise SourceError("the record has no root function")
    for problem in doc.get("problems", []):
        raise SourceError(problem)
    files = {f: t for f, t in (doc.get("files") or {}).items()
             if isinstance(f, str) and isinstance(t, str)}
    for filename, text in files.items():
        # The file as Triton read it; inspect finds the functions' lines here.
        lines = text.splitlines(keepends=True)
        linecache.cache[filename] = (len(text), None, lines, filename)
    namespaces: dict[str, dict] = {}
    built: dict[str, Any] = {}
    plain: dict[str, Any] = {}
    for key, rec in records.items():
        ns = namespaces.setdefault(rec["module"], {"__name__": rec["module"],
                                                   "__builtins__": __builtins__})
        for name, v in rec.get("globals", {}).items():
            if not _refers_to_function(v):
                ns[name] = _decode_checked(key, name, v, tl, None)
    for key, rec in records.items():
        if "error" in rec or "text" not in rec:
            raise SourceError(rec.get("error") or f"{key}: no source text recorded")
        try:
            fn = _exec_function(rec, namespaces[rec["module"]], files)
        except SyntaxError as e:
            raise SourceError(f"{key}: recorded text does not compile: {e}") from None
        except SourceError:
            raise
        except Exception as e:  # noqa: BLE001 - defaults/annotations evaluated at def time
            raise SourceError(f"{key}: defining it failed: {type(e).__name__}: {e}") from None
        plain[key] = fn
        kind = rec.get("kind", "triton")
        if kind == "python":
            built[key] = fn
        elif kind == "constexpr_function":
            built[key] = triton.constexpr_function(fn)
        elif kind == "gluon":
            from triton.experimental import gluon

            built[key] = gluon.jit(fn, **_jit_kwargs(gluon.jit, rec))
        else:
            built[key] = triton.jit(fn, **_jit_kwargs(triton.jit, rec))
    for key, rec in records.items():
        ns = namespaces[rec["module"]]
        for name, v in rec.get("globals", {}).items():
            if _refers_to_function(v):
                ns[name] = _decode_checked(key, name, v, tl, built)
    return built[doc["root"]], built


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


def _decode_checked(key: str, name: str, v: Any, tl: Any, functions: dict | None) -> Any:
    try:
        return _decode_global(v, tl, functions)
    except SourceError as e:
        raise SourceError(f"{key}: global {name}: {e}") from None
    except Exception as e:  # noqa: BLE001 - an import that fails here, a bad dtype
        raise SourceError(f"{key}: global {name}: {type(e).__name__}: {e}") from None


def _decode_global(v: Any, tl: Any, functions: dict | None) -> Any:
    if isinstance(v, dict) and "namespace" in v:
        mod = types.ModuleType(v.get("name") or "ksnap_namespace")
        for attr, sub in v["namespace"].items():
            setattr(mod, attr, _decode_global(sub, tl, functions))
        return mod
    return decode_value(v, tl, functions)


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

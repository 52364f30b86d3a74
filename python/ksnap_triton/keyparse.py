"""Parsing of Triton's JIT specialization key.

Triton's ``JITFunction.run`` keys its in-memory kernel cache with
``str(specialization) + str(options)``: a Python-repr list of one tuple per
argument, directly followed by the repr of the explicitly passed compile
options. The key is what ``knobs.runtime.jit_post_compile_hook`` receives.

Worked example::

    >>> k = ("[('*fp32', 'D'), ('i32', None), ('constexpr', 1), ('constexpr', 256)]"
    ...      "{'num_warps': 4, 'debug': False, 'instrumentation_mode': ''}")
    >>> sig, opts = split_key(k)
    >>> sig
    [['*fp32', 'D'], ['i32', None], ['constexpr', 1], ['constexpr', 256]]
    >>> explicit_options(opts)
    {'num_warps': 4}
    >>> signature_rows(sig, ['x', 'n', 'stride', 'BLOCK'])
    [['x', '*fp32', 'D'], ['n', 'i32', None], ['stride', 'constexpr', 1], ['BLOCK', 'constexpr', 256]]

Values that are not Python literals (a dtype such as ``fp16`` or
``triton.language.float16``, a ``tl.constexpr(...)`` call) are kept as their
source text, so every key parses and nothing is evaluated.
"""

from __future__ import annotations

import ast
from typing import Any

__all__ = [
    "KeyParseError",
    "split_key",
    "literal",
    "explicit_options",
    "move_option_params",
    "COMPILE_OPTION_NAMES",
    "signature_rows",
    "json_safe",
]


class KeyParseError(ValueError):
    """A key that is not ``[...]{...}`` (or ``[...]``) Python repr text."""


def _matching_close(text: str, start: int) -> int:
    """Index of the bracket closing ``text[start]``; skips quoted strings.

    Raises KeyParseError when the brackets do not balance.
    """
    pairs = {"[": "]", "(": ")", "{": "}"}
    stack: list[str] = []
    i = start
    quote = ""
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = ""
        elif c in ("'", '"'):
            quote = c
        elif c in pairs:
            stack.append(pairs[c])
        elif c in ")]}":
            if not stack or stack.pop() != c:
                raise KeyParseError(f"unbalanced '{c}' at offset {i}")
            if not stack:
                return i
        i += 1
    raise KeyParseError(f"unclosed '{text[start]}' opened at offset {start}")


def _convert(node: ast.AST, text: str) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.Tuple, ast.List)):
        return [_convert(e, text) for e in node.elts]
    if isinstance(node, ast.Dict):
        out = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                raise KeyParseError("'**' inside a key dictionary")
            key = _convert(k, text)
            out[key if isinstance(key, str) else repr(key)] = _convert(v, text)
        return out
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _convert(node.operand, text)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return -v if isinstance(node.op, ast.USub) else v
    # A name, attribute, call, ...: keep the source text.
    seg = ast.get_source_segment(text, node)
    return seg if seg is not None else ast.dump(node)


def literal(text: str) -> Any:
    """Parses one Python-repr value into JSON-ready data (tuples -> lists).

    Non-literal parts stay as their source text. Raises KeyParseError on text that
    is not a Python expression.
    """
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as e:
        raise KeyParseError(f"not a Python value: {e.msg} at column {e.offset}") from None
    return _convert(tree.body, text.strip())


def split_key(key: str) -> tuple[list, dict]:
    """Splits a JIT key into (specialization list, options dict).

    Each specialization item becomes a list ``[type, spec]`` where ``spec`` is
    ``'D'`` (divisible by 16), ``None``, or the constexpr value.
    """
    text = key.strip()
    if not text.startswith("["):
        raise KeyParseError("key does not start with '['")
    close = _matching_close(text, 0)
    sig = literal(text[: close + 1])
    rest = text[close + 1 :].strip()
    opts: Any = {}
    if rest:
        if not rest.startswith("{"):
            raise KeyParseError(f"unexpected text after the argument list: {rest[:20]!r}")
        end = _matching_close(rest, 0)
        if rest[end + 1 :].strip():
            raise KeyParseError("unexpected text after the options")
        opts = literal(rest)
    if not isinstance(sig, list) or not isinstance(opts, dict):
        raise KeyParseError("key is not a list followed by a dict")
    return [item if isinstance(item, list) else [item] for item in sig], opts


# Options the JIT adds to every key by itself; dropped when at their defaults
# so that `options` lists only what the caller (or autotune config) passed.
_JIT_ADDED_DEFAULTS = {"debug": False, "instrumentation_mode": ""}


def explicit_options(options: dict) -> dict:
    """The key's options minus those the JIT adds at their default values."""
    return {
        k: v
        for k, v in options.items()
        if not (k in _JIT_ADDED_DEFAULTS and v == _JIT_ADDED_DEFAULTS[k])
    }


# Compile options of Triton's backends (CUDAOptions / HIPOptions fields that
# a launch can pass). A kernel parameter with one of these names (the
# tutorials' `num_stages: tl.constexpr`) is both a constexpr and the compile
# option: ksnap reports it under `options`, as the shared corpus does.
COMPILE_OPTION_NAMES = frozenset({
    "num_warps", "num_ctas", "num_stages", "maxnreg", "enable_fp_fusion",
    "launch_cooperative_grid", "launch_pdl", "matrix_instr_nonkdim", "waves_per_eu",
    "kpack", "schedule_hint", "instruction_sched_variant",
})


def move_option_params(constexprs: dict, options: dict) -> tuple[dict, dict]:
    """Moves constexpr parameters named like compile options into options."""
    kept = {k: v for k, v in constexprs.items() if k not in COMPILE_OPTION_NAMES}
    merged = dict(options)
    for k, v in constexprs.items():
        if k in COMPILE_OPTION_NAMES:
            merged.setdefault(k, v)
    return kept, merged


def signature_rows(sig: list, arg_names: list[str] | None) -> list:
    """Zips the specialization list with argument names: ``[[name, type, spec]]``.

    Without names (or with a count mismatch, e.g. tuple arguments flattened
    differently), returns ``[[type, spec]]`` rows unchanged.
    """
    if not arg_names or len(arg_names) != len(sig):
        return [list(item) for item in sig]
    rows = []
    for name, item in zip(arg_names, sig):
        typ = item[0] if item else None
        spec = item[1] if len(item) > 1 else None
        rows.append([name, typ, spec])
    return rows


def json_safe(value: Any) -> Any:
    """Converts a constexpr/option value into JSON data (dtypes -> str)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    inner = getattr(value, "value", None)  # tl.constexpr wraps its value
    if inner is not None and inner is not value and not callable(inner):
        return json_safe(inner)
    return str(value)

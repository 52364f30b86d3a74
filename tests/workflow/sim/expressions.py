"""GitHub Actions expressions: `${{ ... }}` as the runner evaluates them.

    evaluate("github.event_name == 'push' && env.X || 'none'", contexts)
    interpolate("key-${{ github.sha }}", contexts)   # -> "key-1a2b..."

Literals (null, true, false, numbers, 'strings' with '' escapes), property
access (a.b, a['b'], a.*.b), ! == != < <= > >= && || and parentheses, with
GitHub's rules: && and || return an operand, == compares strings
case-insensitively and otherwise coerces to numbers; functions contains,
startsWith, endsWith, format, join, toJSON, fromJSON, hashFiles, and the
status functions success, failure, always, cancelled (from `status`).
"""

from __future__ import annotations

import glob
import hashlib
import json
import math
import os
import re
from typing import Any

TOKEN = re.compile(r"""
    \s*(?:
      (?P<num>-?(?:0x[0-9a-fA-F]+|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?))
    | (?P<str>'(?:[^']|'')*')
    | (?P<op>==|!=|<=|>=|&&|\|\||[!<>()\[\].,*])
    | (?P<name>[A-Za-z_][A-Za-z0-9_-]*)
    )""", re.X)


class ExpressionError(ValueError):
    pass


def tokenize(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ExpressionError(f"cannot parse {text!r} at {pos}")
        kind = m.lastgroup
        out.append((kind, m.group(kind)))
        pos = m.end()
    return out


class Filtered(list):
    """The result of `.*`: property access maps over the items."""


def to_number(v: Any) -> float:
    if v is None:
        return 0.0
    if isinstance(v, bool):
        return 1.0 if v else 0.0
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        s = v.strip()
        if s == "":
            return 0.0
        try:
            return float(int(s, 16)) if s.lower().startswith("0x") else float(s)
        except ValueError:
            return math.nan
    return math.nan


def truthy(v: Any) -> bool:
    if v is None or v is False:
        return False
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return v != 0 and not math.isnan(v)
    if isinstance(v, str):
        return v != ""
    return True


def equal(a: Any, b: Any) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        return a.lower() == b.lower()
    if isinstance(a, (dict, list)) or isinstance(b, (dict, list)):
        return a is b
    return to_number(a) == to_number(b)


def to_string(v: Any) -> str:
    if v is None:
        return ""
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    if isinstance(v, (dict, list)):
        return json.dumps(v, indent=2)
    return str(v)


class Parser:
    def __init__(self, text: str, ctx: dict) -> None:
        self.toks = tokenize(text)
        self.i = 0
        self.ctx = ctx

    def peek(self) -> tuple[str, str] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, value: str | None = None) -> tuple[str, str]:
        t = self.peek()
        if t is None or (value is not None and t[1] != value):
            raise ExpressionError(f"expected {value!r}, got {t!r}")
        self.i += 1
        return t

    def parse(self) -> Any:
        v = self.or_()
        if self.peek() is not None:
            raise ExpressionError(f"trailing {self.peek()!r}")
        return v

    def logical(self, op: str, operand, pick) -> Any:
        v = operand()
        while self.peek() == ("op", op):
            self.take()
            v = pick(v, operand())
        return v

    def or_(self) -> Any:
        return self.logical("||", self.and_, lambda a, b: a if truthy(a) else b)

    def and_(self) -> Any:
        return self.logical("&&", self.cmp, lambda a, b: b if truthy(a) else a)

    def cmp(self) -> Any:
        v = self.unary()
        while self.peek() and self.peek()[1] in ("==", "!=", "<", "<=", ">", ">="):
            op = self.take()[1]
            rhs = self.unary()
            if op == "==":
                v = equal(v, rhs)
            elif op == "!=":
                v = not equal(v, rhs)
            else:
                a, b = (v, rhs) if isinstance(v, str) and isinstance(rhs, str) else (
                    to_number(v), to_number(rhs))
                v = {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
        return v

    def unary(self) -> Any:
        if self.peek() == ("op", "!"):
            self.take()
            return not truthy(self.unary())
        return self.postfix(self.primary())

    def primary(self) -> Any:
        kind, text = self.take()
        if kind == "num":
            return float(int(text, 16)) if "x" in text.lower() else float(text)
        if kind == "str":
            return text[1:-1].replace("''", "'")
        if kind == "op" and text == "(":
            v = self.or_()
            self.take(")")
            return v
        if kind == "name":
            if text in ("true", "false"):
                return text == "true"
            if text == "null":
                return None
            if self.peek() == ("op", "("):
                return self.call(text)
            return self.ctx.get(text)
        raise ExpressionError(f"unexpected {text!r}")

    def postfix(self, v: Any) -> Any:
        while True:
            t = self.peek()
            if t == ("op", "."):
                self.take()
                nt = self.take()
                v = Filtered(v.values() if isinstance(v, dict) else v or []) if nt[1] == "*" \
                    else index(v, nt[1])
            elif t == ("op", "["):
                self.take()
                key = self.or_()
                self.take("]")
                v = index(v, key)
            else:
                return v

    def call(self, name: str) -> Any:
        self.take("(")
        args = []
        while self.peek() != ("op", ")"):
            args.append(self.or_())
            if self.peek() == ("op", ","):
                self.take()
        self.take(")")
        return call(name.lower(), args, self.ctx)


def index(v: Any, key: Any) -> Any:
    if isinstance(v, Filtered):
        return Filtered(x for x in (index(i, key) for i in v) if x is not None)
    if isinstance(v, dict):
        if isinstance(key, str):
            for k, val in v.items():
                if k.lower() == key.lower():
                    return val
        return None
    if isinstance(v, list) and isinstance(key, (int, float)) and not isinstance(key, bool):
        i = int(key)
        return v[i] if 0 <= i < len(v) else None
    return None


def call(name: str, args: list, ctx: dict) -> Any:
    status = ctx.get("__status__", "success")
    if name == "success":
        return status == "success"
    if name == "failure":
        return status == "failure"
    if name == "always":
        return True
    if name == "cancelled":
        return status == "cancelled"
    if name == "contains":
        hay, needle = args
        if isinstance(hay, list):
            return any(equal(x, needle) for x in hay)
        return to_string(needle).lower() in to_string(hay).lower()
    if name == "startswith":
        return to_string(args[0]).lower().startswith(to_string(args[1]).lower())
    if name == "endswith":
        return to_string(args[0]).lower().endswith(to_string(args[1]).lower())
    if name == "format":
        fmt = to_string(args[0])
        return re.sub(r"\{(\d+)\}", lambda m: to_string(args[1 + int(m.group(1))]),
                      fmt.replace("{{", "\x00").replace("}}", "\x01")).replace(
                          "\x00", "{").replace("\x01", "}")
    if name == "join":
        sep = to_string(args[1]) if len(args) > 1 else ","
        return sep.join(to_string(x) for x in args[0]) if isinstance(args[0], list) \
            else to_string(args[0])
    if name == "tojson":
        return json.dumps(args[0], indent=2)
    if name == "fromjson":
        return json.loads(to_string(args[0]))
    if name == "hashfiles":
        root = ctx.get("github", {}).get("workspace", ".")
        files = sorted({p for pat in args for p in glob.glob(os.path.join(root, to_string(pat)),
                                                               recursive=True) if os.path.isfile(p)})
        if not files:
            return ""
        h = hashlib.sha256()
        for p in files:
            with open(p, "rb") as f:
                h.update(hashlib.sha256(f.read()).digest())
        return h.hexdigest()
    raise ExpressionError(f"unknown function {name}()")


def evaluate(text: str, ctx: dict) -> Any:
    text = text.strip()
    if text.startswith("${{") and text.endswith("}}"):
        text = text[3:-2]
    return Parser(text, ctx).parse()


EMBEDDED = re.compile(r"\$\{\{(.*?)\}\}", re.S)


def interpolate(value: Any, ctx: dict) -> Any:
    """Replaces every ${{ }} in a string (recursively in lists and dicts).
    A string that is exactly one expression keeps the expression's type."""
    if isinstance(value, dict):
        return {k: interpolate(v, ctx) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, ctx) for v in value]
    if not isinstance(value, str):
        return value
    m = EMBEDDED.fullmatch(value)
    if m and value.count("${{") == 1:
        return evaluate(m.group(1), ctx)
    return EMBEDDED.sub(lambda m: to_string(evaluate(m.group(1), ctx)), value)


def condition(text: Any, ctx: dict) -> bool:
    """A step's or job's `if:`; without a status function it means success() && (...)."""
    if text is None or text == "":
        return ctx.get("__status__", "success") == "success"
    if isinstance(text, bool):
        return text and ctx.get("__status__", "success") == "success"
    s = str(text).strip()
    if s.startswith("${{") and s.endswith("}}"):
        s = s[3:-2]
    v = truthy(evaluate(s, ctx))
    if re.search(r"\b(success|failure|always|cancelled)\s*\(", s):
        return v
    return v and ctx.get("__status__", "success") == "success"

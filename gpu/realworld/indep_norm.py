"""An independent, deliberately simple canonicalizer for the corpus truth.

It shares no code or rules with ksnap's normalizer: it is the second opinion
that decides whether two stage files differ in more than names, locations
and debug information. It removes only what carries no semantics and renames
by first appearance, so it errs towards "different".

* MLIR (source, ttir, ttgir): ``#loc...`` alias lines and every
  ``loc(...)`` reference are dropped; SSA values (``%name``, ``%name#1``),
  block labels (``^bb3``) are renamed by order of first appearance.
* LLVM IR: ``!dbg`` attachments, ``#dbg_*`` records, debug metadata nodes
  (``!DI*``) and ``!llvm.dbg.cu`` are dropped, then metadata nodes nothing
  refers to any more, ``source_filename``; local values and labels are
  renamed by first appearance per function, metadata ids by first
  appearance in the module.
* PTX / AMDGCN: ``.loc``/``.file`` directives, ``.section .debug_*`` blocks,
  comments, the debug-range labels (``$L__func_begin0``, ``$L__tmp1``,
  ``.Ltmp3``, ``.Lfunc_begin0``, ``.Lfunc_end0``, ``.Ldebug_*``), and
  ``.cfi_*`` directives are dropped.

Worked example::

    canon("ttir", '%offsets = tt.make_range ... loc(#loc3)') ==
    canon("ttir", '%0 = tt.make_range ...')
"""

from __future__ import annotations

import re

__all__ = ["canon"]

_LOC_START = re.compile(r"(?<![\w.%#$])loc\(")


def _drop_locs(line: str) -> str:
    if "loc(" not in line:
        return line.rstrip()
    out = []
    i = 0
    while True:
        m = _LOC_START.search(line, i)
        if not m:
            out.append(line[i:])
            break
        out.append(line[i:m.start()])
        depth, j, in_str = 0, m.end() - 1, False
        while j < len(line):
            c = line[j]
            if in_str:
                if c == "\\":
                    j += 1
                elif c == '"':
                    in_str = False
            elif c == '"':
                in_str = True
            elif c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        i = j + 1
    return "".join(out).rstrip()


class _Renamer:
    def __init__(self, prefix: str):
        self.prefix = prefix
        self.map: dict[str, str] = {}

    def __call__(self, name: str) -> str:
        if name not in self.map:
            self.map[name] = f"{self.prefix}{len(self.map)}"
        return self.map[name]


_MLIR_VALUE = re.compile(r"%[A-Za-z0-9_$.\-]+(?=(:|\s*=(?!=))?)")
_MLIR_BLOCK = re.compile(r"\^[A-Za-z0-9_$.\-]+")


class _DefRenamer:
    """Fresh canonical name at every definition; a use takes the name's
    current definition (MLIR value names are unique within a function, and
    printed definitions precede uses)."""

    def __init__(self, prefix: str):
        self.prefix, self.count, self.current = prefix, 0, {}

    def define(self, name: str) -> str:
        self.current[name] = f"{self.prefix}{self.count}"
        self.count += 1
        return self.current[name]

    def use(self, name: str) -> str:
        return self.current.get(name) or self.define(name)


def _mlir(text: str) -> list[str]:
    values, blocks = _DefRenamer("%v"), _Renamer("^b")
    out = []
    for line in text.splitlines():
        if line.startswith("#loc"):
            continue
        line = _drop_locs(line)
        if not line.strip():
            continue
        if re.match(r"\s*(tt|ttg|gluon)?\.?func\b|\s*(tt\.func|func\.func|llvm\.func)\b", line):
            blocks = _Renamer("^b")
        line = _MLIR_VALUE.sub(
            lambda m: values.define(m.group(0)) if m.group(1) is not None else values.use(m.group(0)), line)
        line = _MLIR_BLOCK.sub(lambda m: blocks(m.group(0)), line)
        out.append(line)
    return out


_LL_LOCAL = re.compile(r'%(?:"(?:[^"\\]|\\.)*"|[A-Za-z0-9_$.\-]+)')
_LL_LABEL_DEF = re.compile(r'^("(?:[^"\\]|\\.)*"|[A-Za-z0-9_$.\-]+):')
_LL_META = re.compile(r"!(\d+)\b")


def _llvm(text: str) -> list[str]:
    lines = []
    for line in text.splitlines():
        if line.startswith(("source_filename", "; ModuleID")) or line.startswith("!llvm.dbg.cu"):
            continue
        if re.match(r"\s*#dbg_\w+\(", line):
            continue
        if re.match(r"!\d+ = (distinct )?!DI", line):
            continue
        if line.lstrip().startswith(";"):
            continue
        line = re.sub(r",?\s*!dbg !\d+", "", line)
        line = re.sub(r"\s*;.*$", "", line) if not re.search(r'"[^"]*;', line) else line
        if line.strip():
            lines.append(line.rstrip())
    # Drop metadata definitions nothing refers to any more (debug leftovers).
    while True:
        defs = {m.group(1): k for k, l in enumerate(lines) if (m := re.match(r"!(\d+) = ", l))}
        used = set()
        for k, l in enumerate(lines):
            body = l.split(" = ", 1)[1] if re.match(r"!(\d+) = ", l) else l
            used.update(_LL_META.findall(body))
        dead = [k for n, k in defs.items() if n not in used]
        if not dead:
            break
        lines = [l for k, l in enumerate(lines) if k not in set(dead)]
    meta = _Renamer("!m")
    out = []
    local = _Renamer("%l")
    for line in lines:
        if line.startswith("define "):
            local = _Renamer("%l")
        m = _LL_LABEL_DEF.match(line)
        if m and not line.startswith(("define", "declare", "attributes", "target")):
            line = local("%" + m.group(1)) + ":" + line[m.end():]
        line = _LL_LOCAL.sub(lambda mm: local(mm.group(0)), line)
        line = _LL_META.sub(lambda mm: meta("!" + mm.group(1)), line)
        out.append(line)
    return out


_ASM_DROP = re.compile(
    r"^\s*(\.loc\b|\.file\b|\.cfi_|\$L__(func_begin|func_end|tmp)\d*:|"
    r"\.L(tmp|func_begin|func_end|debug_\w+|section_\w+|info_string|cu_begin|names_\w+)\d*:)")


_DEBUG_SECTION = re.compile(r'^\s*\.section\s+"?\.debug')
_SECTION_START = re.compile(r"^\s*(\.section\b|\.text\b|\.amdgpu_metadata\b|\.end_amdgpu_metadata\b)")


def _asm(text: str, comment: str) -> list[str]:
    out = []
    mode = None  # None | "header" (after a debug .section) | "brace" (PTX {...}) | "elf"
    depth = 0
    for line in text.splitlines():
        stripped = line.strip()
        if mode == "brace":
            depth += stripped.count("{") - stripped.count("}")
            if depth <= 0:
                mode = None
            continue
        if mode == "header":
            if stripped == "{":  # PTX: .section .debug_x { ... }
                mode, depth = "brace", 1
                continue
            mode = "elf"
        if _DEBUG_SECTION.match(line):
            mode = "header"
            continue
        if mode == "elf":
            if not _SECTION_START.match(line):
                continue
            mode = None
        if _ASM_DROP.match(line):
            continue
        if comment in line:
            line = line.split(comment, 1)[0]
        line = line.rstrip()
        if line.strip():
            out.append(line)
    return out


def canon(stage: str, text: str) -> list[str]:
    """Canonical lines of one stage's text."""
    if stage in ("source", "ttir", "ttgir"):
        return _mlir(text)
    if stage == "llir":
        return _llvm(text)
    if stage == "ptx":
        return _asm(text, "//")
    if stage == "amdgcn":
        return _asm(text, ";")
    raise ValueError(f"no canonical form for stage {stage}")

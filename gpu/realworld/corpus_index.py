"""Reads corpus capture folders: the variants of each build keyed by a truth
identity that does not depend on ksnap's own pairing.

A JIT-compiled variant is identified by its qualified name (the tutorial
module is named after the file, so it is the same in every build) and
Triton's JIT key (argument specialization + options, verbatim). A direct
``triton.compile`` (the gfx942 cross-compiles) has no key; drive.py never
compiles two specs with the same kernel, constexprs and options, so those
three identify it.

    idx = load_build("tests/fixtures/realworld/base")
    for ident, entry in idx.items(): ...
"""

from __future__ import annotations

import json
import os


def identity(entry: dict) -> str:
    if entry.get("key"):
        return f"{entry.get('qualname')}|{entry['key']}"
    return "|".join([str(entry.get("qualname")), json.dumps(entry.get("constexprs", {}), sort_keys=True),
                     json.dumps(entry.get("options", {}), sort_keys=True)])


def ksnap_id(entry: dict) -> str:
    """The ``kernel|constexprs|options`` id ksnap prints for a variant
    (Variant::id(): sorted keys, json.dumps spacing)."""
    return "|".join([entry["kernel"], json.dumps(entry.get("constexprs", {}), sort_keys=True),
                     json.dumps(entry.get("options", {}), sort_keys=True)])


def load_build(folder: str) -> dict[str, dict]:
    with open(os.path.join(folder, "manifest.json")) as f:
        manifest = json.load(f)
    out: dict[str, dict] = {}
    for e in manifest["entries"]:
        ident = identity(e)
        if ident in out:
            raise ValueError(f"{folder}: two entries with identity {ident}")
        out[ident] = e
    return out


def stage_path(folder: str, entry: dict, stage: str) -> str | None:
    rel = (entry.get("stages") or {}).get(stage)
    return os.path.join(folder, rel) if rel else None

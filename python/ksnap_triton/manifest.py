"""The capture manifest: reading, joining and writing (docs/capture-format.md).

A capture folder holds Triton's cache (``cache/<hash>/...``), one shard
manifest per process (``manifest.d/<host>-<pid>.json``) and the joined
``manifest.json``. This module is pure data handling; it never imports Triton.

Worked example::

    >>> a = {"kernel": "k", "key": "[]{}", "constexprs": {}, "options": {},
    ...      "cache_dir": "H", "launched": False, "compile_s": 0.5,
    ...      "benchmark": {"points": [{"M": 16}]}}
    >>> b = dict(a, launched=True, compile_s=0.2,
    ...          benchmark={"points": [{"M": 32}]})
    >>> [e] = join_entries([a, b])          # the same variant, two processes
    >>> e["launched"], e["compile_s"], e["benchmark"]["points"]
    (True, 0.2, [{'M': 16}, {'M': 32}])
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any, Iterable

FORMAT = "ksnap-capture"
SHARD_FORMAT = "ksnap-capture-shard"
FORMAT_VERSION = 1

__all__ = [
    "FORMAT",
    "SHARD_FORMAT",
    "FORMAT_VERSION",
    "ManifestError",
    "canonical",
    "variant_identity",
    "join_entries",
    "sort_key",
    "read_manifest",
    "write_json_atomic",
    "make_manifest",
]


class ManifestError(ValueError):
    """A manifest that cannot be read; the message names the file (and line)."""


def canonical(value: Any) -> str:
    """Deterministic JSON text (sorted keys, Python json.dumps spacing)."""
    return json.dumps(value, sort_keys=True)


def variant_identity(entry: dict) -> tuple:
    """What makes two entries the same compiled variant.

    The kernel (qualified when known) and the file it is defined in, Triton's
    JIT key and the cache folder (the hash of source, options, target and
    environment). Two scripts that both define ``__main__.matmul_kernel`` with
    the same code share a key and a cache folder but are two kernels: the
    source file tells them apart. Timing, process and benchmark fields are
    not part of it.
    """
    return (
        entry.get("qualname") or entry.get("kernel"),
        entry.get("kernel"),
        entry.get("key") or "",
        entry.get("cache_dir") or "",
        entry.get("source_file") or "",
    )


def sort_key(entry: dict) -> tuple:
    """Order of entries in a manifest: kernel, constexprs, options, key, hash."""
    return (
        entry.get("kernel") or "",
        canonical(entry.get("constexprs", {})),
        canonical(entry.get("options", {})),
        entry.get("key") or "",
        entry.get("qualname") or "",
        entry.get("source_file") or "",
        entry.get("cache_dir") or "",
    )


def _union_sorted(lists: Iterable[list]) -> list:
    seen: dict[str, Any] = {}
    for items in lists:
        for item in items or []:
            seen.setdefault(canonical(item), item)
    return [seen[k] for k in sorted(seen)]


def _min_or_none(values: Iterable[Any]) -> Any:
    present = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return min(present) if present else None


def _join_group(group: list[dict]) -> dict:
    """Joins entries of one variant. The result does not depend on order."""
    group = sorted(group, key=canonical)
    out = dict(group[0])
    for e in group[1:]:
        for k, v in e.items():
            if out.get(k) is None and v is not None:
                out[k] = v
    out["launched"] = any(bool(e.get("launched")) for e in group)
    for field in ("compile_s", "n_regs", "n_spills"):
        if any(field in e for e in group):
            out[field] = _min_or_none(e.get(field) for e in group)
    if any("cache_hit" in e for e in group):
        # A variant any process compiled itself was not only a cache hit.
        out["cache_hit"] = all(bool(e.get("cache_hit")) for e in group)
    benches = [e.get("benchmark") for e in group if isinstance(e.get("benchmark"), dict)]
    if benches:
        bench = dict(min(benches, key=lambda b: canonical({k: v for k, v in b.items()
                                                           if k != "points"})))
        bench["points"] = _union_sorted(b.get("points", []) for b in benches)
        out["benchmark"] = bench
    shards = _union_sorted([e["shard"]] if isinstance(e.get("shard"), dict) else e.get("shards", [])
                           for e in group)
    out.pop("shard", None)
    if shards:
        out["shards"] = shards
    return out


def join_entries(entries: Iterable[dict]) -> list[dict]:
    """De-duplicates identical variants and sorts: the manifest's entries."""
    groups: dict[tuple, list[dict]] = {}
    for e in entries:
        groups.setdefault(variant_identity(e), []).append(e)
    return sorted((_join_group(g) for g in groups.values()), key=sort_key)


def _line_of_offset(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def read_manifest(path: str) -> dict:
    """Reads a manifest.json or shard file; old files without ``format`` load.

    Raises ManifestError naming ``path:line`` for bad JSON, a foreign
    ``format``, a newer ``format_version`` or entries that are not objects.
    """
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise ManifestError(f"{path}: cannot read: {e.strerror}") from None
    if b"\0" in raw:
        raise ManifestError(f"{path}:1: binary data, not a JSON manifest")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        raise ManifestError(f"{path}:{line}: not UTF-8 text") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ManifestError(f"{path}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}") from None
    if not isinstance(data, dict):
        raise ManifestError(f"{path}:1: manifest is not a JSON object")
    fmt = data.get("format")
    if fmt is not None:
        if fmt not in (FORMAT, SHARD_FORMAT):
            line = _line_of_offset(text, max(text.find('"format"'), 0))
            raise ManifestError(f"{path}:{line}: format is {fmt!r}, expected {FORMAT!r}")
        version = data.get("format_version")
        if not isinstance(version, int) or version < 1 or version > FORMAT_VERSION:
            line = _line_of_offset(text, max(text.find('"format_version"'), 0))
            raise ManifestError(
                f"{path}:{line}: format_version {version!r} not readable "
                f"(this ksnap_triton reads 1..{FORMAT_VERSION})")
    entries = data.get("entries", [])
    if not isinstance(entries, list):
        raise ManifestError(f"{path}:1: \"entries\" is not a list")
    for i, e in enumerate(entries):
        if not isinstance(e, dict) or not isinstance(e.get("kernel"), str):
            raise ManifestError(f"{path}: entry {i} is not an object with a string \"kernel\"")
    data["entries"] = entries
    return data


def write_json_atomic(path: str, data: Any, *, indent: int | None = 1,
                      sort_keys: bool = False, fsync: bool = True) -> None:
    """Writes JSON to a temporary file beside ``path``, fsyncs, renames.

    Readers see either the old or the new file, never a torn one.
    ``indent=None`` writes compact JSON (shards, rewritten often).
    ``fsync=False`` skips the fsync: for files whose loss in a crash costs
    only a re-measurement (the tuning cache), where an fsync would cost the
    caller milliseconds.
    """
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp",
                               dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            if indent is None:
                json.dump(data, f, separators=(",", ":"), sort_keys=sort_keys)
            else:
                json.dump(data, f, indent=indent, sort_keys=sort_keys)
            f.write("\n")
            if fsync:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _common(values: Iterable[Any]) -> Any:
    """The single distinct non-null value, the sorted distinct values joined
    with ',' when they differ, or None."""
    distinct = sorted({v for v in values if isinstance(v, str) and v})
    if not distinct:
        return None
    return distinct[0] if len(distinct) == 1 else ",".join(distinct)


def make_manifest(build: str, entries: list[dict], headers: list[dict]) -> dict:
    """The joined manifest.json for ``entries`` from shards with ``headers``.

    ``headers`` are the shard/old manifests' top-level fields; their
    triton_version, arch and capture settings are folded in deterministically.
    """
    joined = join_entries(entries)
    arch = _common([e.get("arch") for e in joined] + [h.get("arch") for h in headers])
    capture = _union_sorted([h["capture"]] for h in headers if isinstance(h.get("capture"), dict))
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "build": build,
        "triton_version": _common(h.get("triton_version") for h in headers),
        "source_path": _common(h.get("source_path") for h in headers),
        "patch": None,
        "options": {},
        "arch": arch,
        "capture": capture[0] if len(capture) == 1 else capture,
        "entries": joined,
    }

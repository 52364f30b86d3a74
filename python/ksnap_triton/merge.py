"""Joining shards and shard captures into one ``manifest.json``.

``merge_captures(OUT, [S1, S2])`` reads ``OUT/manifest.json``, every
``OUT/manifest.d/*.json`` shard, and the same files of each other capture
folder ``Si``; copies each ``Si/cache/<hash>`` folder an entry names into
``OUT/cache`` (Triton's cache folders are content-addressed, so a folder that
exists already is the same variant); de-duplicates identical variants and
writes ``OUT/manifest.json`` sorted, atomically, under a lock so concurrent
merges cannot interleave. The result does not depend on shard order.

Worked example::

    m, warnings = merge_captures("ci/pr", ["ci/pr-shard1", "ci/pr-shard2"])
    len(m["entries"])   # every variant of both shards, once
"""

from __future__ import annotations

import filecmp
import fcntl
import glob
import os
import shutil
from typing import Iterable

from . import manifest

__all__ = ["merge_captures", "read_capture", "MergeError"]


class MergeError(ValueError):
    """Input that cannot be merged; the message names the file."""


def read_capture(root: str) -> tuple[list[dict], list[dict]]:
    """(entries, headers) of a capture folder: its manifest.json and shards."""
    paths = []
    joined = os.path.join(root, "manifest.json")
    if os.path.isfile(joined):
        paths.append(joined)
    paths += sorted(p for p in glob.glob(os.path.join(root, "manifest.d", "*.json"))
                    if not os.path.basename(p).startswith("."))
    entries: list[dict] = []
    headers: list[dict] = []
    for p in paths:
        try:
            data = manifest.read_manifest(p)
        except manifest.ManifestError as e:
            raise MergeError(str(e)) from None
        entries += data.pop("entries")
        headers.append(data)
    return entries, headers


def _copy_cache_dir(src: str, dst: str, warnings: list[str]) -> None:
    """Copies one Triton cache folder; an existing one only gains missing files."""
    if not os.path.isdir(dst):
        tmp = f"{dst}.tmp.{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(src, tmp)
        try:
            os.rename(tmp, dst)
            return
        except OSError:  # another merge won the race
            shutil.rmtree(tmp, ignore_errors=True)
    for name in sorted(os.listdir(src)):
        s, d = os.path.join(src, name), os.path.join(dst, name)
        if not os.path.isfile(s):
            continue
        if not os.path.exists(d):
            shutil.copyfile(s, d + ".tmp")
            os.replace(d + ".tmp", d)
        elif not name.startswith("__grp__") and not filecmp.cmp(s, d, shallow=False):
            warnings.append(f"{s} differs from {d}; kept {d}")


def merge_captures(out: str, shards: Iterable[str] = (), build: str | None = None
                   ) -> tuple[dict, list[str]]:
    """Merges ``out``'s own shards and the capture folders ``shards`` into
    ``out/manifest.json``; returns (manifest, warnings)."""
    out = os.path.abspath(out)
    os.makedirs(os.path.join(out, "cache"), exist_ok=True)
    warnings: list[str] = []
    with open(os.path.join(out, ".merge.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        entries, headers = read_capture(out)
        for shard in shards:
            shard = os.path.abspath(shard)
            if shard == out:
                continue
            if not (os.path.isfile(os.path.join(shard, "manifest.json"))
                    or os.path.isdir(os.path.join(shard, "manifest.d"))):
                raise MergeError(f"{shard}: not a capture folder (no manifest.json or manifest.d/)")
            s_entries, s_headers = read_capture(shard)
            for e in s_entries:
                cache_dir = e.get("cache_dir")
                src = os.path.join(shard, "cache", str(cache_dir))
                if isinstance(cache_dir, str) and os.path.isdir(src):
                    _copy_cache_dir(src, os.path.join(out, "cache", cache_dir), warnings)
            entries += s_entries
            headers += s_headers
        kept = []
        for e in entries:
            cache_dir = e.get("cache_dir")
            if isinstance(cache_dir, str) and os.path.isdir(os.path.join(out, "cache", cache_dir)):
                kept.append(e)
            else:
                warnings.append(f"dropped {e.get('kernel')} entry: cache folder "
                                f"{cache_dir!r} is not in {out}/cache")
        name = build
        if name is None:
            name = next((h["build"] for h in headers
                         if isinstance(h.get("build"), str) and h.get("format") != manifest.SHARD_FORMAT),
                        None) or os.path.basename(out.rstrip("/"))
        result = manifest.make_manifest(name, kept, headers)
        manifest.write_json_atomic(os.path.join(out, "manifest.json"), result)
    return result, sorted(set(warnings))

"""Joining shards and shard captures into one ``manifest.json``.

``merge_captures(OUT, [S1, S2])`` reads ``OUT/manifest.json``, every
``OUT/manifest.d/*.json`` shard, and the same files of each other capture
folder ``Si``; copies each ``Si/cache/<hash>`` folder an entry names into
``OUT/cache`` (Triton's cache folders are content-addressed, so a folder that
exists already is the same variant); de-duplicates identical variants and
writes ``OUT/manifest.json`` sorted, atomically, under a lock so concurrent
merges cannot interleave. The result does not depend on shard order.

Shard captures are untrusted (docs/hostile-input.md): a merge writes only
inside OUT and never through a symbolic link. A ``cache_dir`` must be one
folder name, a stage path must stay inside its capture, symbolic links in a
shard are not copied (a warning names them), and a link where OUT's cache
would be written is an error.

Worked example::

    m, warnings = merge_captures("ci/pr", ["ci/pr-shard1", "ci/pr-shard2"])
    len(m["entries"])   # every variant of both shards, once
"""

from __future__ import annotations

import contextlib
import errno
import filecmp
import fcntl
import glob
import os
import shutil
import tempfile
from typing import Iterable

from . import manifest

__all__ = ["merge_captures", "read_capture", "MergeError"]


class MergeError(ValueError):
    """Input that cannot be merged; the message names the file."""


def _plain_name(name: object) -> bool:
    """One path component: a Triton cache folder name, never a path."""
    return (isinstance(name, str) and name not in ("", ".", "..")
            and "/" not in name and "\0" not in name)


def _stays_inside(rel: object) -> bool:
    """A relative path that does not climb out of its folder (lexically)."""
    if not isinstance(rel, str) or not rel or "\0" in rel or os.path.isabs(rel):
        return False
    norm = os.path.normpath(rel)
    return norm not in (".", "..") and not norm.startswith("../")


def _check_entry(path: str, index: int, entry: dict) -> None:
    """Raises MergeError for an entry whose cache folder or files would lead
    out of the capture."""
    cache_dir = entry.get("cache_dir")
    if cache_dir is not None and not _plain_name(cache_dir):
        raise MergeError(f"{path}: entry {index}: cache_dir {cache_dir!r} is not one folder "
                         "name under cache/")
    stages = entry.get("stages")
    if stages is not None and not isinstance(stages, dict):
        raise MergeError(f"{path}: entry {index}: \"stages\" is not an object")
    for stage, rel in (stages or {}).items():
        if not _stays_inside(rel):
            raise MergeError(f"{path}: entry {index}: stage {stage!r} path {rel!r} leaves the "
                             "capture folder")


def _linked_component(root: str, *parts: str) -> str | None:
    """The first of ``root/parts[0]``, ``root/parts[0]/parts[1]``, ... that is
    a symbolic link (every component below ``root`` is checked), else None."""
    path = root
    for part in parts:
        path = os.path.join(path, part)
        if os.path.islink(path):
            return path
    return None


def read_capture(root: str, warnings: list[str] | None = None) -> tuple[list[dict], list[dict]]:
    """(entries, headers) of a capture folder: its manifest.json and shards.

    A shard file that is a symbolic link is skipped (with a warning when
    ``warnings`` is given): a capture's files are read from inside it only.
    """
    paths = []
    joined = os.path.join(root, "manifest.json")
    if os.path.isfile(joined):
        paths.append(joined)
    linked = _linked_component(root, "manifest.d")
    if linked is None:
        paths += sorted(p for p in glob.glob(os.path.join(root, "manifest.d", "*.json"))
                        if not os.path.basename(p).startswith("."))
    elif warnings is not None:
        warnings.append(f"{linked} is a symbolic link; not read")
    entries: list[dict] = []
    headers: list[dict] = []
    for p in paths:
        if os.path.islink(p):
            if warnings is not None:
                warnings.append(f"{p} is a symbolic link; not read")
            continue
        try:
            data = manifest.read_manifest(p)
        except manifest.ManifestError as e:
            raise MergeError(str(e)) from None
        except RecursionError:
            raise MergeError(f"{p}: JSON nested too deeply") from None
        for i, e in enumerate(data["entries"]):
            _check_entry(p, i, e)
        entries += data.pop("entries")
        headers.append(data)
    return entries, headers


def _copy_file(src: str, dst: str) -> None:
    """Copies regular file ``src`` to ``dst`` (replaced atomically); neither
    side is followed through a symbolic link."""
    fd_in = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        fd_out, tmp = tempfile.mkstemp(prefix=".merge.", dir=os.path.dirname(dst))
        try:
            with os.fdopen(fd_out, "wb") as out, os.fdopen(fd_in, "rb", closefd=False) as inp:
                shutil.copyfileobj(inp, out)
            os.chmod(tmp, 0o644)  # mkstemp's 0600 would hide the IR from other users
            os.replace(tmp, dst)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    finally:
        os.close(fd_in)


def _copy_files(src: str, dst: str, warnings: list[str]) -> None:
    """Copies the regular files of folder ``src`` into folder ``dst``;
    symbolic links and anything else are reported, not copied."""
    for entry in sorted(os.scandir(src), key=lambda e: e.name):
        s, d = entry.path, os.path.join(dst, entry.name)
        if entry.is_symlink():
            warnings.append(f"{s} is a symbolic link; not copied")
            continue
        if not entry.is_file(follow_symlinks=False):
            continue
        if os.path.islink(d) or (os.path.lexists(d) and not os.path.isfile(d)):
            warnings.append(f"{d} is not a regular file; kept, not written through")
        elif not os.path.lexists(d):
            _copy_file(s, d)
        elif not entry.name.startswith("__grp__") and not filecmp.cmp(s, d, shallow=False):
            warnings.append(f"{s} differs from {d}; kept {d}")


def _copy_cache_dir(src: str, dst: str, warnings: list[str]) -> None:
    """Copies one Triton cache folder; an existing one only gains missing files."""
    if os.path.islink(src):
        warnings.append(f"{src} is a symbolic link; not copied")
        return
    if os.path.islink(dst) or (os.path.lexists(dst) and not os.path.isdir(dst)):
        raise MergeError(f"{dst} is a symbolic link or not a folder; a merge never writes "
                         "through it")
    if not os.path.isdir(dst):
        tmp = tempfile.mkdtemp(prefix=".merge.", dir=os.path.dirname(dst))
        os.chmod(tmp, 0o755)
        try:
            _copy_files(src, tmp, warnings)
            os.rename(tmp, dst)
            return
        except OSError:  # another merge won the race
            shutil.rmtree(tmp, ignore_errors=True)
            if os.path.islink(dst) or not os.path.isdir(dst):
                raise
    _copy_files(src, dst, warnings)


def _out_cache(out: str) -> str:
    """OUT/cache, created; an error when it is a link or leads out of OUT."""
    cache = os.path.join(out, "cache")
    if os.path.islink(cache):
        raise MergeError(f"{cache} is a symbolic link; a merge writes only inside {out}")
    os.makedirs(cache, exist_ok=True)
    real_out = os.path.realpath(out)
    if os.path.dirname(os.path.realpath(cache)) != real_out:
        raise MergeError(f"{cache} leads out of {out}")
    return cache


def _lock(out: str) -> int:
    """An exclusive lock on OUT/.merge.lock (never opened through a link)."""
    path = os.path.join(out, ".merge.lock")
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise MergeError(f"{path} is a symbolic link; a merge writes only inside {out}") from None
        raise
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def merge_captures(out: str, shards: Iterable[str] = (), build: str | None = None
                   ) -> tuple[dict, list[str]]:
    """Merges ``out``'s own shards and the capture folders ``shards`` into
    ``out/manifest.json``; returns (manifest, warnings)."""
    out = os.path.abspath(out)
    os.makedirs(out, exist_ok=True)
    warnings: list[str] = []
    lock = _lock(out)
    try:
        out_cache = _out_cache(out)
        entries, headers = read_capture(out, warnings)
        for shard in shards:
            shard = os.path.abspath(shard)
            if shard == out:
                continue
            if not (os.path.isfile(os.path.join(shard, "manifest.json"))
                    or os.path.isdir(os.path.join(shard, "manifest.d"))):
                raise MergeError(f"{shard}: not a capture folder (no manifest.json or manifest.d/)")
            s_entries, s_headers = read_capture(shard, warnings)
            for e in s_entries:
                cache_dir = e.get("cache_dir")
                if not isinstance(cache_dir, str):
                    continue
                linked = _linked_component(shard, "cache", cache_dir)
                if linked is not None:
                    warnings.append(f"{linked} is a symbolic link; not copied")
                    continue
                src = os.path.join(shard, "cache", cache_dir)
                if os.path.isdir(src):
                    _copy_cache_dir(src, os.path.join(out_cache, cache_dir), warnings)
            entries += s_entries
            headers += s_headers
        kept = []
        for e in entries:
            cache_dir = e.get("cache_dir")
            folder = os.path.join(out_cache, str(cache_dir))
            if (isinstance(cache_dir, str) and os.path.isdir(folder)
                    and not os.path.islink(folder)):
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
    finally:
        os.close(lock)
    return result, sorted(set(warnings))

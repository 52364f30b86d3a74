"""One process's shard manifest: ``manifest.d/<host>-<pid>.json``.

Every process that records into a capture owns exactly one shard file and
rewrites it (atomic rename) whenever it records something new, so a crash
loses at most the variant being recorded and a reader never sees a torn file.
Forked children get a fresh, empty shard of their own.

Worked example::

    w = ShardWriter("/tmp/cap", header={"triton_version": "3.6.0"})
    w.put({"kernel": "k", "key": "[]{}", "cache_dir": "H", ...})
    w.write()   # -> /tmp/cap/manifest.d/myhost-1234.json
"""

from __future__ import annotations

import os
import socket
import threading
import time
from typing import Callable

from . import manifest

__all__ = ["ShardWriter", "shard_id"]


def shard_id() -> dict:
    """This process as a shard: host name and pid."""
    return {"host": socket.gethostname(), "pid": os.getpid()}


def _safe(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text) or "host"


class ShardWriter:
    """Collects this process's entries and writes its shard file."""

    def __init__(self, root: str, header: dict | None = None) -> None:
        self.root = os.path.abspath(root)
        self.header = dict(header or {})
        self._lock = threading.RLock()
        self._entries: dict[tuple, dict] = {}
        self._reset_identity()
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._after_fork)

    def _reset_identity(self) -> None:
        self.shard = shard_id()
        self.started = time.time()
        self.path = os.path.join(self.root, "manifest.d",
                                 f"{_safe(self.shard['host'])}-{self.shard['pid']}.json")

    def _after_fork(self) -> None:
        self._lock = threading.RLock()
        self._entries = {}
        self._reset_identity()

    def put(self, entry: dict) -> dict:
        """Adds the entry, joined with an earlier one of its variant; returns the stored dict."""
        with self._lock:
            identity = manifest.variant_identity(entry)
            e = dict(entry)
            old = self._entries.get(identity)
            if old is not None:  # recorded again (another JIT object, a cache hit)
                e = manifest.join_entries([old, e])[0]
                e.pop("shards", None)
            e["shard"] = dict(self.shard)
            self._entries[identity] = e
            return e

    def update(self, identity: tuple, fn: Callable[[dict], None]) -> None:
        """Applies ``fn`` to the stored entry of ``identity``
        (manifest.variant_identity) under the writer's lock."""
        with self._lock:
            stored = self._entries.get(identity)
            if stored is not None:
                fn(stored)

    def entries(self) -> list[dict]:
        with self._lock:
            return [dict(e) for e in self._entries.values()]

    def document(self) -> dict:
        with self._lock:
            doc = {
                "format": manifest.SHARD_FORMAT,
                "format_version": manifest.FORMAT_VERSION,
                **self.header,
                "shard": dict(self.shard, started=round(self.started, 3)),
                "entries": sorted((dict(e) for e in self._entries.values()),
                                  key=manifest.sort_key),
            }
        return doc

    def write(self) -> str:
        """Atomically (re)writes the shard file; returns its path."""
        with self._lock:
            manifest.write_json_atomic(self.path, self.document(), indent=None)
            return self.path

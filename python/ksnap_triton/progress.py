"""Progress of a capture on the terminal: what ``ksnap capture`` shows while
the program runs.

The program writes its own output to the same terminal, so progress is a
full line (never a redrawn ``\\r`` line that the program's next print would
run into), at most one every ``KSNAP_PROGRESS_INTERVAL_S`` seconds (default
2), and the first only after that long::

    ksnap_triton: 37 variants of 5 kernels captured so far (4 s)

Only when stderr is a terminal; ``KSNAP_PROGRESS=1`` forces it (tests, CI
logs), ``KSNAP_PROGRESS=0`` silences it. Each process of a multi-process
program reports its own count (its shard).
"""
from __future__ import annotations

import os
import sys
import time
from typing import Callable, TextIO


class CaptureProgress:
    def __init__(self, stream: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._stream = stream if stream is not None else sys.stderr
        self._clock = clock
        self._start = clock()
        self._last = self._start
        try:
            self._interval = max(0.0, float(os.environ.get("KSNAP_PROGRESS_INTERVAL_S", "2")))
        except ValueError:
            self._interval = 2.0
        forced = os.environ.get("KSNAP_PROGRESS", "")
        if forced in ("0", "1"):
            self.enabled = forced == "1"
        else:
            try:
                self.enabled = self._stream.isatty()
            except (AttributeError, ValueError, OSError):
                self.enabled = False

    def note(self, counts: Callable[[], tuple[int, int]]) -> None:
        """A variant was captured; ``counts()`` gives (variants, kernels) so
        far and is called only when a line is due."""
        if not self.enabled:
            return
        now = self._clock()
        if now - self._last < self._interval:
            return
        self._last = now
        variants, kernels = counts()
        try:
            self._stream.write(f"ksnap_triton: {variants} variant{'s' if variants != 1 else ''} "
                               f"of {kernels} kernel{'s' if kernels != 1 else ''} captured so far "
                               f"({now - self._start:.0f} s)\n")
            self._stream.flush()
        except (OSError, ValueError):
            self.enabled = False  # a closed or broken stderr: stop, never fail the program

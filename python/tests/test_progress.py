"""Capture progress lines (ksnap_triton.progress): only on a terminal or when
forced, never more often than the interval, counts from the shard."""
import io

import pytest

from ksnap_triton import hooks
from ksnap_triton.progress import CaptureProgress
from ksnap_triton.recorder import Recorder


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


class Tty(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("stream,env,enabled", [
    (Tty(), {}, True),
    (io.StringIO(), {}, False),
    (io.StringIO(), {"KSNAP_PROGRESS": "1"}, True),
    (Tty(), {"KSNAP_PROGRESS": "0"}, False),
])
def test_enabled_only_on_a_terminal_or_when_forced(monkeypatch, stream, env, enabled):
    monkeypatch.delenv("KSNAP_PROGRESS", raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    assert CaptureProgress(stream).enabled is enabled


def test_lines_are_whole_and_rate_limited(monkeypatch):
    monkeypatch.delenv("KSNAP_PROGRESS", raising=False)
    monkeypatch.setenv("KSNAP_PROGRESS_INTERVAL_S", "2")
    out, clock = Tty(), Clock()
    p = CaptureProgress(out, clock)
    asked = []

    def counts():
        asked.append(1)
        return (len(asked) * 10, 3)

    p.note(counts)                   # at 0 s: nothing yet
    clock.t += 1.5
    p.note(counts)                   # 1.5 s: not due
    clock.t += 1.0
    p.note(counts)                   # 2.5 s: a line
    clock.t += 0.5
    p.note(counts)                   # 0.5 s after it: not due
    clock.t += 2.0
    p.note(counts)                   # a second line
    assert out.getvalue().splitlines() == [
        "ksnap_triton: 10 variants of 3 kernels captured so far (2 s)",
        "ksnap_triton: 20 variants of 3 kernels captured so far (5 s)",
    ]
    assert len(asked) == 2, "counts are computed only when a line is due"


def test_a_broken_stderr_stops_progress_without_failing(monkeypatch):
    monkeypatch.setenv("KSNAP_PROGRESS", "1")
    monkeypatch.setenv("KSNAP_PROGRESS_INTERVAL_S", "0")
    out = Tty()
    p = CaptureProgress(out)
    out.close()
    p.note(lambda: (1, 1))
    assert p.enabled is False


def test_the_recorder_reports_its_shard(tmp_path, fake_triton, monkeypatch, capsys):
    monkeypatch.setenv("KSNAP_PROGRESS", "1")
    monkeypatch.setenv("KSNAP_PROGRESS_INTERVAL_S", "0")
    rec = Recorder(str(tmp_path / "cap"), argv=["bench.py"], script="bench.py",
                   triton_version=fake_triton.__version__)
    inst = hooks.install(rec)
    try:
        import kernels_for_tests as k
        for w in (2, 4):
            k.add_kernel[(1,)](object(), object(), 64, BLOCK=64, num_warps=w)
    finally:
        inst.uninstall()
        del __import__("sys").modules["kernels_for_tests"]
    err = capsys.readouterr().err.splitlines()
    lines = [line for line in err if "captured so far" in line]
    assert lines[0].startswith("ksnap_triton: 1 variant of 1 kernel captured so far")
    assert lines[-1].startswith("ksnap_triton: 2 variants of 1 kernel captured so far")

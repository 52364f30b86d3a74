"""install_ksnap.sh never runs an unverified ksnap: `install: auto` uses the
ksnap on PATH only when ksnap-sha256 pins it, and a .deb only when its
SHA-256 is the one given. Runs the real script with a stand-in ksnap on PATH
(a self-hosted runner that once ran a fork's code may hold such a one)."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
SCRIPT = REPO_ROOT / "ci" / "github" / "scripts" / "install_ksnap.sh"


def planted_ksnap(tmp_path: Path) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    k = bin_dir / "ksnap"
    k.write_text("#!/bin/sh\necho 'ksnap 0.1.0 (planted)'\n")
    k.chmod(0o755)
    return k


def install(tmp_path: Path, ksnap: Path, **env: str) -> subprocess.CompletedProcess:
    e = {"PATH": f"{ksnap.parent}:/usr/bin:/bin", "KSNAP_SOURCE": str(tmp_path / "no-source"),
         "RUNNER_TEMP": str(tmp_path), "GITHUB_PATH": str(tmp_path / "github_path"),
         "HOME": str(tmp_path)}
    e.update(env)
    return subprocess.run(["bash", str(SCRIPT)], env=e, text=True, capture_output=True)


def sha256(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def test_auto_ignores_an_unpinned_ksnap_on_path(tmp_path):
    k = planted_ksnap(tmp_path)
    fake_deb = tmp_path / "ksnap.deb"
    fake_deb.write_bytes(b"not the release")
    # With a .deb to fall back on whose checksum is wrong: the planted ksnap
    # is not used, and the download is refused before it is installed.
    r = install(tmp_path, k, KSNAP_INSTALL="auto", KSNAP_DEB_URL=fake_deb.as_uri(),
                KSNAP_DEB_SHA256="0" * 64)
    out = r.stdout + r.stderr
    assert "(planted)" not in out, out
    assert f"not using the ksnap at {k}: no ksnap-sha256 pins it" in out, out
    assert r.returncode == 1 and "not deb-sha256" in out, out


def test_auto_ignores_a_ksnap_whose_checksum_differs(tmp_path):
    k = planted_ksnap(tmp_path)
    fake_deb = tmp_path / "ksnap.deb"
    fake_deb.write_bytes(b"x")
    r = install(tmp_path, k, KSNAP_INSTALL="auto", KSNAP_SHA256="f" * 64,
                KSNAP_DEB_URL=fake_deb.as_uri(), KSNAP_DEB_SHA256="0" * 64)
    out = r.stdout + r.stderr
    assert "(planted)" not in out and "its SHA-256 is not ksnap-sha256" in out, out


def test_auto_uses_the_pinned_ksnap(tmp_path):
    k = planted_ksnap(tmp_path)
    r = install(tmp_path, k, KSNAP_INSTALL="auto", KSNAP_SHA256=sha256(k))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "ksnap 0.1.0 (planted) at" in r.stdout and "(install: none)" in r.stdout


def test_none_checks_the_pin_when_there_is_one(tmp_path):
    k = planted_ksnap(tmp_path)
    r = install(tmp_path, k, KSNAP_INSTALL="none", KSNAP_SHA256="0" * 64)
    assert r.returncode == 1 and "does not have the SHA-256" in r.stdout, r.stdout + r.stderr


def test_deb_needs_its_checksum(tmp_path):
    k = planted_ksnap(tmp_path)
    deb = tmp_path / "ksnap.deb"
    deb.write_bytes(b"x")
    r = install(tmp_path, k, KSNAP_INSTALL="deb", KSNAP_DEB_URL=deb.as_uri())
    assert r.returncode == 1 and "deb needs deb-sha256" in r.stdout, r.stdout + r.stderr

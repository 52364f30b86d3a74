"""The sass stage: written beside each cubin when a disassembler is found
(here a stand-in script named by KSNAP_SASS_TOOL); a failing disassembler
costs the stage, never the variant."""

import json
import os
import stat

from conftest import load_manifest, run_python

TESTS = os.path.dirname(os.path.abspath(__file__))


def tool(tmp_path, body):
    p = tmp_path / "nvdisasm"
    p.write_text("#!/bin/sh\n" + body)
    p.chmod(p.stat().st_mode | stat.S_IXUSR)
    return str(p)


GOOD = 'echo "k:"; echo "        /*0000*/   EXIT ;"; echo "// of $2"\n'


def test_capture_and_recompile_write_a_sass_stage(tmp_path):
    env = {"KSNAP_NO_SASS": "0", "KSNAP_SASS_TOOL": tool(tmp_path, GOOD)}
    cap = tmp_path / "cap"
    r = run_python(["-m", "ksnap_triton", "capture", "-o", str(cap), "--",
                    os.path.join(TESTS, "recompile_script.py")], env_extra=env, cwd=TESTS)
    assert r.returncode == 0, r.stderr
    for e in load_manifest(cap)["entries"]:
        text = open(os.path.join(cap, e["stages"]["sass"])).read()
        assert text.startswith("k:\n") and text.rstrip().endswith(e["kernel"] + ".cubin")
    out = tmp_path / "out"
    r = run_python(["-m", "ksnap_triton", "recompile", str(cap), "-o", str(out), "--jobs", "2"],
                   env_extra=env, cwd=TESTS)
    assert r.returncode == 0, r.stderr
    assert all("sass" in e["stages"] for e in load_manifest(out)["entries"])
    r = run_python(["-m", "ksnap_triton", "recompile", str(cap), "-o", str(tmp_path / "n"),
                    "--no-sass"], env_extra=env, cwd=TESTS)
    assert all("sass" not in e["stages"] for e in load_manifest(tmp_path / "n")["entries"])


def test_a_failing_disassembler_costs_only_the_stage(tmp_path):
    good = {"KSNAP_NO_SASS": "1"}
    cap = tmp_path / "cap"
    r = run_python(["-m", "ksnap_triton", "capture", "-o", str(cap), "--",
                    os.path.join(TESTS, "recompile_script.py")], env_extra=good, cwd=TESTS)
    assert r.returncode == 0, r.stderr
    bad = {"KSNAP_NO_SASS": "0", "KSNAP_SASS_TOOL": tool(tmp_path, 'echo "bad cubin" >&2; exit 1\n')}
    out = tmp_path / "out"
    r = run_python(["-m", "ksnap_triton", "recompile", str(cap), "-o", str(out), "--jobs", "2"],
                   env_extra=bad, cwd=TESTS)
    assert r.returncode == 0, r.stderr
    report = json.load(open(out / "recompile.json"))
    assert report["rebuilt"] == 6 and len(report["warnings"]) == 6
    assert "nvdisasm failed" in report["warnings"][0] and "bad cubin" in report["warnings"][0]
    assert all("sass" not in e["stages"] for e in load_manifest(out)["entries"])

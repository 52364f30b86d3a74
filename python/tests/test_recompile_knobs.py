"""A recompile honours the recompiling compiler (issue 17, item 1).

Only what the captured program chose travels with a variant: the options of
its JIT key and options it set beyond the capturing process's defaults. A
default of the capture machine (here TRITON_DEFAULT_FP_FUSION, which the
stand-in backend reads like Triton's knobs.language.default_fp_fusion) never
overrides the recompiling process's own: a recompile under a knob builds what
a launched capture under the same knob built (the stand-in's cache folder is
a hash of every compile input, so equal folders mean equal compiles)."""

import json
import os

import pytest

from conftest import load_manifest, run_python

TESTS = os.path.dirname(os.path.abspath(__file__))
FUSION_OFF = {"TRITON_DEFAULT_FP_FUSION": "0"}


def capture(out, env=None):
    r = run_python(["-m", "ksnap_triton", "capture", "-o", str(out), "--",
                    os.path.join(TESTS, "knob_script.py")], env_extra=env, cwd=TESTS)
    assert r.returncode == 0, r.stderr
    return out


def recompile(cap, out, env=None):
    r = run_python(["-m", "ksnap_triton", "recompile", str(cap), "-o", str(out)],
                   env_extra=env, cwd=TESTS)
    assert r.returncode == 0, r.stderr
    return out


def fusion_by_block(cap):
    """BLOCK -> (the fp_fusion its PTX was built with, its cache folder)."""
    out = {}
    for e in load_manifest(cap)["entries"]:
        with open(os.path.join(cap, e["stages"]["ptx"])) as f:
            text = f.read()
        out[e["constexprs"]["BLOCK"]] = (text.split("fp_fusion=")[1].split()[0], e["cache_dir"])
    return out


@pytest.fixture(scope="module")
def captures(tmp_path_factory):
    root = tmp_path_factory.mktemp("knobs")
    return {"default": capture(root / "default"), "off": capture(root / "off", FUSION_OFF),
            "root": root}


def test_capture_records_the_defaults_it_compiled_under(captures):
    for name, want in (("default", True), ("off", False)):
        for e in load_manifest(captures[name])["entries"]:
            rec = e["recompile"]
            chose = e["constexprs"]["BLOCK"] == 32  # enable_fp_fusion=False at launch
            # The defaults are the backend's reading of the key's options.
            assert rec["option_defaults"]["enable_fp_fusion"] is (want and not chose), name
            assert rec["option_defaults"]["num_warps"] == 4
            assert rec["options"]["enable_fp_fusion"] is (want and not chose), name


@pytest.mark.parametrize("cap,env,launched", [
    ("default", FUSION_OFF, "off"),   # the knob on the recompiling side is honoured
    ("off", None, "default"),         # the capture machine's knob does not travel
    ("default", None, "default"),     # nothing changed: the same compiles
    ("off", FUSION_OFF, "off"),
])
def test_recompile_under_a_knob_builds_what_a_launch_under_it_built(captures, cap, env, launched):
    out = recompile(captures[cap], captures["root"] / f"rc-{cap}-{bool(env)}", env)
    got, want = fusion_by_block(out), fusion_by_block(captures[launched])
    assert got == want
    # The variant that chose its fusion at launch keeps it everywhere.
    assert got[32][0] == "False"
    assert got[16][0] == ("False" if env else "True")


def test_a_capture_without_recorded_defaults_passes_only_its_key(captures, tmp_path):
    """Captures made before option_defaults was recorded: the JIT key's options
    only, never the capture machine's values, and the recompile says so."""
    import shutil

    old = tmp_path / "old"
    shutil.copytree(captures["off"], old)
    m = load_manifest(old)
    for e in m["entries"]:
        del e["recompile"]["option_defaults"]
    with open(old / "manifest.json", "w") as f:
        json.dump(m, f)
    out = recompile(old, tmp_path / "rc")
    assert fusion_by_block(out) == fusion_by_block(captures["default"])
    report = json.load(open(out / "recompile.json"))
    assert any("option_defaults" in w for w in report.get("notes", [])), report.get("notes")

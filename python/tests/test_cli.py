import json
import os
import sys

import pytest

from conftest import FAKE_TRITON, load_manifest, run_python
from ksnap_triton import cli, session

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.mark.parametrize("argv,message", [
    (["capture", "-o", "x"], "no program given"),
    (["capture", "-o", "x", "--"], "no program given"),
    (["capture", "--", "a.py"], "required: -o"),
    (["capture", "-o", "x", "--arch", "volta", "--", "a.py"], "unknown architecture"),
    (["merge"], "required: output"),
    (["frobnicate"], "invalid choice"),
])
def test_usage_errors_exit_2(argv, message, capsys):
    with pytest.raises(SystemExit) as e:
        cli.parse_args(argv)
    assert e.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("arch,expected", [
    ("sm_80", "sm80"), ("sm80", "sm80"), ("80", "sm80"), ("SM_90a", "sm90a"),
    ("sm_100f", "sm100f"), ("gfx942", "gfx942"),
])
def test_arch_is_normalised_and_implies_no_launch(arch, expected):
    args = cli.parse_args(["capture", "-o", "x", "--arch", arch, "--", "b.py"])
    assert args.arch == expected and args.no_launch is True


def test_program_after_double_dash_keeps_its_own_flags():
    args = cli.parse_args(["capture", "-o", "x", "--", "b.py", "-o", "--no-launch"])
    assert args.program == ["b.py", "-o", "--no-launch"] and args.no_launch is False


@pytest.mark.parametrize("program,kind,target,argv", [
    (["b.py", "--n", "3"], "script", "b.py", ["b.py", "--n", "3"]),
    (["-m", "pytest", "-x"], "module", "pytest", ["pytest", "-x"]),
    (["-c", "print(1)", "x"], "code", "print(1)", ["-c", "x"]),
    (["python3", "b.py"], "exec", None, ["python3", "b.py"]),
    (["./run.sh"], "exec", None, ["./run.sh"]),
])
def test_split_program(program, kind, target, argv):
    assert cli.split_program(program) == (kind, target, argv)


def test_capture_environment(tmp_path):
    script = tmp_path / "b.py"
    script.write_text("")
    args = cli.parse_args(["capture", "-o", str(tmp_path / "out"), "--arch", "sm_80", "--",
                           "python3", str(script), "7"])
    env = cli.capture_environment(args, base={"PYTHONPATH": "/keep", "KSNAP_CAPTURE_NO_TRACK": "1"})
    paths = env["PYTHONPATH"].split(os.pathsep)
    assert paths[0].endswith(os.path.join("ksnap_triton", "_bootstrap"))
    assert os.path.isdir(os.path.join(paths[1], "ksnap_triton")) and paths[2] == "/keep"
    assert env[session.ENV_DIR] == str(tmp_path / "out")
    assert env["TRITON_CACHE_DIR"] == str(tmp_path / "out" / "cache")
    assert json.loads(env[session.ENV_ARGV]) == ["python3", str(script), "7"]
    assert env[session.ENV_SCRIPT] == str(script)
    assert env[session.ENV_NO_LAUNCH] == "1" and env[session.ENV_ARCH] == "sm80"
    assert env["TRITON_OVERRIDE_ARCH"] == "sm80"
    assert session.ENV_NO_TRACK not in env  # not asked for this time


def sweep_points(m):
    """{(M, N, BLOCK)} covered by the captured autotuned kernel."""
    got = set()
    for e in m["entries"]:
        if e["kernel"] == "mm_kernel":
            for p in e["benchmark"]["points"]:
                got.add((p["M"], p["N"], e["constexprs"]["BLOCK"]))
    return got


EXPECTED_SWEEP = {(m, n, b) for (m, n) in [(64, 64), (128, 256), (96, 100), (512, 512)]
                  for b in (32, 64, 128)}


@pytest.mark.parametrize("mode", ["in-process", "child-process"])
def test_capture_sweep_records_every_shape_config_pair(tmp_path, mode):
    out = str(tmp_path / "cap")
    script = os.path.join(HERE, "sweep_script.py")
    program = [script, "3"] if mode == "in-process" else [sys.executable, script, "3"]
    r = run_python(["-m", "ksnap_triton", "capture", "-o", out, "--build", "pr", "--"] + program,
                   cwd=HERE)
    assert r.returncode == 3, r.stderr  # the program's own exit status
    assert "argv=['3']" in r.stdout
    m = load_manifest(out)
    assert m["format"] == "ksnap-capture" and m["build"] == "pr"
    assert m["triton_version"] == "3.6.0-fake" and m["arch"] == "sm90"
    assert m["source_path"] == script
    assert sweep_points(m) == EXPECTED_SWEEP
    # 3 configs x 2 specialization classes + the plain kernel
    assert len(m["entries"]) == 7
    assert all(e["launched"] and e["n_regs"] for e in m["entries"])
    assert all(e["benchmark"]["script"] == script for e in m["entries"])
    mm = [e for e in m["entries"] if e["kernel"] == "mm_kernel"]
    assert all({"provider": "triton"}.items() <= p.items() for e in mm
               for p in e["benchmark"]["points"])
    assert "7 variants of 2 kernels (7 launched)" in r.stderr


def test_no_launch_records_everything_and_runs_nothing(tmp_path):
    out = str(tmp_path / "cap")
    r = run_python(["-m", "ksnap_triton", "capture", "-o", out, "--no-launch", "--",
                    os.path.join(HERE, "sweep_script.py")], cwd=HERE)
    assert r.returncode == 0, r.stderr
    assert "launches=0" in r.stdout
    assert "results the program computed or checked are wrong" in r.stderr
    m = load_manifest(out)
    assert sweep_points(m) == EXPECTED_SWEEP
    assert not any(e["launched"] for e in m["entries"])
    # the device's own arch: binaries were still loaded, so registers are known
    assert all(isinstance(e["n_regs"], int) for e in m["entries"])
    assert m["capture"] == {"launch": False, "arch_override": None}


def test_arch_override_compiles_for_the_other_target(tmp_path):
    out = str(tmp_path / "cap")
    r = run_python(["-m", "ksnap_triton", "capture", "-o", out, "--arch", "sm_80", "--",
                    os.path.join(HERE, "sweep_script.py")], cwd=HERE)
    assert r.returncode == 0, r.stderr
    m = load_manifest(out)
    assert m["arch"] == "sm80" and len(m["entries"]) == 7
    assert all(e["n_regs"] is None and not e["launched"] for e in m["entries"])
    ptx = open(os.path.join(out, m["entries"][0]["stages"]["ptx"])).read()
    assert "arch=sm80" in ptx


def test_child_processes_write_shards_into_one_capture(tmp_path):
    out = str(tmp_path / "cap")
    r = run_python(["-m", "ksnap_triton", "capture", "-o", out, "--",
                    sys.executable, os.path.join(HERE, "spawn_workers.py"), "4"], cwd=HERE)
    assert r.returncode == 0, r.stderr
    m = load_manifest(out)
    blocks = sorted(e["constexprs"]["BLOCK"] for e in m["entries"])
    assert blocks == [16, 32, 64, 128, 1024]
    [common] = [e for e in m["entries"] if e["constexprs"]["BLOCK"] == 1024]
    assert len(common["shards"]) == 4
    # the launcher process itself never imported Triton: 4 shards, not 5
    assert len(os.listdir(os.path.join(out, "manifest.d"))) == 4


def test_merge_command_joins_two_captures(tmp_path):
    a, b, out = (str(tmp_path / n) for n in ("a", "b", "out"))
    for cap, block in ((a, "16"), (b, "32")):
        r = run_python(["-m", "ksnap_triton", "capture", "-o", cap, "--", "-c",
                        f"import kernels_for_tests as k; k.add_kernel[(1,)](0, 0, 64, BLOCK={block})"],
                       cwd=HERE)
        assert r.returncode == 0, r.stderr
    r = run_python(["-m", "ksnap_triton", "merge", out, a, b, "--build", "all"], cwd=HERE)
    assert r.returncode == 0, r.stderr
    m = load_manifest(out)
    assert m["build"] == "all"
    assert sorted(e["constexprs"]["BLOCK"] for e in m["entries"]) == [16, 32]
    r = run_python(["-m", "ksnap_triton", "merge", out, str(tmp_path / "nothing")], cwd=HERE)
    assert r.returncode == 2 and "not a capture folder" in r.stderr


def test_missing_program_is_a_usage_error(tmp_path):
    r = run_python(["-m", "ksnap_triton", "capture", "-o", str(tmp_path / "c"), "--",
                    str(tmp_path / "no-such-program")])
    assert r.returncode == 2 and "cannot run" in r.stderr


def test_capture_without_triton_says_so(tmp_path):
    env = {"PYTHONPATH": os.path.dirname(HERE)}  # no stand-in on the path
    probe = run_python(["-c", "import triton"], env_extra=env)
    if probe.returncode == 0:
        pytest.skip("a real Triton is installed here")
    r = run_python(["-m", "ksnap_triton", "capture", "-o", str(tmp_path / "c"), "--",
                    os.path.join(HERE, "sweep_script.py")], env_extra=env)
    assert r.returncode == 2 and "cannot import triton" in r.stderr
    assert FAKE_TRITON not in r.stderr

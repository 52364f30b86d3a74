"""ksnap_triton recompile: planning, sharding, the worker pool and its error
paths, end to end against the Triton stand-in (fake_triton/), whose compile
hashes the recorded source, signature, constexprs, attrs and options: a
variant rebuilt from its record lands in the same cache folder with the same
files only if every piece was recorded and rebuilt exactly."""

import io
import json
import os
import shutil

import pytest

from conftest import FAKE_TRITON, PYTHON_DIR, load_manifest, run_python
from ksnap_triton import recompile as rc

TESTS = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="module")
def captured(tmp_path_factory):
    """One capture of recompile_script.py (6 variants of 3 kernels)."""
    root = tmp_path_factory.mktemp("rc")
    cap = root / "cap"
    r = run_python(["-m", "ksnap_triton", "capture", "-o", str(cap), "--",
                    os.path.join(TESTS, "recompile_script.py")], cwd=TESTS)
    assert r.returncode == 0, r.stderr
    return cap


def recompile(cap, out, *args, env=None, timeout=120):
    return run_python(["-m", "ksnap_triton", "recompile", str(cap), "-o", str(out)] + list(args),
                      env_extra=env, cwd=TESTS, timeout=timeout)


def by_identity(m):
    return {(e["kernel"], e["key"]): e for e in m["entries"]}


def test_capture_records_how_to_recompile(captured):
    m = load_manifest(captured)
    assert len(m["entries"]) == 6
    for e in m["entries"]:
        rec = e["recompile"]
        assert rec["version"] == 1
        assert os.path.isfile(os.path.join(captured, rec["source"]))
        assert rec["source"].startswith(f"cache/{e['cache_dir']}/__ksnap_source__")
        assert rec["target"] == {"backend": "cuda", "arch": 90, "warp_size": 32}
        assert rec["options"]["num_warps"] == e["options"].get("num_warps", 4)
    e = next(e for e in m["entries"] if e["kernel"] == "scaled" and e["options"])
    assert e["recompile"]["signature"] == [["x", "*fp32"], ["n", "i32"], ["BLOCK", "constexpr"]]
    assert e["recompile"]["constexprs"] == [[[2], 32]]
    assert e["recompile"]["attrs"] == [[[0], "D"], [[1], ""]]  # 100 is not divisible by 16
    assert e["recompile"]["attrs_parsed"] == [[[0], [["tt.divisibility", 16]]], [[1], []]]
    doc = json.load(open(os.path.join(captured, e["recompile"]["source"])))
    g = doc["functions"]["recompile_kernels.scaled"]["globals"]
    assert g["helper"] == {"jit": "recompile_kernels.helper"}
    assert g["math"] == {"module": "math"}
    assert g["helpers"] == {"namespace": {"OFFSET": 3}, "name": "recompile_helpers"}
    assert g["DT"] == {"dtype": "fp16"} and g["EPS"] == 1e-5
    assert g["NAN"] == {"float": "nan"} and g["PAIR"] == {"tuple": [1, "two"]}
    assert doc["functions"]["recompile_kernels.scaled"]["jit"]["noinline"] is True
    assert doc["functions"]["recompile_kernels.helper"]["globals"]["SCALE"] == {"constexpr": 2}
    assert "problems" not in doc


def test_same_target_rebuilds_identical_variants(captured, tmp_path):
    out = tmp_path / "out"
    r = recompile(captured, out, "--jobs", "2")
    assert r.returncode == 0, r.stderr
    assert "recompiled 6/6 variants for cuda:90" in r.stderr
    a, b = by_identity(load_manifest(captured)), by_identity(load_manifest(out))
    assert a.keys() == b.keys()
    for ident, e in a.items():
        n = b[ident]
        # Same hash of source + specialization + options: same folder and files.
        assert n["cache_dir"] == e["cache_dir"], ident
        for stage, rel in e["stages"].items():
            assert open(os.path.join(out, n["stages"][stage]), "rb").read() == \
                open(os.path.join(captured, rel), "rb").read()
        for f in ("kernel", "qualname", "constexprs", "options", "signature", "source_file",
                  "source_line"):
            assert n[f] == e[f]
        assert n["benchmark"]["points"] == e["benchmark"]["points"]
        assert n["launched"] is False and n["compile_s"] is not None
        assert os.path.isfile(os.path.join(out, n["recompile"]["source"]))
    report = json.load(open(out / "recompile.json"))
    assert report["rebuilt"] == 6 and report["failed"] == [] and report["jobs"] == 2
    assert report["cpu_s"] >= 0 and report["variants_per_s"] > 0
    # A recompiled capture is itself recompilable.
    r2 = recompile(out, tmp_path / "again", "--jobs", "1")
    assert r2.returncode == 0, r2.stderr
    assert {e["cache_dir"] for e in load_manifest(tmp_path / "again")["entries"]} == \
        {e["cache_dir"] for e in load_manifest(captured)["entries"]}


def test_closure_kernel_keeps_its_qualname_and_captured_value(captured, tmp_path):
    m = load_manifest(captured)
    e = next(e for e in m["entries"] if e["kernel"] == "closure_kernel")
    doc = json.load(open(os.path.join(captured, e["recompile"]["source"])))
    fn = doc["functions"][doc["root"]]
    assert fn["qualname"] == "make_closure_kernel.<locals>.closure_kernel"
    assert fn["globals"]["k"] == 5


@pytest.mark.parametrize("target,arch,asm,binary", [
    ("cuda:80", "sm80", "ptx", "cubin"),
    ("sm_80", "sm80", "ptx", "cubin"),
    ("hip:gfx942", "gfx942", "amdgcn", "hsaco"),
])
def test_cross_target(captured, tmp_path, target, arch, asm, binary):
    out = tmp_path / "x"
    r = recompile(captured, out, "--target", target, "--jobs", "2")
    assert r.returncode == 0, r.stderr
    m = load_manifest(out)
    assert len(m["entries"]) == 6
    for e in m["entries"]:
        assert e["arch"] == arch
        assert set(e["stages"]) >= {"ttir", "ttgir", "llir", asm, binary}
        text = open(os.path.join(out, e["stages"]["ttgir"])).read()
        assert f"arch={arch}" in text
    assert m["capture"]["recompiled"]["target"] == parse_name(target)


def parse_name(t):
    d = rc.parse_target(t)
    return f"{d['backend']}:{d['arch']}"


def test_shards_partition_the_variants_and_merge_back(captured, tmp_path):
    outs = []
    for i in (1, 2, 3):
        out = tmp_path / f"s{i}"
        r = recompile(captured, out, "--shard", f"{i}/3", "--jobs", "1")
        assert r.returncode == 0, r.stderr
        outs.append(out)
    sets = [set(by_identity(load_manifest(o))) for o in outs]
    assert all(sets)  # every runner got work (6 variants, 3 shards)
    assert sum(map(len, sets)) == 6 and set().union(*sets) == set(by_identity(load_manifest(captured)))
    merged = tmp_path / "merged"
    r = run_python(["-m", "ksnap_triton", "merge", str(merged)] + [str(o) for o in outs])
    assert r.returncode == 0, r.stderr
    assert {e["cache_dir"] for e in load_manifest(merged)["entries"]} == \
        {e["cache_dir"] for e in load_manifest(captured)["entries"]}


def test_compile_error_is_reported_and_the_rest_go_on(captured, tmp_path):
    out = tmp_path / "f"
    r = recompile(captured, out, "--jobs", "2", env={"FAKE_TRITON_FAIL": "other"})
    assert r.returncode == 1, r.stderr
    assert "recompile failed: other" in r.stderr and "unsupported op in other" in r.stderr
    report = json.load(open(out / "recompile.json"))
    assert report["rebuilt"] == 5
    [f] = report["failed"]
    assert f["kernel"] == "other" and f["phase"] == "compile"
    assert f["error"].startswith("CompilationError: at 3:4:")
    assert {e["kernel"] for e in load_manifest(out)["entries"]} == {"scaled", "closure_kernel"}


def test_crashing_worker_fails_only_its_variant(captured, tmp_path):
    out = tmp_path / "c"
    r = recompile(captured, out, "--jobs", "2", env={"FAKE_TRITON_CRASH": "closure_kernel"})
    assert r.returncode == 1, r.stderr
    report = json.load(open(out / "recompile.json"))
    [f] = report["failed"]
    assert f["phase"] == "crash" and "exit status 139" in f["error"]
    assert report["rebuilt"] == 5


def test_timeout_kills_the_worker(captured, tmp_path):
    out = tmp_path / "t"
    r = recompile(captured, out, "--jobs", "1", "--timeout", "1", "--kernel", "other",
                  env={"FAKE_TRITON_SLOW": "other"}, timeout=60)
    assert r.returncode == 1, r.stderr
    [f] = json.load(open(out / "recompile.json"))["failed"]
    assert f["phase"] == "timeout"


def test_no_triton_for_the_workers_is_a_usage_error(captured, tmp_path):
    # A `triton` that cannot be imported shadows any installed one.
    blocker = tmp_path / "blocker" / "triton"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('no Triton on this runner')\n")
    env = {"PYTHONPATH": os.pathsep.join([str(blocker.parent), PYTHON_DIR])}
    r = run_python(["-m", "ksnap_triton", "recompile", str(captured), "-o", str(tmp_path / "n")],
                   env_extra=env)
    assert r.returncode == 2
    assert "cannot use Triton here" in r.stderr


def test_usage_errors(captured, tmp_path):
    for args, msg in ((["--target", "cuda:ninety"], "CUDA arch"),
                      (["--target", "gfx"], "expected e.g. cuda:90"),
                      (["--shard", "4/3"], "--shard"),
                      (["--shard", "x"], "--shard")):
        r = recompile(captured, tmp_path / "u", *args)
        assert r.returncode == 2 and msg in r.stderr, (args, r.stderr)
    r = recompile(tmp_path / "nothing", tmp_path / "u")
    assert r.returncode == 2 and "not a capture folder" in r.stderr
    r = recompile(captured, captured)
    assert r.returncode == 2


def test_unrecordable_global_and_old_entries_are_skipped(tmp_path):
    cap = tmp_path / "cap"
    r = run_python(["-m", "ksnap_triton", "capture", "-o", str(cap), "--",
                    os.path.join(TESTS, "recompile_script.py"), "--table"], cwd=TESTS)
    assert r.returncode == 0, r.stderr
    m = load_manifest(cap)
    t = next(e for e in m["entries"] if e["kernel"] == "reads_table")
    assert t["recompile"]["problems"] == ["recompile_kernels.reads_table: TABLE is builtins.dict"]
    # An entry written before recompile records existed.
    old = next(e for e in m["entries"] if e["kernel"] == "other")
    del old["recompile"]
    json.dump(m, open(cap / "manifest.json", "w"))
    r = recompile(cap, tmp_path / "o", "--jobs", "2")
    assert r.returncode == 1
    report = json.load(open(tmp_path / "o" / "recompile.json"))
    reasons = sorted(s["reason"][:22] for s in report["skipped"])
    assert reasons == ["no recompile record (c", "source not recordable:"]
    assert report["rebuilt"] == 5 and report["failed"] == []


def test_source_path_outside_the_capture_is_refused(captured, tmp_path):
    cap = tmp_path / "evil"
    shutil.copytree(captured, cap)
    m = load_manifest(cap)
    m["entries"][0]["recompile"]["source"] = "../../../../etc/passwd"
    m["entries"][1]["recompile"]["source"] = "/etc/passwd"
    json.dump(m, open(cap / "manifest.json", "w"))
    r = recompile(cap, tmp_path / "o", "--jobs", "1")
    assert r.returncode == 1
    failed = json.load(open(tmp_path / "o" / "recompile.json"))["failed"]
    errors = sorted(f["error"] for f in failed)
    assert errors[0].startswith("bad path '/etc/passwd' in the recompile record")
    assert errors[1].startswith("path '../../../../etc/passwd' leaves the capture folder")


# ---- planning (in process, no workers) -------------------------------------

def entry(kernel, key, cost):
    return {"kernel": kernel, "key": key, "cache_dir": key, "compile_s": cost,
            "constexprs": {}, "options": {}, "recompile": {"source": "cache/x/s.json"}}


def test_plan_is_longest_first_and_shards_balance_by_cost():
    entries = [entry("k", f"v{i}", c) for i, c in enumerate([5.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.5])]
    whole = rc.plan(entries)
    assert [t.cost for t in whole.tasks] == [5.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.5]
    shards = [rc.plan(entries, (i, 2)) for i in (1, 2)]
    costs = [sum(t.cost for t in s.tasks) for s in shards]
    assert costs == [5.5, 5.0]  # the 5 s variant (+0.5) balances five 1 s ones
    keys = [sorted(t.entry["key"] for t in s.tasks) for s in shards]
    assert sorted(keys[0] + keys[1]) == sorted(e["key"] for e in entries)
    # Deterministic whatever the manifest order.
    again = rc.plan(list(reversed(entries)), (1, 2))
    assert sorted(t.entry["key"] for t in again.tasks) == keys[0]


def test_plan_skips_and_filters():
    entries = [entry("a", "1", 1), entry("b", "2", 1), {"kernel": "c", "key": "3", "cache_dir": "3"}]
    p = rc.plan(entries, kernels=["a", "c"])
    assert [t.entry["kernel"] for t in p.tasks] == ["a"]
    assert [s["kernel"] for s in p.skipped] == ["c"] and p.total == 2


@pytest.mark.parametrize("text,want", [
    ("cuda:90", {"backend": "cuda", "arch": 90, "warp_size": 32}),
    ("cuda:sm_80", {"backend": "cuda", "arch": 80, "warp_size": 32}),
    ("sm90a", {"backend": "cuda", "arch": 90, "warp_size": 32}),
    ("hip:gfx942", {"backend": "hip", "arch": "gfx942", "warp_size": 64}),
    ("gfx90a", {"backend": "hip", "arch": "gfx90a", "warp_size": 64}),
    ("hip:gfx1100:32", {"backend": "hip", "arch": "gfx1100", "warp_size": 32}),
])
def test_parse_target(text, want):
    assert rc.parse_target(text) == want


def test_default_target_follows_arch_override_and_refuses_mixtures():
    e = entry("k", "1", 1)
    e["recompile"].update(target={"backend": "cuda", "arch": 90, "warp_size": 32},
                          options={"arch": "sm80"})
    assert rc.default_target([e]) == {"backend": "cuda", "arch": 80, "warp_size": 32}
    f = entry("k", "2", 1)
    f["recompile"]["target"] = {"backend": "hip", "arch": "gfx942", "warp_size": 64}
    with pytest.raises(rc.RecompileError, match="mixes targets"):
        rc.default_target([e, f])


def test_progress_on_a_terminal_and_summary_otherwise():
    s = io.StringIO()
    p = rc.Progress(2, s, tty=True)
    p.update(True)
    p.update(False)
    p.finish()
    assert "recompile: 2/2 variants" in s.getvalue() and "1 failed" in s.getvalue()
    s2 = io.StringIO()
    q = rc.Progress(2, s2, tty=False)
    q.update(True)
    assert s2.getvalue() == ""


def test_plan_options_carries_only_what_the_program_chose():
    from ksnap_triton.recompile_worker import plan_options

    # Captured with TRITON_DEFAULT_FP_FUSION=0 (a default of that machine) and
    # a hook that set default_dot_input_precision (a choice of the program).
    defaults = {"num_warps": 8, "enable_fp_fusion": False, "arch": "sm90", "ptx_version": None,
                "supported_fp8_dtypes": ["fp8e5"], "default_dot_input_precision": "tf32"}
    full = {"num_warps": 8, "enable_fp_fusion": False, "arch": "sm90", "ptx_version": None,
            "supported_fp8_dtypes": ["fp8e5", "fp8e4nv"], "default_dot_input_precision": "ieee"}
    fields = {"num_warps", "enable_fp_fusion", "arch", "ptx_version", "supported_fp8_dtypes",
              "default_dot_input_precision"}
    same = plan_options({"num_warps": 8}, full, defaults, fields)
    assert same == {"num_warps": 8, "default_dot_input_precision": "ieee"}
    other = plan_options({"num_warps": 8}, full, defaults, fields, same_backend=False)
    assert other == {"num_warps": 8}
    # No recorded defaults (an older capture): the key's options only.
    assert plan_options({"num_warps": 8}, full, None, fields) == {"num_warps": 8}
    # An option the destination backend does not have is never passed.
    assert plan_options({"num_warps": 8}, full, defaults, {"num_warps"}) == {"num_warps": 8}


def test_fake_triton_is_importable_only_through_the_fixture():
    assert os.path.isdir(FAKE_TRITON)

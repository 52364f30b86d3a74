import json
import os

import pytest

from conftest import load_manifest
from ksnap_triton import merge
from ksnap_triton.shard import ShardWriter


def make_capture(root, variants, pid_tag="1", build=None):
    """A capture folder with one shard and cache folders for `variants`
    (list of (kernel, cache_dir, ttir text))."""
    w = ShardWriter(root, header={"triton_version": "3.6.0", "capture": {"launch": True}})
    for kernel, cache_dir, text in variants:
        d = os.path.join(root, "cache", cache_dir)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"{kernel}.ttir"), "w") as f:
            f.write(text)
        w.put({"kernel": kernel, "key": f"[]{{'t': '{cache_dir}'}}", "cache_dir": cache_dir,
               "constexprs": {}, "options": {}, "launched": False,
               "stages": {"ttir": f"cache/{cache_dir}/{kernel}.ttir"}, "arch": "sm90"})
    w.write()
    return root


def test_merge_joins_shard_captures_and_copies_their_caches(tmp_path):
    a = make_capture(str(tmp_path / "a"), [("k", "H1", "a\n"), ("k", "H2", "b\n")])
    b = make_capture(str(tmp_path / "b"), [("k", "H2", "b\n"), ("m", "H3", "c\n")])
    out = str(tmp_path / "out")
    m, warnings = merge.merge_captures(out, [a, b], build="pr")
    assert warnings == []
    assert [e["cache_dir"] for e in m["entries"]] == ["H1", "H2", "H3"]
    assert m["build"] == "pr"
    for e in m["entries"]:
        assert os.path.isfile(os.path.join(out, e["stages"]["ttir"]))
    assert load_manifest(out) == m


def test_merge_result_is_independent_of_shard_order_and_idempotent(tmp_path):
    a = make_capture(str(tmp_path / "a"), [("k", "H1", "a\n")])
    b = make_capture(str(tmp_path / "b"), [("k", "H2", "b\n"), ("k", "H1", "a\n")])
    m1, _ = merge.merge_captures(str(tmp_path / "o1"), [a, b], build="x")
    m2, _ = merge.merge_captures(str(tmp_path / "o2"), [b, a], build="x")
    assert json.dumps(m1["entries"]) == json.dumps(m2["entries"])
    m3, _ = merge.merge_captures(str(tmp_path / "o1"), [b, a], build="x")
    assert json.dumps(m3) == json.dumps(m1)


def test_merge_default_build_name_is_folder_then_kept(tmp_path):
    out = make_capture(str(tmp_path / "nightly"), [("k", "H1", "a\n")])
    m, _ = merge.merge_captures(out)
    assert m["build"] == "nightly"
    m, _ = merge.merge_captures(out, build="renamed")
    assert m["build"] == "renamed"
    m, _ = merge.merge_captures(out)
    assert m["build"] == "renamed"


def test_conflicting_cache_file_is_reported_and_first_kept(tmp_path):
    a = make_capture(str(tmp_path / "a"), [("k", "H1", "one\n")])
    b = make_capture(str(tmp_path / "b"), [("k", "H1", "two\n")])
    out = str(tmp_path / "out")
    merge.merge_captures(out, [a])
    _, warnings = merge.merge_captures(out, [b])
    assert len(warnings) == 1 and "differs" in warnings[0]
    assert open(os.path.join(out, "cache", "H1", "k.ttir")).read() == "one\n"


def test_entry_without_cache_folder_is_dropped_with_warning(tmp_path):
    a = make_capture(str(tmp_path / "a"), [("k", "H1", "x\n")])
    w = ShardWriter(a)
    w.path = os.path.join(a, "manifest.d", "other-9.json")
    w.put({"kernel": "ghost", "key": "", "cache_dir": "MISSING"})
    w.write()
    m, warnings = merge.merge_captures(a)
    assert [e["kernel"] for e in m["entries"]] == ["k"]
    assert any("ghost" in w and "MISSING" in w for w in warnings)


def test_not_a_capture_folder(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(merge.MergeError, match="not a capture folder"):
        merge.merge_captures(str(tmp_path / "out"), [str(tmp_path / "empty")])


def test_bad_shard_file_fails_the_merge_naming_it(tmp_path):
    a = make_capture(str(tmp_path / "a"), [("k", "H1", "x\n")])
    bad = os.path.join(a, "manifest.d", "h-2.json")
    with open(bad, "w") as f:
        f.write('{"entries": [\n}')
    with pytest.raises(merge.MergeError, match=r"h-2.json:2"):
        merge.merge_captures(a)

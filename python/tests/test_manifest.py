import itertools
import json
import os

import pytest

from conftest import CORPUS
from ksnap_triton import manifest


def entry(kernel="k", key="[('i32', 'D')]{'num_warps': 4}", cache_dir="H1", **kw):
    e = {"kernel": kernel, "key": key, "constexprs": {"B": 64}, "options": {"num_warps": 4},
         "cache_dir": cache_dir, "launched": False, "compile_s": 1.0, "n_regs": None,
         "benchmark": {"script": "b.py", "argv": ["b.py"], "points": []}}
    e.update(kw)
    return e


def test_join_deduplicates_one_variant_seen_by_two_processes():
    a = entry(shard={"host": "h", "pid": 1}, compile_s=0.9,
              benchmark={"script": "b.py", "argv": ["b.py"], "points": [{"M": 16}]})
    b = entry(shard={"host": "h", "pid": 2}, launched=True, n_regs=96, compile_s=0.1,
              benchmark={"script": "b.py", "argv": ["b.py"], "points": [{"M": 32}, {"M": 16}]})
    [j] = manifest.join_entries([a, b])
    assert j["launched"] is True
    assert j["n_regs"] == 96
    assert j["compile_s"] == 0.1
    assert j["benchmark"]["points"] == [{"M": 16}, {"M": 32}]
    assert j["shards"] == [{"host": "h", "pid": 1}, {"host": "h", "pid": 2}]
    assert "shard" not in j


def test_join_keeps_variants_that_differ_in_key_or_cache_dir():
    es = [entry(), entry(key="[('i32', None)]{'num_warps': 4}"), entry(cache_dir="H2"),
          entry(kernel="other")]
    assert len(manifest.join_entries(es)) == 4


def test_join_keeps_two_scripts_that_define_the_same_main_kernel():
    # Same code in two scripts: same key and cache folder, two kernels.
    a = entry(qualname="__main__.k", source_file="/w/bench/a.py")
    b = entry(qualname="__main__.k", source_file="/w/bench/b.py")
    joined = manifest.join_entries([b, a, dict(a)])
    assert [e["source_file"] for e in joined] == ["/w/bench/a.py", "/w/bench/b.py"]


def test_join_is_independent_of_input_order():
    es = [entry(cache_dir="H2", compile_s=0.3), entry(compile_s=0.2, launched=True),
          entry(compile_s=0.5, benchmark={"points": [{"x": 1}], "argv": ["z"]}),
          entry(kernel="a", constexprs={"B": 16}), entry(kernel="a", constexprs={"B": 128},
                                                         cache_dir="H9")]
    results = {json.dumps(manifest.join_entries(list(p))) for p in itertools.permutations(es)}
    assert len(results) == 1


def test_sorted_by_kernel_then_constexprs_then_options():
    es = [entry(kernel="b"), entry(kernel="a", constexprs={"B": 32}, cache_dir="X"),
          entry(kernel="a", constexprs={"B": 128}, cache_dir="Y")]
    order = [(e["kernel"], e["constexprs"]["B"]) for e in manifest.join_entries(es)]
    assert order == sorted(order, key=lambda t: (t[0], json.dumps({"B": t[1]})))


def write(tmp_path, text, name="manifest.json"):
    p = tmp_path / name
    p.write_bytes(text if isinstance(text, bytes) else text.encode())
    return str(p)


@pytest.mark.parametrize("text,message", [
    ('{\n "entries": [\n  {"kernel": "k",}\n ]\n}', r"manifest.json:3:\d+: invalid JSON"),
    ('[1, 2]', "not a JSON object"),
    ('{"format": "other", "entries": []}', r":1: format is 'other'"),
    ('{\n"format": "ksnap-capture",\n"format_version": 7,\n"entries": []}', r":3: format_version 7"),
    ('{"entries": {}}', "is not a list"),
    ('{"entries": [{"key": "x"}]}', "entry 0 is not an object with a string"),
    (b'{"entries": [\x00]}', "binary data"),
    (b'{"entries": []}\n\xff\xfe', r":2: not UTF-8"),
])
def test_read_manifest_errors_name_file_and_line(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(manifest.ManifestError, match=message) as e:
        manifest.read_manifest(path)
    assert str(e.value).startswith(path)


def test_read_missing_file_names_it(tmp_path):
    with pytest.raises(manifest.ManifestError, match="cannot read"):
        manifest.read_manifest(str(tmp_path / "nope.json"))


def test_old_corpus_manifest_without_format_loads():
    path = os.path.join(CORPUS, "base", "manifest.json")
    if not os.path.exists(path):
        pytest.skip("shared corpus not present")
    data = manifest.read_manifest(path)
    assert "format" not in data
    assert len(data["entries"]) == len(json.load(open(path))["entries"]) > 0
    # joining the corpus's entries loses none: they are all distinct variants
    assert len(manifest.join_entries(data["entries"])) == len(data["entries"])


def test_write_json_atomic_replaces_and_leaves_no_temp(tmp_path):
    p = str(tmp_path / "sub" / "m.json")
    manifest.write_json_atomic(p, {"a": 1})
    manifest.write_json_atomic(p, {"a": 2})
    assert json.load(open(p)) == {"a": 2}
    assert os.listdir(tmp_path / "sub") == ["m.json"]


def test_write_json_atomic_keeps_old_file_when_serialising_fails(tmp_path):
    p = str(tmp_path / "m.json")
    manifest.write_json_atomic(p, {"a": 1})
    with pytest.raises(TypeError):
        manifest.write_json_atomic(p, {"a": object()})
    assert json.load(open(p)) == {"a": 1}
    assert os.listdir(tmp_path) == ["m.json"]


def test_make_manifest_fields():
    headers = [{"triton_version": "3.6.0", "capture": {"launch": True, "arch_override": None}},
               {"triton_version": "3.6.0", "capture": {"launch": True, "arch_override": None}}]
    m = manifest.make_manifest("pr", [entry(arch="sm90"), entry(arch="sm90")], headers)
    assert m["format"] == "ksnap-capture" and m["format_version"] == 1
    assert m["build"] == "pr" and m["triton_version"] == "3.6.0" and m["arch"] == "sm90"
    assert m["capture"] == {"launch": True, "arch_override": None}
    assert len(m["entries"]) == 1
    mixed = manifest.make_manifest("x", [entry(arch="sm90"), entry(arch="sm80", cache_dir="Z")], [])
    assert mixed["arch"] == "sm80,sm90"

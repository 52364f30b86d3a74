import glob
import json
import multiprocessing as mp
import os

import pytest

from ksnap_triton import manifest, merge
from ksnap_triton.shard import ShardWriter

N_PROCS = 6
N_ENTRIES = 25


def _make_cache(root, name):
    d = os.path.join(root, "cache", name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "k.ttir"), "w") as f:
        f.write("module {}\n")


def _worker(root, index, start):
    start.wait()
    w = ShardWriter(root, header={"triton_version": "t"})
    for i in range(N_ENTRIES):
        name = f"P{index}E{i}"
        _make_cache(root, name)
        w.put({"kernel": f"k{index}", "key": f"[('constexpr', {i})]{{}}", "cache_dir": name,
               "constexprs": {"I": i}, "options": {}, "launched": False})
        # one variant every process compiles: must appear once after merge
        _make_cache(root, "SHARED")
        w.put({"kernel": "shared", "key": "[]{}", "cache_dir": "SHARED", "constexprs": {},
               "options": {}, "launched": index == 0})
        w.write()


def test_concurrent_processes_lose_no_entries_and_tear_no_files(tmp_path):
    root = str(tmp_path / "cap")
    ctx = mp.get_context("spawn")
    start = ctx.Event()
    procs = [ctx.Process(target=_worker, args=(root, i, start)) for i in range(N_PROCS)]
    for p in procs:
        p.start()
    start.set()
    merges = 0
    while any(p.is_alive() for p in procs):
        # readers run while writers rewrite their shards: every file must parse
        for path in glob.glob(os.path.join(root, "manifest.d", "*.json")):
            manifest.read_manifest(path)
        merge.merge_captures(root)
        merges += 1
    for p in procs:
        p.join()
        assert p.exitcode == 0
    m, warnings = merge.merge_captures(root)
    assert warnings == []
    shards = [p for p in os.listdir(os.path.join(root, "manifest.d")) if p.endswith(".json")]
    assert len(shards) == N_PROCS
    assert not [p for p in os.listdir(os.path.join(root, "manifest.d")) if p.endswith(".tmp")]
    names = sorted(e["cache_dir"] for e in m["entries"])
    expected = sorted([f"P{p}E{i}" for p in range(N_PROCS) for i in range(N_ENTRIES)] + ["SHARED"])
    assert names == expected
    [shared] = [e for e in m["entries"] if e["kernel"] == "shared"]
    assert shared["launched"] is True
    assert len(shared["shards"]) == N_PROCS
    assert merges >= 1


def _fork_child(root, q):
    # the parent's writer object, after fork: must write a shard of its own
    w = _fork_child.writer
    w.put({"kernel": "child", "key": "", "cache_dir": "C"})
    w.write()
    q.put((w.path, [e["kernel"] for e in w.entries()]))


def test_forked_child_writes_its_own_empty_started_shard(tmp_path):
    if "fork" not in mp.get_all_start_methods():
        pytest.skip("this platform has no fork start method")
    root = str(tmp_path)
    w = ShardWriter(root)
    w.put({"kernel": "parent", "key": "", "cache_dir": "P"})
    w.write()
    _fork_child.writer = w
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_fork_child, args=(root, q))
    p.start()
    child_path, child_kernels = q.get(timeout=30)
    p.join()
    assert child_path != w.path
    assert child_kernels == ["child"]
    with open(w.path) as f:
        assert [e["kernel"] for e in json.load(f)["entries"]] == ["parent"]


def test_shard_document_is_sorted_and_stamped(tmp_path):
    w = ShardWriter(str(tmp_path), header={"triton_version": "3.6.0"})
    w.put({"kernel": "b", "key": "", "cache_dir": "B"})
    w.put({"kernel": "a", "key": "", "cache_dir": "A"})
    doc = json.load(open(w.write()))
    assert doc["format"] == manifest.SHARD_FORMAT and doc["format_version"] == 1
    assert doc["triton_version"] == "3.6.0"
    assert [e["kernel"] for e in doc["entries"]] == ["a", "b"]
    assert doc["shard"]["pid"] == os.getpid()
    assert all(e["shard"]["pid"] == os.getpid() for e in doc["entries"])

"""Hostile shard captures (issue 9): ``merge`` writes only inside OUT, never
through a symbolic link, and rejects names and paths that leave a capture."""
import json
import os

import pytest

from ksnap_triton import merge
from test_merge import make_capture


def _outside(tmp_path):
    d = tmp_path / "outside"
    d.mkdir()
    (d / "secret.ttir").write_text("SECRET\n")
    return d


def _rewrite_shard(root, edit):
    shard_dir = os.path.join(root, "manifest.d")
    [name] = os.listdir(shard_dir)
    path = os.path.join(shard_dir, name)
    with open(path) as f:
        doc = json.load(f)
    edit(doc["entries"][0])
    with open(path, "w") as f:
        json.dump(doc, f)


def _files_under(root):
    return sorted(os.path.relpath(os.path.join(d, f), root)
                  for d, _, fs in os.walk(root) for f in fs)


@pytest.mark.parametrize("cache_dir", ["../../escape", "/tmp/escape", "..", "a/b", ""])
def test_cache_dir_that_is_not_one_name_is_rejected(tmp_path, cache_dir):
    a = make_capture(str(tmp_path / "a"), [("k", "H1", "x\n")])
    _rewrite_shard(a, lambda e: e.update(cache_dir=cache_dir))
    before = _files_under(str(tmp_path))
    with pytest.raises(merge.MergeError, match="not one folder name"):
        merge.merge_captures(str(tmp_path / "out"), [a])
    created = set(_files_under(str(tmp_path))) - set(before)
    assert all(p.startswith("out/") for p in created), created


@pytest.mark.parametrize("stage_path", ["../../../../etc/passwd", "/etc/passwd", "cache/../.."])
def test_stage_path_that_leaves_the_capture_is_rejected(tmp_path, stage_path):
    a = make_capture(str(tmp_path / "a"), [("k", "H1", "x\n")])
    _rewrite_shard(a, lambda e: e["stages"].update(ttir=stage_path))
    with pytest.raises(merge.MergeError, match="leaves the capture"):
        merge.merge_captures(str(tmp_path / "out"), [a])


def test_symlinks_in_a_shard_are_not_copied_through(tmp_path):
    outside = _outside(tmp_path)
    a = make_capture(str(tmp_path / "a"), [("k", "H1", "x\n"), ("m", "H2", "y\n")])
    os.symlink(outside / "secret.ttir", os.path.join(a, "cache", "H1", "k.ttgir"))
    os.symlink(outside, os.path.join(a, "cache", "H3"))  # a whole folder
    out = str(tmp_path / "out")
    m, warnings = merge.merge_captures(out, [a])
    assert os.path.isfile(os.path.join(out, "cache", "H1", "k.ttir"))
    assert not os.path.lexists(os.path.join(out, "cache", "H1", "k.ttgir"))
    assert not os.path.lexists(os.path.join(out, "cache", "H3"))
    assert any("k.ttgir is a symbolic link; not copied" in w for w in warnings)
    for d, dirs, files in os.walk(out):
        for n in dirs + files:
            assert not os.path.islink(os.path.join(d, n)), os.path.join(d, n)
            if n in files:
                assert "SECRET" not in open(os.path.join(d, n), errors="replace").read()


def test_links_in_out_are_never_written_through(tmp_path):
    outside = _outside(tmp_path)
    a = make_capture(str(tmp_path / "a"), [("k", "H1", "x\n")])
    # OUT/cache/H1 a link to a folder outside: refused, nothing written there.
    out = tmp_path / "out"
    (out / "cache").mkdir(parents=True)
    os.symlink(outside, out / "cache" / "H1")
    with pytest.raises(merge.MergeError, match="never writes through"):
        merge.merge_captures(str(out), [a])
    assert sorted(os.listdir(outside)) == ["secret.ttir"]
    # OUT/cache itself a link.
    out2 = tmp_path / "out2"
    out2.mkdir()
    os.symlink(outside, out2 / "cache")
    with pytest.raises(merge.MergeError, match="symbolic link"):
        merge.merge_captures(str(out2), [a])
    assert sorted(os.listdir(outside)) == ["secret.ttir"]
    # OUT/.merge.lock a link to a file outside: not truncated.
    out3 = tmp_path / "out3"
    out3.mkdir()
    os.symlink(outside / "secret.ttir", out3 / ".merge.lock")
    with pytest.raises(merge.MergeError, match="symbolic link"):
        merge.merge_captures(str(out3), [a])
    assert (outside / "secret.ttir").read_text() == "SECRET\n"
    # A file in an existing OUT cache folder that is a link: kept, not written through.
    out4 = tmp_path / "out4"
    (out4 / "cache" / "H1").mkdir(parents=True)
    os.symlink(outside / "secret.ttir", out4 / "cache" / "H1" / "k.ttir")
    _, warnings = merge.merge_captures(str(out4), [a])
    assert (outside / "secret.ttir").read_text() == "SECRET\n"
    assert any("not written through" in w for w in warnings)


def test_symlinked_shard_file_is_not_read(tmp_path):
    outside = _outside(tmp_path)
    (outside / "x.json").write_text(json.dumps(
        {"entries": [{"kernel": "leak", "cache_dir": "H9"}]}))
    a = make_capture(str(tmp_path / "a"), [("k", "H1", "x\n")])
    os.symlink(outside / "x.json", os.path.join(a, "manifest.d", "zz-1.json"))
    m, warnings = merge.merge_captures(str(tmp_path / "out"), [a])
    assert [e["kernel"] for e in m["entries"]] == ["k"]
    assert any("zz-1.json is a symbolic link" in w for w in warnings)


def test_deeply_nested_shard_is_a_merge_error(tmp_path):
    a = make_capture(str(tmp_path / "a"), [("k", "H1", "x\n")])
    with open(os.path.join(a, "manifest.d", "deep-1.json"), "w") as f:
        f.write('{"entries": [], "x": ' + "[" * 100000 + "]" * 100000 + "}")
    with pytest.raises(merge.MergeError, match="nested too deeply"):
        merge.merge_captures(str(tmp_path / "out"), [a])


def _no_secret_in(out):
    for d, dirs, files in os.walk(out):
        for n in files:
            assert "SECRET" not in open(os.path.join(d, n), errors="replace").read(), n


def test_shard_whose_cache_folder_is_a_link_is_not_copied_through(tmp_path):
    # Issue 15 item 4: cache/<H> was checked, never cache/ itself.
    outside = tmp_path / "outside"
    (outside / "H1").mkdir(parents=True)
    (outside / "H1" / "k.ttir").write_text("SECRET private key\n")
    a = make_capture(str(tmp_path / "a"), [("k", "H1", "x\n")])
    real = os.path.join(a, "cache")
    os.rename(real, str(tmp_path / "a-cache-moved"))
    os.symlink(outside, real)
    out = str(tmp_path / "out")
    m, warnings = merge.merge_captures(out, [a])
    assert any(w.endswith("a/cache is a symbolic link; not copied") for w in warnings), warnings
    assert not os.path.lexists(os.path.join(out, "cache", "H1"))
    assert m["entries"] == []  # the entry's folder was not copied: dropped, with a warning
    _no_secret_in(out)


def test_shard_whose_manifest_d_is_a_link_is_not_read(tmp_path):
    outside = tmp_path / "outside-manifests"
    outside.mkdir()
    b = make_capture(str(tmp_path / "b"), [("evil", "H9", "z\n")])
    for n in os.listdir(os.path.join(b, "manifest.d")):
        os.rename(os.path.join(b, "manifest.d", n), str(outside / n))
    a = make_capture(str(tmp_path / "a"), [("k", "H1", "x\n")])
    os.rename(os.path.join(a, "manifest.d"), str(tmp_path / "a-manifests"))
    os.symlink(outside, os.path.join(a, "manifest.d"))
    m, warnings = merge.merge_captures(str(tmp_path / "out"), [a])
    assert any(w.endswith("a/manifest.d is a symbolic link; not read") for w in warnings)
    assert all(e["kernel"] != "evil" for e in m["entries"])

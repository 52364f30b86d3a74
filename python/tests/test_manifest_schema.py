"""docs/capture-manifest.schema.json against what the plugin writes (a
recorded and merged capture), the manifests in the repository, and hostile
manifests the C++ reader refuses (tests/capture/schema_test.cc checks the
same schema from C++). Validated by a checker of the schema's keyword subset
(standard library) and, when Debian's python3-jsonschema is installed, by
jsonschema too."""

import glob
import json
import os
import re

import pytest

from conftest import CORPUS, REPO
from ksnap_triton import hooks
from ksnap_triton.merge import merge_captures
from ksnap_triton.recorder import Recorder

SCHEMA_PATH = os.path.join(REPO, "docs", "capture-manifest.schema.json")

TYPES = {"null": lambda v: v is None, "boolean": lambda v: isinstance(v, bool),
         "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
         "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
         "string": lambda v: isinstance(v, str), "array": lambda v: isinstance(v, list),
         "object": lambda v: isinstance(v, dict)}
KNOWN = {"$schema", "title", "description", "type", "enum", "minimum", "maximum", "minLength",
         "pattern", "not", "properties", "required", "dependentRequired", "additionalProperties",
         "items"}


def subset_problems(schema, v, at="$"):
    """Problems of v against schema, for the keywords the manifest schema uses."""
    out = [f"{at}: keyword outside the subset: {k}" for k in schema if k not in KNOWN]
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(TYPES[t](v) for t in types):
            return out + [f"{at}: {type(v).__name__} is not of type {types}"]
    if "enum" in schema and v not in schema["enum"]:
        out.append(f"{at}: {v!r} is not one of {schema['enum']}")
    if TYPES["number"](v):
        if "minimum" in schema and v < schema["minimum"]:
            out.append(f"{at}: {v} is below the minimum")
        if "maximum" in schema and v > schema["maximum"]:
            out.append(f"{at}: {v} is above the maximum")
    if isinstance(v, str):
        if len(v) < schema.get("minLength", 0):
            out.append(f"{at}: shorter than minLength")
        if "pattern" in schema and not re.search(schema["pattern"], v):
            out.append(f"{at}: {v!r} does not match {schema['pattern']}")
    if "not" in schema and not subset_problems(schema["not"], v, at):
        out.append(f"{at}: {v!r} matches a schema it must not")
    if isinstance(v, dict):
        out += [f"{at}: missing {r!r}" for r in schema.get("required", []) if r not in v]
        for name, needs in schema.get("dependentRequired", {}).items():
            if name in v:
                out += [f"{at}: {name!r} needs {r!r}" for r in needs if r not in v]
        props = schema.get("properties", {})
        for k, item in v.items():
            if k in props:
                out += subset_problems(props[k], item, f"{at}.{k}")
            elif "additionalProperties" in schema:
                out += subset_problems(schema["additionalProperties"], item, f"{at}.{k}")
    if isinstance(v, list) and "items" in schema:
        for i, item in enumerate(v):
            out += subset_problems(schema["items"], item, f"{at}[{i}]")
    return out


@pytest.fixture(scope="module")
def schema():
    with open(SCHEMA_PATH) as f:
        return json.load(f)


def problems(schema, doc):
    """Both validators' findings; they must agree on valid / invalid."""
    found = subset_problems(schema, doc)
    try:
        import jsonschema
    except ImportError:
        return found
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(doc))
    assert bool(errors) == bool(found), (found, [e.message for e in errors])
    return found


def test_the_schema_is_a_valid_json_schema(schema):
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator.check_schema(schema)


def test_what_the_plugin_records_and_merges_is_valid(schema, tmp_path, fake_triton):
    out = str(tmp_path / "cap")
    rec = Recorder(out, argv=["bench.py"], script="bench.py",
                   triton_version=fake_triton.__version__)
    inst = hooks.install(rec)
    import kernels_for_tests as k
    try:
        for w in (2, 4):
            k.add_kernel[(4,)](object(), object(), 1024, BLOCK=256, num_warps=w)
        rec.flush()
    finally:
        inst.uninstall()
        del __import__("sys").modules["kernels_for_tests"]
    shards = glob.glob(os.path.join(out, "manifest.d", "*.json"))
    assert shards
    merged, warnings = merge_captures(out)
    assert not warnings
    assert len(merged["entries"]) == 2
    with open(os.path.join(out, "manifest.json")) as f:
        doc = json.load(f)
    assert problems(schema, doc) == []
    assert {e["qualname"] for e in doc["entries"]} == {"kernels_for_tests.add_kernel"}


def repository_manifests():
    roots = [os.path.join(REPO, "examples", "corpus"), CORPUS, os.path.join(REPO, "tests", "fixtures"),
             os.path.join(REPO, "gpu", "tune", "results")]
    return sorted(p for r in roots for p in glob.glob(os.path.join(r, "**", "manifest.json"),
                                                      recursive=True))


def test_every_manifest_in_the_repository_is_valid(schema):
    paths = repository_manifests()
    assert len(paths) >= 8
    for p in paths:
        with open(p) as f:
            assert problems(schema, json.load(f)) == [], p


@pytest.mark.parametrize("doc", [
    {"format": "x", "format_version": 1, "entries": []},
    {"format": "ksnap-capture", "format_version": 2, "entries": []},
    {"format": "ksnap-capture", "entries": []},
    {"format": "ksnap-capture", "format_version": 1},
    {"entries": [3]},
    {"entries": [{"cache_dir": "x"}]},
    {"entries": [{"kernel": 3, "cache_dir": "x"}]},
    {"entries": [{"kernel": "k"}]},
    {"entries": [{"kernel": "k", "cache_dir": ".."}]},
    {"entries": [{"kernel": "k", "cache_dir": "a/b"}]},
    {"entries": [{"kernel": "k", "cache_dir": "x", "constexprs": [1]}]},
    {"entries": [{"kernel": "k", "cache_dir": "x", "stages": {"ttir": 5}}]},
    {"entries": [{"kernel": "k", "cache_dir": "x", "benchmark": {"points": {}}}]},
    {"entries": [{"kernel": "k", "cache_dir": "x", "n_regs": "1"}]},
    {"entries": [{"kernel": "k", "cache_dir": "x", "source_line": 9999999999}]},
])
def test_manifests_the_readers_refuse_are_invalid(schema, doc):
    assert problems(schema, doc) != []

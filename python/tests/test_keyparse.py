import json
import os

import pytest

from conftest import CORPUS
from ksnap_triton import keyparse

SPLIT_CASES = [
    # (key, expected specialization rows, expected options)
    ("[('*fp32', 'D'), ('i32', None)]{'num_warps': 4}",
     [["*fp32", "D"], ["i32", None]], {"num_warps": 4}),
    ("[('constexpr', 1), ('constexpr', -3), ('constexpr', 2.5)]{}",
     [["constexpr", 1], ["constexpr", -3], ["constexpr", 2.5]], {}),
    ("[('constexpr', True), ('constexpr', None), ('constexpr', 'ieee')]",
     [["constexpr", True], ["constexpr", None], ["constexpr", "ieee"]], {}),
    # a string value holding the split marker and brackets
    ("[('constexpr', 'a]{b(')]{'k': ')'}", [["constexpr", "a]{b("]], {"k": ")"}),
    # dtypes and other non-literals stay as source text
    ("[('constexpr', fp16), ('constexpr', triton.language.float16)]{}",
     [["constexpr", "fp16"], ["constexpr", "triton.language.float16"]], {}),
    ("[('constexpr', constexpr(4))]{}", [["constexpr", "constexpr(4)"]], {}),
    # tuple arguments: nested specialization
    ("[(('*fp16', 'D'), ('*fp16', 'D')), ('i32', 'D')]{}",
     [[["*fp16", "D"], ["*fp16", "D"]], ["i32", "D"]], {}),
    ("  [('i32', 'D')]  {'num_stages': 2}  ", [["i32", "D"]], {"num_stages": 2}),
]


@pytest.mark.parametrize("key,sig,opts", SPLIT_CASES)
def test_split_key(key, sig, opts):
    got_sig, got_opts = keyparse.split_key(key)
    assert got_sig == sig
    assert got_opts == opts


BAD_KEYS = [
    ("{'num_warps': 4}", "start with"),
    ("[('i32', 'D')", "unclosed"),
    ("[('i32', 'D'))]{}", "unbalanced"),
    ("[('i32', 'D')]{'a': 1} trailing", "after the options"),
    ("[('i32', 'D')]garbage", "after the argument list"),
    ("[('i32' 'D' =)]{}", "not a Python value"),
]


@pytest.mark.parametrize("key,message", BAD_KEYS)
def test_bad_keys_raise_with_reason(key, message):
    with pytest.raises(keyparse.KeyParseError, match=message):
        keyparse.split_key(key)


@pytest.mark.parametrize("options,explicit", [
    ({"num_warps": 4, "debug": False, "instrumentation_mode": ""}, {"num_warps": 4}),
    ({"debug": True, "instrumentation_mode": "fpsan"}, {"debug": True, "instrumentation_mode": "fpsan"}),
    ({"num_stages": 3, "num_warps": 8, "maxnreg": 128}, {"num_stages": 3, "num_warps": 8, "maxnreg": 128}),
])
def test_explicit_options_drop_only_jit_defaults(options, explicit):
    assert keyparse.explicit_options(options) == explicit


def test_signature_rows_names_and_fallback():
    sig = [["*fp32", "D"], ["constexpr", 64]]
    assert keyparse.signature_rows(sig, ["x", "BLOCK"]) == [["x", "*fp32", "D"], ["BLOCK", "constexpr", 64]]
    # a count mismatch keeps the unnamed rows instead of mislabelling
    assert keyparse.signature_rows(sig, ["x"]) == sig
    assert keyparse.signature_rows(sig, None) == sig


class _Dtype:
    def __str__(self):
        return "fp16"


class _Constexpr:
    def __init__(self, v):
        self.value = v


@pytest.mark.parametrize("value,expected", [
    (3, 3), (True, True), (None, None), ("s", "s"), ((1, 2), [1, 2]),
    (_Dtype(), "fp16"), (_Constexpr(8), 8), ({"a": (1,)}, {"a": [1]}),
])
def test_json_safe(value, expected):
    assert keyparse.json_safe(value) == expected
    json.dumps(keyparse.json_safe(value))


def _python_repr(item):
    return "(" + ", ".join(repr(v) for v in item) + ("," if len(item) == 1 else "") + ")"


def test_every_corpus_key_parses_and_round_trips():
    path = os.path.join(CORPUS, "base", "manifest.json")
    if not os.path.exists(path):
        pytest.skip("shared corpus not present")
    with open(path) as f:
        entries = json.load(f)["entries"]
    assert entries
    for e in entries:
        sig, opts = keyparse.split_key(e["key"])
        rebuilt = "[" + ", ".join(_python_repr(i) for i in sig) + "]" + repr(opts)
        assert rebuilt == e["key"]
        # the corpus's constexprs + options are the key's constexpr values and
        # explicit options, with option-named constexpr parameters under options
        values = [i[1] for i in sig if i[0] == "constexpr"]
        option_params = {k: v for k, v in e["options"].items() if k not in opts}
        for v in list(e["constexprs"].values()) + list(option_params.values()):
            assert v in values
        assert set(option_params) <= keyparse.COMPILE_OPTION_NAMES
        constexprs, options = keyparse.move_option_params(
            {**e["constexprs"], **option_params}, keyparse.explicit_options(opts))
        assert (constexprs, options) == (e["constexprs"], e["options"])


def test_move_option_params():
    c, o = keyparse.move_option_params({"BLOCK": 64, "num_stages": 4}, {"num_warps": 8})
    assert c == {"BLOCK": 64}
    assert o == {"num_warps": 8, "num_stages": 4}
    # an explicitly passed option wins over a same-named parameter value
    assert keyparse.move_option_params({"num_warps": 2}, {"num_warps": 8}) == ({}, {"num_warps": 8})

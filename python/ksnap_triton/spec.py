"""The ``recompile`` record of a manifest entry: how to call ``triton.compile``.

Triton 3.6's JIT builds, for each new variant,
``ASTSource(fn, signature, constexprs, attrs)`` and calls
``triton.compile(src, target=target, options=options.__dict__)``; its
``jit_post_compile_hook`` receives the same pieces in ``compile=``
(``signature``, ``constants``, ``configs[0]`` = attrs, and
``specialization_data``, a JSON text with the full options and, in newer
versions, the target). :func:`make_record` turns them into JSON:

.. code-block:: json

    {"version": 1,
     "source": "cache/<hash>/__ksnap_source__matmul_kernel.json",
     "signature": [["a_ptr", "*fp16"], ["M", "i32"], ["BLOCK_M", "constexpr"]],
     "constexprs": [[[6], 128]],
     "attrs": [[[0], "D"], [[1], ""]],
     "attrs_parsed": [[[0], [["tt.divisibility", 16]]], [[1], []]],
     "options": {"num_warps": 8, "num_stages": 3, "arch": "sm90", ...},
     "option_defaults": {"num_warps": 8, "num_stages": 3, "enable_fp_fusion": true, ...},
     "target": {"backend": "cuda", "arch": 90, "warp_size": 32}}

``options`` is what the variant was compiled with; ``option_defaults`` is what
the capturing process's backend made of the JIT key's options alone, under
that process's environment and knobs (``TRITON_DEFAULT_FP_FUSION``, ...). A
recompile passes on only what the program chose: the key's options and the
options whose value differs from ``option_defaults``; everything else is the
recompiling compiler's own default (recompile_worker.plan_options).

``attrs`` are the key's raw specialization strings (``"D"`` = divisible by
16), which any backend's ``parse_attr`` reads, so a variant captured for one
target can be rebuilt for another; ``attrs_parsed`` is what the capturing
backend made of them. Paths are argument index paths (tuples of ints, for
tuple arguments longer). Values are tagged JSON (kernelsrc.encode_value).
Nothing here imports Triton.

Worked example::

    rec = make_record(source="cache/H/__ksnap_source__k.json",
                      signature={"x": "*fp32", "n": "i32", "B": "constexpr"},
                      constants={(2,): 256}, attrs={(0,): [["tt.divisibility", 16]]},
                      key="[('*fp32', 'D'), ('i32', ''), ('constexpr', 256)]{}",
                      options={"num_warps": 4}, target=None)
    rec["attrs"]      # [[[0], 'D'], [[1], '']]
"""

from __future__ import annotations

import json
from typing import Any

from . import kernelsrc, keyparse

VERSION = 1

__all__ = ["VERSION", "make_record", "raw_attrs", "target_dict", "options_dict"]


def _path(p: Any) -> list:
    if isinstance(p, tuple):
        return [int(x) if isinstance(x, int) else str(x) for x in p]
    if isinstance(p, int):
        return [p]
    return [str(p)]


def _sig_value(v: Any) -> Any:
    if isinstance(v, (tuple, list)):
        return [_sig_value(x) for x in v]
    return str(v)


def raw_attrs(key: str | None) -> list | None:
    """``[[path, spec]]`` for every non-constexpr argument of a JIT key
    (the strings ``D``, ``""``, ...), or None when the key does not parse."""
    if not isinstance(key, str):
        return None
    try:
        sig, _ = keyparse.split_key(key)
    except keyparse.KeyParseError:
        return None
    out: list = []

    def walk(item: Any, path: list) -> None:
        # An argument is [type, spec]; a tuple argument nests such pairs.
        if isinstance(item, list) and len(item) == 2 and isinstance(item[0], str):
            typ, spec = item
            if typ != "constexpr" and isinstance(spec, str):
                out.append([path, spec])
            return
        if isinstance(item, list) and len(item) == 2 and isinstance(item[0], list) \
                and isinstance(item[1], list):
            for i, (t, s) in enumerate(zip(item[0], item[1])):
                walk([t, s], path + [i])

    for i, item in enumerate(sig):
        walk(item, [i])
    return out


def target_dict(target: Any) -> dict | None:
    """{"backend", "arch", "warp_size"} of a GPUTarget, dict or list."""
    if target is None:
        return None
    if isinstance(target, dict):
        d = target
    elif isinstance(target, (list, tuple)) and len(target) >= 2:
        d = dict(zip(("backend", "arch", "warp_size"), target))
    else:
        d = {k: getattr(target, k, None) for k in ("backend", "arch", "warp_size")}
    if not isinstance(d.get("backend"), str):
        return None
    arch = d.get("arch")
    return {"backend": d["backend"], "arch": arch if isinstance(arch, (int, str)) else str(arch),
            "warp_size": d.get("warp_size") if isinstance(d.get("warp_size"), int) else None}


def options_dict(options: Any) -> dict | None:
    """JSON form of a backend options object or dict (tuples -> lists)."""
    if options is None:
        return None
    d = options if isinstance(options, dict) else getattr(options, "__dict__", None)
    if not isinstance(d, dict):
        return None
    return {str(k): kernelsrc.encode_value(v) if not isinstance(v, (tuple, list))
            else [_plain(x) for x in v] for k, v in sorted(d.items())}


def _plain(v: Any) -> Any:
    if isinstance(v, (tuple, list)):
        return [_plain(x) for x in v]
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return str(v)


def parse_specialization_data(text: Any) -> dict:
    """The options and target of Triton's specialization_data JSON ({} if none)."""
    if not isinstance(text, str):
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def make_record(*, source: str | None, signature: Any, constants: Any, attrs: Any,
                key: str | None, options: Any, target: Any,
                option_defaults: Any = None) -> dict:
    """The entry's ``recompile`` object (see the module docstring).
    ``option_defaults`` (an options object or dict) is left out when unknown."""
    sig = []
    if isinstance(signature, dict):
        sig = [[str(k), _sig_value(v)] for k, v in signature.items()]
    consts = []
    if isinstance(constants, dict):
        for p, v in constants.items():
            consts.append([_path(p), kernelsrc.encode_value(v)])
    parsed = []
    if isinstance(attrs, dict):
        for p, v in attrs.items():
            parsed.append([_path(p), _plain(v)])
    rec: dict[str, Any] = {
        "version": VERSION,
        "source": source,
        "signature": sig,
        "constexprs": consts,
        "attrs": raw_attrs(key),
        "attrs_parsed": parsed,
        "options": options_dict(options),
        "target": target_dict(target),
    }
    defaults = options_dict(option_defaults)
    if defaults is not None:
        rec["option_defaults"] = defaults
    return rec

import base64
import hashlib
import json
import os
import sys
from collections import namedtuple

from .. import knobs

LOADS = []      # (kernel name) per binary load
LAUNCHES = []   # (kernel name, grid) per real launch


class OutOfResources(Exception):
    pass


class CompileTimes:
    def __init__(self, total):
        self.total = total


class CompiledKernel:
    def __init__(self, src, metadata_group, hash):
        meta_path = next(p for n, p in metadata_group.items() if n.endswith(".json"))
        with open(meta_path) as f:
            md = json.load(f)
        self.metadata = namedtuple("KernelMetadata", sorted(md))(**md)
        self.metadata_group = metadata_group
        self.hash = hash
        self.name = md["name"]
        self.src = src
        self.module = None
        self.function = None
        self._run = None

    def _init_handles(self):
        if self.module is not None:
            return
        if self.metadata.shared > 232448:
            raise OutOfResources("shared memory")
        if self.metadata.arch != "sm90":
            raise RuntimeError("no kernel image is available for execution on the device")
        LOADS.append(self.name)
        self.module = object()
        self.function = id(self) & 0xFFFFFF
        self.n_regs, self.n_spills = 40 + self.metadata.num_warps, 0

        def launcher(gx, gy, gz, stream, function, packed, launch_metadata, enter, exit_, *args):
            if enter is not None:
                enter(launch_metadata)
            LAUNCHES.append((self.name, (gx, gy, gz)))
            if exit_ is not None:
                exit_(launch_metadata)

        self._run = launcher

    @property
    def run(self):
        if self._run is None:
            self._init_handles()
        return self._run

    def launch_metadata(self, grid, stream, *args):
        self._init_handles()
        return LazyDict({"name": self.name, "function": self.function, "stream": stream})


class LazyDict:
    def __init__(self, data):
        self.data = data

    def get(self):
        return self.data


def _b32(hexdigest):
    return base64.b32encode(bytes.fromhex(hexdigest)).decode().rstrip("=")


class CompilationError(Exception):
    pass


def _arch_of(target):
    if target is None:
        return knobs.runtime.override_arch or "sm90"
    if target.backend == "cuda":
        return f"sm{target.arch}"
    return str(target.arch)


def make_backend(target):
    from ..backends.compiler import FakeBackend

    if not FakeBackend.supports_target(target):
        raise RuntimeError(f"No backend for {target}")
    return FakeBackend(target)


def compile(src, target=None, options=None):
    """Writes small text "stages". For tests of failure handling, a kernel
    named in FAKE_TRITON_FAIL raises like a compile error, one in
    FAKE_TRITON_CRASH kills the process, one in FAKE_TRITON_SLOW sleeps."""
    given = dict(options or {})
    # Like triton.compile: the backend parses the options (its defaults, read
    # from this process's environment, fill what was not given).
    from ..backends.compiler import GPUTarget
    parsed = make_backend(target or GPUTarget("cuda", 90, 32)).parse_options(given)
    options = dict(vars(parsed), **{k: v for k, v in given.items() if k not in vars(parsed)})
    if src.name in os.environ.get("FAKE_TRITON_FAIL", "").split(","):
        raise CompilationError(f"at 3:4:\n    x = tl.foo(y)\n    ^\nunsupported op in {src.name}")
    if src.name in os.environ.get("FAKE_TRITON_CRASH", "").split(","):
        os._exit(139)
    if src.name in os.environ.get("FAKE_TRITON_SLOW", "").split(","):
        import time
        time.sleep(60)
    arch = _arch_of(target)
    options.pop("arch", None)
    backend = make_backend(target or GPUTarget("cuda", 90, 32))
    # Like Triton's cache key: the compiler's own code and the knobs set.
    env = _env_knobs()
    with open(sys.modules[type(backend).__module__].__file__, "rb") as f:
        compiler_src = hashlib.sha256(f.read()).hexdigest()
    key = json.dumps([src.name, src.fn.src, sorted(src.signature.items()),
                      sorted((str(k), repr(v)) for k, v in src.constants.items()),
                      sorted((str(k), v) for k, v in src.attrs.items()),
                      sorted((k, repr(v)) for k, v in options.items()), arch,
                      sorted(env.items()), compiler_src])
    h = hashlib.sha256(key.encode()).hexdigest()
    folder = os.path.join(knobs.cache.dir, _b32(h))
    meta_name = f"{src.name}.json"
    listener = knobs.compilation.listener
    if os.path.exists(os.path.join(folder, meta_name)):
        # Like Triton's get_group: the group is what __grp__<name>.json lists.
        with open(os.path.join(folder, f"__grp__{meta_name}")) as f:
            group = json.load(f)["child_paths"]
        k = CompiledKernel(src, group, h)
        if listener:
            listener(src=src, metadata=k.metadata._asdict(), metadata_group=group,
                     times=CompileTimes(10), cache_hit=True)
        return k
    os.makedirs(folder, exist_ok=True)
    tgt = {"backend": "cuda", "arch": 90, "warp_size": 32}
    if target is not None:
        tgt = {"backend": target.backend, "arch": target.arch, "warp_size": target.warp_size}
    md = {"hash": h, "target": tgt,
          "name": src.name, "num_warps": options.get("num_warps", 4),
          "num_stages": options.get("num_stages", 3), "arch": arch,
          "shared": options.get("shared", 1024), "triton_version": "3.6.0-fake"}
    md.update(env)  # Triton records the cache-invalidating knobs that are set
    group = {}
    ir = _pipeline(src, backend, md, options, tgt)
    consts = ",".join(f"{k}={v}" for k, v in sorted((str(k), v) for k, v in src.constants.items()))
    asm = "ptx" if tgt["backend"] == "cuda" else "amdgcn"
    binary = "cubin" if tgt["backend"] == "cuda" else "hsaco"
    for ext in ("source", "ttir", "ttgir", "llir", asm):
        text = (f"// {ext} of {src.name} [{consts}] warps={md['num_warps']} arch={arch}"
                f" fp_fusion={options.get('enable_fp_fusion')}\n") + ir.get(ext, "")
        group[f"{src.name}.{ext}"] = _put(folder, f"{src.name}.{ext}", text.encode())
    group[f"{src.name}.{binary}"] = _put(folder, f"{src.name}.{binary}", b"\x7fELF\0" + h.encode()[:16])
    group[meta_name] = _put(folder, meta_name, json.dumps(md).encode())
    _put(folder, f"__grp__{meta_name}", json.dumps({"child_paths": group}).encode())
    if listener:
        listener(src=src, metadata=md, metadata_group=group, times=CompileTimes(250000),
                 cache_hit=False)
    return CompiledKernel(src, group, h)


# Knobs Triton lists as cache-invalidating (tools/Sys/GetEnv.hpp), recorded
# in the metadata when set, as Triton does ("DISABLE_MMA_V3": "true").
_KNOBS = ("DISABLE_LLVM_OPT", "DISABLE_MMA_V3", "TRITON_DEFAULT_FP_FUSION",
          "TRITON_DISABLE_LINE_INFO", "LLVM_IR_ENABLE_DUMP", "MLIR_ENABLE_DUMP")


def _env_knobs():
    out = {}
    for k in _KNOBS:
        v = os.environ.get(k)
        if v is not None:
            out[k] = "true" if v.lower() in ("1", "true", "on") else "false"
    return out


def _pipeline(src, backend, md, options, tgt):
    """ttir, ttgir, llir and ptx texts of the stand-in pipeline (passes.py)."""
    from ..backends import passes

    block = next((v for v in src.constants.values() if isinstance(v, int) and v > 1), 16)
    args = [n for n, t in src.signature.items() if t != "constexpr"]
    ctx = {"num_warps": md["num_warps"], "block": block,
           "target": f"{tgt['backend']}:{tgt['arch']}"}
    out = {}
    ir = passes.frontend(src.name, args, block, md["num_warps"])
    for stage, make in (("ttir", backend.make_ttir), ("ttgir", backend.make_ttgir),
                        ("llmlir", backend.make_llir)):
        pm = passes.PassManager(ctx)
        make(pm)
        ir = pm.run(ir)
        out[stage] = ir
    llvm = passes.run_llvm_middle_end(passes.translate_to_llvm(ir, src.name, block), src.name)
    out["llir"] = llvm
    asm = "ptx" if tgt["backend"] == "cuda" else "amdgcn"
    out[asm] = passes.codegen(llvm, src.name, options.get("enable_fp_fusion", True))
    del out["llmlir"]
    return out


def _put(folder, name, data):
    path = os.path.join(folder, name)
    tmp = f"{path}.tmp.pid_{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return path

"""Stand-in for triton.backends.compiler: GPUTarget and a backend per target."""

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class GPUTarget:
    backend: str
    arch: object
    warp_size: int


class _Options:
    def __init__(self, **kw):
        self.__dict__.update(kw)


class FakeBackend:
    """One class for "cuda" and "hip": options as in the JIT's _DEFAULTS."""

    binary_ext = "cubin"

    def __init__(self, target):
        self.target = target
        self.binary_ext = "cubin" if target.backend == "cuda" else "hsaco"

    @staticmethod
    def supports_target(target):
        return target.backend in ("cuda", "hip")

    def parse_options(self, opts):
        from ..runtime.jit import _DEFAULTS

        arch = f"sm{self.target.arch}" if self.target.backend == "cuda" else self.target.arch
        args = dict(_DEFAULTS, arch=arch)
        if self.target.backend == "hip":
            args.update(num_stages=2, waves_per_eu=0)
        # Like Triton's knobs.language.default_fp_fusion: the default comes
        # from the environment of the process that parses the options.
        args["enable_fp_fusion"] = os.environ.get("TRITON_DEFAULT_FP_FUSION", "1").lower() \
            not in ("0", "false", "off")
        args.update({k: v for k, v in opts.items() if k in args and v is not None and k != "arch"})
        return _Options(**args)

    # The pipeline, as Triton's backends list it (passes.py runs and dumps it).
    @staticmethod
    def make_ttir(pm):
        pm.add("Inliner", "inline")
        pm.add("Canonicalizer", "canonicalize")
        pm.add("TritonCombineOps", "triton-combine")
        pm.add("CSE", "cse")

    @staticmethod
    def make_ttgir(pm):
        pm.add("ConvertTritonToTritonGPU", "convert-triton-to-tritongpu")
        pm.add("TritonGPUCoalesce", "tritongpu-coalesce")
        pm.add("TritonGPUAccelerateMatmul", "tritongpu-accelerate-matmul")
        pm.add("TritonGPURemoveLayoutConversions", "tritongpu-remove-layout-conversions")
        pm.add("Canonicalizer", "canonicalize")

    @staticmethod
    def make_llir(pm):
        pm.add("ConvertTritonGPUToLLVM", "convert-triton-gpu-to-llvm")
        pm.add("CSE", "cse")

    @staticmethod
    def parse_attr(desc):
        return [["tt.divisibility", 16]] if "D" in desc else []

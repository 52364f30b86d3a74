"""The builds of the real-world corpus: one capture folder each, the same
tutorial calls under one compiler knob or cosmetic change.

Shared by the GPU-side runner (run_corpus.py) and the truth/trim tools that
run here, so both agree on names, knobs and which stages a knob can touch.

``can_touch`` was read from Triton 3.6's source (release/3.6.x @ 7c56a5e4,
the commit the tutorials come from), not inferred from the captures:

* ``TRITON_DEFAULT_FP_FUSION=0`` sets ``options.enable_fp_fusion=False``
  (third_party/*/backend/compiler.py parse_options). NVIDIA reads it only in
  ``make_ptx`` (``llvm.translate_to_asm(..., enable_fp_fusion)``: the
  TargetMachine's ``AllowFPOpFusion``) and ``make_cubin`` (``ptxas
  --fmad=false``); its ``make_llir`` calls ``optimize_module`` without an
  arch, so no TargetMachine and no fusion flag reach the LLVM optimizer.
  AMD also passes it to ``optimize_module(..., options.arch, ...,
  enable_fp_fusion)`` (a TargetMachine with the flag) and to
  ``translate_to_asm``: llir, amdgcn, hsaco.
* ``DISABLE_LLVM_OPT=1``: ``optimize_module`` returns before running any
  pass, and ``createTargetMachine`` uses ``CodeGenOptLevel::None``
  (python/src/llvm.cc): llir, ptx/amdgcn, binaries. No MLIR pass reads it.
* ``DISABLE_MMA_V3=1``: ``supportMMA(op, 3)`` returns false
  (lib/Analysis/Utility.cpp), consulted by NVIDIA's AccelerateMatmul
  (TTGIR) for ``tt.dot``: ttgir and everything below, for kernels with a
  dot. AMD's pipeline never asks for MMA version 3 (not captured for AMD).
* ``TRITON_DISABLE_LINE_INFO=1``: the IR builder creates no locations
  (python/src/ir.h ``lineInfoEnabled``), so TTIR/TTGIR lose their ``loc``
  tables and the SSA names Triton derives from name locations; ``make_llir``
  skips ``add_di_scope`` (no debug info); ``make_cubin`` passes
  ``-suppress-debug-info``. Only names, locations and debug info change:
  a noise build.
* noise_path: another folder, 7 more lines on top, renamed locals (see
  make_noise.py): names, locations, debug info and PTX ``.file``/``.loc``
  change; a noise build.
* no_launch (``ksnap capture --no-launch``) and repeat: the same compiles as
  base; any difference is compiler nondeterminism.

Binary stages (cubin, hsaco) embed line tables and paths; ksnap does not
diff them as text, so the truth covers text stages only.
"""

from __future__ import annotations

TEXT_STAGES = ("source", "ttir", "ttgir", "llir", "ptx", "amdgcn")

# name -> knob: env (added to the environment), tutorials ("base" or "noise"),
# flags (extra `capture` flags), kind (noise | knob | same),
# can_touch[backend] (text stages the knob may change).
NVIDIA = {
    "base": {"env": {}, "tutorials": "base", "flags": [], "kind": "same"},
    "noise_path": {"env": {}, "tutorials": "noise", "flags": [], "kind": "noise"},
    "noise_lineinfo": {"env": {"TRITON_DISABLE_LINE_INFO": "1"}, "tutorials": "base", "flags": [],
                       "kind": "noise"},
    "fp_fusion_off": {"env": {"TRITON_DEFAULT_FP_FUSION": "0"}, "tutorials": "base", "flags": [],
                      "kind": "knob", "can_touch": {"cuda": ["ptx"], "hip": ["llir", "amdgcn"]}},
    "llvm_opt_off": {"env": {"DISABLE_LLVM_OPT": "1"}, "tutorials": "base", "flags": [], "kind": "knob",
                     "can_touch": {"cuda": ["llir", "ptx"], "hip": ["llir", "amdgcn"]}},
    "mma_v3_off": {"env": {"DISABLE_MMA_V3": "1"}, "tutorials": "base", "flags": [], "kind": "knob",
                   "can_touch": {"cuda": ["ttgir", "llir", "ptx"], "hip": []}},
    "no_launch": {"env": {}, "tutorials": "base", "flags": ["--no-launch"], "kind": "same"},
    "repeat": {"env": {}, "tutorials": "base", "flags": [], "kind": "same"},
}
# gfx942 cross-compiles: the knobs that reach the AMD backend. DISABLE_MMA_V3
# is never read on the AMD path and --no-launch means nothing for a compile
# that never launches, so those two builds are NVIDIA-only.
GFX942 = {f"gfx942_{k}": dict(v) for k, v in NVIDIA.items() if k not in ("mma_v3_off", "no_launch")}

ALL = {**NVIDIA, **GFX942}


def backend_of(build: str) -> str:
    return "hip" if build.startswith("gfx942_") else "cuda"


def knob_of(build: str) -> str:
    """The knob name without the target prefix (gfx942_base -> base)."""
    return build[len("gfx942_"):] if build.startswith("gfx942_") else build


def pairs() -> list[tuple[str, str]]:
    """Pairs the corpus tests: base vs every other build, and each noise build
    vs every knob build (per target)."""
    out = []
    for group in (NVIDIA, GFX942):
        names = list(group)
        base = names[0]
        out += [(base, n) for n in names[1:]]
        noise = [n for n in names if group[n]["kind"] == "noise"]
        knobs = [n for n in names if group[n]["kind"] == "knob"]
        out += [(a, b) for a in noise for b in knobs]
    return out

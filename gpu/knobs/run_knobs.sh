#!/bin/bash
# Issue 17, item 1: a recompile honours the recompiling compiler. On the H200
# machine, for each knob of the real-suite pairs, the suite is captured once
# launched under the knob and once recompiled (from the capture launched
# without it) under the knob; gfx942 recompiles of the base capture come back
# too (their hsaco files for the resource reader). ksnap diffs them on the CPU
# machine (gpu/knobs/compare.py):
#   bash gpu/knobs/run_knobs.sh D OUT
# D holds python/ (the plugin) and gpu/ (the suite). OUT gets log.txt and
# captures.tar.zst (manifests, recompile reports, stage files, binaries).
set -u
D=$(cd "${1:?D}" && pwd); OUT=${2:?OUT}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH="$D/python${PYTHONPATH:+:$PYTHONPATH}"
W=/tmp/kknobs; rm -rf "$W"; mkdir -p "$W"
step() { echo "=== $* ($(date +%T))"; }
timed() { local t0=$EPOCHREALTIME; "$@"; local rc=$?; echo "rc=$rc wall=$(awk "BEGIN{print $EPOCHREALTIME - $t0}") s: $*"; }
KNOBS=(TRITON_DEFAULT_FP_FUSION=0 DISABLE_LLVM_OPT=1 DISABLE_MMA_V3=1 TRITON_DISABLE_LINE_INFO=1)
name_of() { echo "$1" | cut -d= -f1 | tr 'A-Z_' 'a-z-'; }
{
step versions
python3 -c "import triton, torch; print('triton', triton.__version__, 'torch', torch.__version__, torch.cuda.get_device_name())"
step capture base
timed python3 -m ksnap_triton capture -o "$W/base" -- python3 "$D/gpu/capture/bench_suite.py" 2>&1 | tail -3
for k in "${KNOBS[@]}"; do
  n=$(name_of "$k")
  step "capture launched under $k"
  timed env "$k" python3 -m ksnap_triton capture -o "$W/launch-$n" -- python3 "$D/gpu/capture/bench_suite.py" 2>&1 | tail -3
  step "recompile base under $k"
  timed env "$k" python3 -m ksnap_triton recompile "$W/base" -o "$W/rc-$n" --jobs 16 2>&1 | tail -3
done
step "recompile base without a knob (the identity check)"
timed python3 -m ksnap_triton recompile "$W/base" -o "$W/rc-none" --jobs 16 2>&1 | tail -3
step "recompile base for hip:gfx942"
CUDA_VISIBLE_DEVICES= timed python3 -m ksnap_triton recompile "$W/base" -o "$W/rc-gfx942" --target hip:gfx942 --jobs 16 2>&1 | tail -3
step "option_defaults recorded"
python3 - "$W/base/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
es = m["entries"]
print(len(es), "variants;", sum("option_defaults" in (e.get("recompile") or {}) for e in es), "with option_defaults")
print("example:", {k: es[0]["recompile"]["option_defaults"].get(k) for k in ("num_warps", "num_stages", "enable_fp_fusion")})
PY
step pack
du -sh "$W"/* | head -20
if command -v zstd >/dev/null; then (cd "$W" && tar --exclude="*.so" -cf - . | zstd -q -19 -T16 -o "$OUT/captures.tar.zst"); else (cd "$W" && tar --exclude="*.so" -czf "$OUT/captures.tar.gz" .); fi
ls -la "$OUT"
} 2>&1 | tee "$OUT/log.txt"

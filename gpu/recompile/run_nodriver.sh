#!/bin/bash
# Recompile with no GPU driver at all (issue 12, item 4: "a CPU-only machine"):
# inside a private mount namespace the NVIDIA device nodes are replaced by
# /dev/null and every libcuda / libnvidia-ml file by an empty file, so nothing
# can load the driver or open a GPU; the suite capture (launched on the H200,
# run 1) is recompiled there for cuda:90 and hip:gfx942; the same recompiles
# with the GPU visible come back beside them, and ksnap diffs them here
# (the working tree that travels is too small for the binary and the IR too):
#   bash gpu/recompile/run_nodriver.sh D OUT
# D holds python/ (the plugin) and suite/ (the capture's manifest and source
# records: the stage files are not needed to recompile).
# Results: gpu/recompile/results/nodriver (docs/recompile.md).
set -u
D=$(cd "${1:?D}" && pwd); OUT=${2:?OUT}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH="$D/python${PYTHONPATH:+:$PYTHONPATH}"
W=/tmp/knd; rm -rf "$W"; mkdir -p "$W"
step() { echo "=== $* ($(date +%T))"; }
{
step environment
nvidia-smi -L 2>&1 | head -2
ls -la /dev/nvidia* 2>&1 | head -8
libs=$(find /usr /lib /lib64 /usr/local /opt -name 'libcuda.so*' -o -name 'libnvidia-ml.so*' 2>/dev/null | sort -u)
echo "driver libraries:"; echo "$libs"
echo "$libs" > "$W/libs.txt"
step with the GPU: recompile cuda:90 and hip:gfx942
python3 -m ksnap_triton recompile "$D/suite" -o "$W/gpu_cuda90" --target cuda:90 --jobs 16 2>&1 | tail -2
python3 -m ksnap_triton recompile "$D/suite" -o "$W/gpu_gfx942" --target hip:gfx942 --jobs 16 2>&1 | tail -2
step without any driver: a private mount namespace
cat > "$W/inside.sh" <<'INNER'
set -u
W=/tmp/knd
: > "$W/empty"
for d in /dev/nvidia*; do [ -e "$d" ] && mount --bind /dev/null "$d" && echo "hidden $d"; done
while read -r lib; do
  [ -n "$lib" ] && [ -f "$lib" ] && mount --bind "$W/empty" "$lib" && echo "hidden $lib"
done < "$W/libs.txt"
echo "--- checks"
python3 -c "import ctypes
try:
    ctypes.CDLL('libcuda.so.1'); print('libcuda.so.1 LOADED (not hidden)')
except OSError as e: print('libcuda.so.1 does not load:', str(e)[:120])"
nvidia-smi -L 2>&1 | head -1
python3 -c "import torch; print('torch.cuda.is_available():', torch.cuda.is_available())" 2>&1 | tail -1
python3 -c "
import triton
try:
    from triton.runtime import driver; print('triton active driver:', driver.active.get_current_target())
except Exception as e: print('triton has no active driver:', type(e).__name__, str(e)[:160])" 2>&1 | tail -1
echo "--- recompile"
t0=$EPOCHREALTIME
python3 -m ksnap_triton recompile "$D/suite" -o "$W/nodrv_cuda90" --target cuda:90 --jobs 16 2>&1 | tail -2
echo "wall $(awk "BEGIN{print $EPOCHREALTIME - $t0}") s"
t0=$EPOCHREALTIME
python3 -m ksnap_triton recompile "$D/suite" -o "$W/nodrv_gfx942" --target hip:gfx942 --jobs 16 2>&1 | tail -2
echo "wall $(awk "BEGIN{print $EPOCHREALTIME - $t0}") s"
INNER
D="$D" unshare -m --propagation private bash "$W/inside.sh"; echo "unshare rc=$?"
step results
for d in nodrv_cuda90 nodrv_gfx942 gpu_cuda90 gpu_gfx942; do
  python3 -c "import json; d=json.load(open('$W/$d/recompile.json')); print('$d', {k: d.get(k) for k in ('planned','rebuilt','wall_s','cores_used','variants_per_s')}, 'failed', len(d['failed']))"
done
ls "$W/nodrv_cuda90/cache" | head -1 | xargs -I{} ls "$W/nodrv_cuda90/cache/{}"
step pack
for d in nodrv_cuda90 nodrv_gfx942 gpu_cuda90 gpu_gfx942; do (cd "$W" && tar -czf "$OUT/$d.tgz" "$d"); done
cp "$W/libs.txt" "$OUT/"; ls -la "$OUT"
step done
} 2>&1 | tee "$OUT/log.txt"

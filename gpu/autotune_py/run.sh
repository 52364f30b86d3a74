#!/bin/sh
# On the GPU machine, from the repo root (no build needed: ksnap_triton is pure Python):
#   sh gpu/autotune_py/run.sh [compare.py options]   (writes $OUT/compare.json, $OUT/commits.jsonl, $OUT/log.txt)
# TRITON_CACHE_DIR starts empty, so compare.py's first step measures each config's cold
# compile; after it both arms run with every config compiled (warm for both).
set -e
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
TRITON_CACHE_DIR=$(mktemp -d /tmp/triton-cache-XXXXXX)
export TRITON_CACHE_DIR OUT
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv || true
python3 gpu/autotune_py/compare.py "$@" 2>&1 | tee "$OUT/log.txt"

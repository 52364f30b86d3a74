#!/bin/sh
# On the GPU machine, from the repo root, with build-tune-gpu/ carried:
#   sh gpu/tune/run.sh      (writes $OUT/tune_h200.json, $OUT/ksnap_gpu.json, $OUT/log.txt)
set -e
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv || true
python3 gpu/tune/run_h200.py 2>&1 | tee "$OUT/log.txt"

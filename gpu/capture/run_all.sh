#!/bin/bash
# The GPU session: every capture check, run on the H200 machine from the repo root.
#   gpu/capture/run_all.sh OUTDIR
# Writes logs, the two captures run1/run2 (launchers dropped) as fixture.tgz, and
# the manifests of the other checks. The committed fixture is then cut here with
#   gpu/capture/trim_fixture.py fixture/runN tests/fixtures/gpu_capture/runN --drop-stage llir
set -u
OUTDIR=${1:?OUTDIR}
mkdir -p "$OUTDIR"
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
W=/tmp/ksnap-gpu
rm -rf "$W"; mkdir -p "$W"
step() { echo "=== $* ($(date +%T))"; }
cap() { python3 -m ksnap_triton capture "$@"; echo "capture rc=$?"; }
{
step versions; python3 -c "import triton, torch; print('triton', triton.__version__, 'torch', torch.__version__, torch.cuda.get_device_name())"
step sources; python3 gpu/capture/dump_triton_sources.py > "$OUTDIR/triton_sources.txt" 2>&1; echo rc=$?
step pytest; python3 -m pytest -q -p no:cacheprovider python/tests 2>&1 | tail -5
step run1; cap -o "$W/run1" -- gpu/capture/bench_suite.py
step check run1; python3 gpu/capture/check_capture.py "$W/run1"
step run2; cap -o "$W/run2" -- gpu/capture/bench_suite.py
step check run2; python3 gpu/capture/check_capture.py "$W/run2" --same-as "$W/run1"
step no-launch; cap -o "$W/nolaunch" --no-launch -- python3 gpu/capture/bench_suite.py --quick --no-check
python3 gpu/capture/check_capture.py "$W/nolaunch" --quick --no-launch
step arch sm_80; cap -o "$W/sm80" --arch sm_80 -- gpu/capture/bench_suite.py --quick --no-check
python3 gpu/capture/check_capture.py "$W/sm80" --quick --no-launch --arch sm80
grep -h -m1 -o '\.target sm_[0-9a-z]*' "$W"/sm80/cache/*/matmul_kernel.ptx | sort | uniq -c
step xdist; cap -o "$W/xdist" -- python3 -m pytest -q -p no:cacheprovider -n 2 gpu/capture/test_xdist_kernels.py
python3 - "$W/xdist" <<'PY'
import json, os, sys
root = sys.argv[1]
m = json.load(open(os.path.join(root, "manifest.json")))
shards = os.listdir(os.path.join(root, "manifest.d"))
blocks = sorted(e["constexprs"]["BLOCK_SIZE"] for e in m["entries"] if e["kernel"] == "softmax_kernel")
tests = sorted({p.get("test") for e in m["entries"] for p in e["benchmark"]["points"]})
print("xdist:", len(shards), "shards;", "softmax BLOCK_SIZEs", blocks, ";", len(tests), "test points")
PY
step merge shards; python3 -m ksnap_triton merge "$W/merged" "$W/run1" "$W/xdist"; echo rc=$?
step sizes; du -sh "$W"/*; for s in source ttir ttgir llir ptx cubin; do echo "$s $(cat "$W"/run1/cache/*/*.$s 2>/dev/null | wc -c)"; done
step trim
mkdir -p "$W/fixture"
for r in run1 run2; do python3 gpu/capture/trim_fixture.py "$W/$r" "$W/fixture/$r"; done
du -sh "$W/fixture"
tar -C "$W" -czf "$OUTDIR/fixture.tgz" fixture
tar -C "$W" -czf "$OUTDIR/other_manifests.tgz" nolaunch/manifest.json sm80/manifest.json xdist/manifest.json xdist/manifest.d merged/manifest.json
ls -la "$OUTDIR"
step done
} 2>&1 | tee "$OUTDIR/log.txt"

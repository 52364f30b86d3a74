#!/bin/bash
# Second H200 session of the recompile checks (after run_gpu.sh): the plugin's
# tests with the real Triton beside the stand-in, "one changed option" on
# hip:gfx942, and the fused-attention tutorial (its capture cut off after 60 s,
# the per-process shards merged), recompiled and diffed.
#   bash gpu/recompile/run_gpu2.sh D OUT     (D as for run_gpu.sh, plus suite/ from run 1)
# KSNAP_GPU2_ONLY_ATTN=1 runs only the attention part.
# KSNAP_GPU2_SHORT=1 stops after the hip check (what was run, for lack of device time).
set -u
D=$(cd "${1:?D}" && pwd); OUT=${2:?OUT}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH="$D/python${PYTHONPATH:+:$PYTHONPATH}"
K="$D/ksnap"; W=/tmp/krc; rm -rf "$W"; mkdir -p "$W"
step() { echo "=== $* ($(date +%T))"; }
timed() { local t0=$EPOCHREALTIME; "$@"; local rc=$?; echo "rc=$rc wall=$(awk "BEGIN{print $EPOCHREALTIME - $t0}") s: $*"; }
rcmp() { CUDA_VISIBLE_DEVICES= python3 -m ksnap_triton recompile "$@"; }
kdiff() { "$K" diff "$1" "$2" --format json > "$W/$3.json" 2> "$W/$3.err"; echo "diff rc=$?"; head -c 600 "$W/$3.err";
          python3 "$D/gpu/recompile/diff_summary.py" "$W/$3.json" "$3"; }
{
if [ "${KSNAP_GPU2_ONLY_ATTN:-0}" != 1 ]; then
step pytest plugin; python3 -m pytest -q -p no:cacheprovider "$D/python/tests" 2>&1 | grep -E "FAILED|passed|failed" | head -20
step hip one changed option
cp -r "$D/suite" "$W/suite"
rcmp "$W/suite" -o "$W/hipA" --target hip:gfx942 --jobs 16
python3 "$D/gpu/recompile/change_one_option.py" "$W/suite" "$W/suite_fusion" layer_norm_fwd enable_fp_fusion false
rcmp "$W/suite_fusion" -o "$W/hipC" --target hip:gfx942 --jobs 16
kdiff "$W/hipA" "$W/hipC" hip_one_option
if [ "${KSNAP_GPU2_SHORT:-0}" = 1 ]; then step pack; (cd "$W" && tar -czf "$OUT/reports2.tgz" */recompile.json */manifest.json ./*.json ./*.err); step done; exit 0; fi
fi
step attention tutorial, capture cut at 60 s
(cd "$D/tutorials" && timed timeout 60 python3 -m ksnap_triton capture -o "$W/tut06" -- python3 "$D/gpu/recompile/run_tutorial.py" 06-fused-attention.py --points 1 2>&1 | grep -v "^\s*[0-9]" | tail -4)
python3 -m ksnap_triton merge "$W/tut06"; echo "merge rc=$?"
CUDA_VISIBLE_DEVICES= timed python3 -m ksnap_triton recompile "$W/tut06" -o "$W/rc06" --jobs 16 --timeout 40
kdiff "$W/tut06" "$W/rc06" id_06
python3 -c "import json; d=json.load(open('$W/rc06/recompile.json')); print({k: d[k] for k in ('planned','rebuilt','wall_s','cores_used','variants_per_s')}); [print('FAILED', f['variant'], f['phase'], f['error'][-800:]) for f in d['failed']]; [print('SKIPPED', s) for s in d['skipped']]"
step pack
(cd "$W" && tar -czf "$OUT/reports2.tgz" */recompile.json */manifest.json ./*.json ./*.err)
ls -la "$OUT"
step done
} 2>&1 | tee "$OUT/log.txt"

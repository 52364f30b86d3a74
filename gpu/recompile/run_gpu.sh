#!/bin/bash
# The recompile checks on the H200 machine (docs/recompile.md, docs/benchmarks.md).
#   bash gpu/recompile/run_gpu.sh D OUT
# D holds python/ (the plugin), gpu/ (scripts), ksnap (a static binary),
# tutorials/ (Triton's tutorial scripts) and sass/ (small cubins); OUT gets
# log.txt, the timing and identity figures, and the captures as .tar.zst.
set -u
D=$(cd "${1:?D}" && pwd); OUT=${2:?OUT}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH="$D/python${PYTHONPATH:+:$PYTHONPATH}"
K="$D/ksnap"; W=/tmp/krc; rm -rf "$W"; mkdir -p "$W"
step() { echo "=== $* ($(date +%T))"; }
timed() { local t0=$EPOCHREALTIME; "$@"; local rc=$?; echo "rc=$rc wall=$(awk "BEGIN{print $EPOCHREALTIME - $t0}") s: $*"; }
START=$SECONDS
rcmp() { python3 -m ksnap_triton recompile "$@"; }
kdiff() { "$K" diff "$1" "$2" --format json > "$W/$3.json" 2> "$W/$3.err"; echo "diff rc=$?"; head -c 600 "$W/$3.err";
          python3 "$D/gpu/recompile/diff_summary.py" "$W/$3.json" "$3"; }
{
step versions; nproc; python3 -c "import triton, torch; print('triton', triton.__version__, triton.__file__, 'torch', torch.__version__, torch.cuda.get_device_name())"
ls "$(python3 -c 'import triton, os; print(os.path.dirname(triton.__file__))')/backends/nvidia/bin" 2>&1
step triton sources
python3 - > "$OUT/triton_sources.txt" 2>&1 <<'PY'
import inspect
from triton.runtime import jit
from triton.compiler import compiler
from triton.backends.nvidia import compiler as nv
for o in (jit.JITFunction._call_hook, jit.serialize_specialization_data, jit.JITFunction._do_compile,
          compiler.ASTSource, compiler.compile, nv.CUDABackend.parse_options):
    try: print("=====", o.__qualname__); print(inspect.getsource(o))
    except Exception as e: print("no source", e)
PY
echo rc=$?
step pytest plugin; python3 -m pytest -q -p no:cacheprovider "$D/python/tests" 2>&1 | tail -3
step capture suite
timed python3 -m ksnap_triton capture -o "$W/suite" -- "$D/gpu/capture/bench_suite.py"
tutorial() {
  step capture tutorial $1
  (cd "$D/tutorials" && timed timeout "$2" python3 -m ksnap_triton capture -o "$W/tut-$1" -- python3 "$D/gpu/recompile/run_tutorial.py" "$1.py" --points 3 2>&1 | grep -v "^\s*[0-9]" | tail -6)
}
for t in 01-vector-add 02-fused-softmax 03-matrix-multiplication 05-layer-norm; do tutorial $t 120; done
step merge all; python3 -m ksnap_triton merge "$W/all" "$W/suite" "$W"/tut-*; echo rc=$?
python3 - "$W/all" <<'PY'
import json, sys, collections
m = json.load(open(sys.argv[1] + "/manifest.json"))
c = collections.Counter(e["kernel"] for e in m["entries"])
r = sum(1 for e in m["entries"] if "recompile" in e and not e["recompile"].get("problems"))
print(len(m["entries"]), "variants,", r, "recordable:", dict(c))
for e in m["entries"]:
    if e.get("recompile", {}).get("problems"): print("  problem", e["kernel"], e["recompile"]["problems"][:2])
PY
step recompile same target, jobs 16; timed rcmp "$W/all" -o "$W/rc16" --jobs 16
step identity all vs rc16; kdiff "$W/all" "$W/rc16" id_all
step timing on the suite: its run under capture above vs recompile --jobs 1/4/16
for j in 1 4 16; do step recompile suite jobs $j; timed rcmp "$W/suite" -o "$W/s$j" --jobs $j; done
step recompile suite jobs 16, no GPU visible; CUDA_VISIBLE_DEVICES= timed rcmp "$W/suite" -o "$W/snogpu" --jobs 16
kdiff "$W/suite" "$W/snogpu" id_suite_nogpu
for r in s1 s4 s16 snogpu rc16; do python3 -c "import json,sys; d=json.load(open('$W/$r/recompile.json')); print('$r', {k: d[k] for k in ('jobs','planned','rebuilt','wall_s','cpu_s','cores_used','variants_per_s','compile_s_sum')}, len(d['failed']), 'failed')"; done
python3 -c "import json; d=json.load(open('$W/rc16/recompile.json')); [print('FAILED', f['variant'], f['phase'], f['error'][-600:]) for f in d['failed']]"
python3 -c "import json; m=json.load(open('$W/suite/manifest.json')); print('suite compile_s sum', round(sum(e['compile_s'] or 0 for e in m['entries']),2), 'variants', len(m['entries']))"
step shards 1/2 2/2 + merge
CUDA_VISIBLE_DEVICES= rcmp "$W/suite" -o "$W/sh1" --shard 1/2 --jobs 8 --no-sass; CUDA_VISIBLE_DEVICES= rcmp "$W/suite" -o "$W/sh2" --shard 2/2 --jobs 8 --no-sass
python3 -m ksnap_triton merge "$W/shm" "$W/sh1" "$W/sh2"; kdiff "$W/suite" "$W/shm" id_shards
step cross target cuda:80; CUDA_VISIBLE_DEVICES= timed rcmp "$W/suite" -o "$W/sm80" --target cuda:80 --jobs 16
grep -h -m1 -o '\.target sm_[0-9a-z]*' "$W"/sm80/cache/*/*.ptx | sort | uniq -c
for f in $(ls "$W"/sm80/cache/*/matmul_kernel.cubin | head -2); do cuobjdump --list-elf "$f" 2>&1 | head -2; done
kdiff "$W/suite" "$W/sm80" x_sm80
step hip gfx942 twice + one changed option
CUDA_VISIBLE_DEVICES= timed rcmp "$W/suite" -o "$W/hipA" --target hip:gfx942 --jobs 16
CUDA_VISIBLE_DEVICES= timed rcmp "$W/suite" -o "$W/hipB" --target hip:gfx942 --jobs 16
ls "$W"/hipA/cache/*/ | grep -c amdgcn; head -c 300 "$(ls "$W"/hipA/cache/*/softmax_kernel.amdgcn | head -1)"; echo
kdiff "$W/hipA" "$W/hipB" hip_noise
python3 "$D/gpu/recompile/change_one_option.py" "$W/suite" "$W/suite_fusion" layer_norm_fwd enable_fp_fusion false
CUDA_VISIBLE_DEVICES= rcmp "$W/suite_fusion" -o "$W/hipC" --target hip:gfx942 --jobs 16
kdiff "$W/hipA" "$W/hipC" hip_one_option
step sass fixtures
mkdir -p "$W/sass"
for c in "$D"/sass/*.cubin; do b=$(basename "$c" .cubin); nvdisasm -c "$c" > "$W/sass/$b.nvdisasm.sass" 2>&1; cuobjdump -sass "$c" > "$W/sass/$b.cuobjdump.sass" 2>&1; cuobjdump -res-usage "$c" > "$W/sass/$b.res-usage.txt" 2>&1; done
ls -la "$W/sass"; ls "$W"/rc16/cache/*/*.sass | wc -l
step "venv capture, adopt helper"
if [ -f gpu/adopt/venv_capture.sh ]; then timeout 90 bash gpu/adopt/venv_capture.sh 2>&1 | tail -30; echo "venv_capture rc=$?"; else echo "no gpu/adopt/venv_capture.sh on main"; fi
step attention tutorial if time allows; echo "elapsed $((SECONDS-START)) s"
if [ $((SECONDS-START)) -lt 300 ]; then
  tutorial 06-fused-attention 150
  CUDA_VISIBLE_DEVICES= timed rcmp "$W/tut-06-fused-attention" -o "$W/rc06" --jobs 16
  kdiff "$W/tut-06-fused-attention" "$W/rc06" id_06
  python3 -c "import json; d=json.load(open('$W/rc06/recompile.json')); [print('FAILED', f['variant'], f['phase'], f['error'][-600:]) for f in d['failed']]"
fi
step pack
(cd "$W" && tar --exclude='*.so' -czf "$OUT/suite_caps.tgz" suite s16)
(cd "$W" && tar --exclude='*.so' -czf "$OUT/cross_caps.tgz" sm80 hipA hipB hipC sass)
(cd "$W" && tar -czf "$OUT/reports.tgz" */recompile.json */manifest.json ./*.json ./*.err)
ls -la "$OUT"; du -sh "$W"/*
step done
} 2>&1 | tee "$OUT/log.txt"

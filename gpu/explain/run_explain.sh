#!/bin/bash
# Issue 17, `ksnap explain`: on the H200 machine (Triton 3.6), name the first
# pass whose output differs for one variant of each knob pair of the real
# suite, and for a patched Triton whose make_ttgir drops a pass:
#   bash gpu/explain/run_explain.sh D OUT
# D holds python/ (the plugin), gpu/knobs/results/captures.tar.xz (the suite
# captured launched without a knob, `base`, and under each knob,
# `launch-<knob>`, by gpu/knobs/run_knobs.sh) and a ksnap executable at
# $KSNAP (default D/.gpu-explain/ksnap, its shared libraries beside it in
# lib/). Nothing is launched: each explain rebuilds its variant twice, once
# per side, with IR dumped after every pass (docs/recompile.md).
#   - knob pairs: `ksnap explain base launch-<knob> --variant V`; each side
#     compiles under the knobs its metadata recorded (HEAD: the knob);
#   - patched Triton: the installed package copied to $W/next, the
#     add_coalesce line deleted from backends/nvidia/compiler.py's
#     make_ttgir, run by a wrapper interpreter that puts the copy first on
#     PYTHONPATH: `ksnap explain base base --variant V --head-python WRAPPER`,
#     and the suite recompiled under both Tritons and diffed.
# OUT gets log.txt, explain.jsonl (one `ksnap explain --format json` per
# line, with the pair's name and wall time), next-diff.json and dumps.tar
# (each pair's pass dumps as NAME.tar.xz, as many as fit in 15 MB, for `ksnap explain --base-dump/--head-dump` elsewhere).
set -u
D=$(cd "${1:?D}" && pwd); OUT=${2:?OUT}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
K=${KSNAP:-$D/.gpu-explain/ksnap}
export LD_LIBRARY_PATH="$(dirname "$K")/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONUNBUFFERED=1 KSNAP_PYTHONPATH="$D/python" KSNAP_PYTHON="${KSNAP_PYTHON:-python3}"
PY=${PY:-python3}
W=${W:-/tmp/kexplain}; rm -rf "$W"; mkdir -p "$W"
step() { echo "=== $* ($(date +%T))"; }
: >"$OUT/explain.jsonl"

# explain NAME BASE HEAD VARIANT [ksnap explain flags...]: the text report in
# the log, the JSON (with name and wall time) appended to explain.jsonl.
explain() {
  local name=$1 base=$2 head=$3 variant=$4; shift 4
  step "explain $name: $variant $*"
  local t0=$EPOCHREALTIME
  timeout 150 "$K" explain "$base" "$head" --variant "$variant" "$@" --keep "$W/x-$name" \
    --format json >"$W/$name.json" 2>"$W/$name.err"
  local rc=$? wall; wall=$(awk "BEGIN{printf \"%.2f\", $EPOCHREALTIME - $t0}")
  tail -5 "$W/$name.err"
  "$K" explain --base-dump "$W/x-$name/base/passes.log" --head-dump "$W/x-$name/head/passes.log" \
    --max-lines 40 2>&1 | head -60
  $PY - "$name" "$rc" "$wall" "$W/$name.json" "$variant" "$W/x-$name" >>"$OUT/explain.jsonl" <<'PY'
import json, os, sys
name, rc, wall, path, variant, xdir = sys.argv[1:]
try:
    j = json.load(open(path))
except Exception as e:  # noqa: BLE001
    j = {"error": f"no JSON: {e}"}
for side in ("base", "head"):  # the dumps are in dumps.tar
    j.get(side, {}).pop("dump", None)
    try:
        j[side]["dump_bytes"] = json.load(open(os.path.join(xdir, side, "explain.json")))["dump_bytes"]
    except Exception:  # noqa: BLE001
        pass
fd = j.get("first_difference") or {}
if sum(len(h["lines"]) for h in fd.get("hunks", [])) > 400:
    fd["hunks"] = "cut: over 400 lines (the dumps are in dumps.tar)"
print(json.dumps({"pair": name, "variant_flag": variant, "rc": int(rc), "wall_s": float(wall),
                  **j}))
PY
  echo "rc=$rc wall=${wall} s: explain $name"
}

{
step versions
$PY -c "import triton, sys; print('python', sys.version.split()[0], 'triton', triton.__version__)"
"$K" --version || { echo "ksnap executable does not run here: $K"; exit 3; }
nproc
step "captures (gpu/knobs/results/captures.tar.xz: base and launch-<knob>)"
xz -dc "$D/gpu/knobs/results/captures.tar.xz" | tar -xf - -C "$W" ./base ./launch-disable-mma-v3 \
  ./launch-disable-llvm-opt ./launch-triton-default-fp-fusion ./launch-triton-disable-line-info
ls "$W"

step "knob pairs"
explain disable-mma-v3 "$W/base" "$W/launch-disable-mma-v3" \
  "matmul_kernel {BLOCK_SIZE_K=32, BLOCK_SIZE_M=128, BLOCK_SIZE_N=128" --pick 1
explain triton-default-fp-fusion "$W/base" "$W/launch-triton-default-fp-fusion" layer_norm_fwd
explain disable-llvm-opt "$W/base" "$W/launch-disable-llvm-opt" softmax_kernel
explain triton-disable-line-info "$W/base" "$W/launch-triton-disable-line-info" softmax_kernel

step "patched Triton: make_ttgir without add_coalesce"
TRI=$($PY -c "import os, triton; print(os.path.dirname(triton.__file__))")
du -sh "$TRI"
t0=$EPOCHREALTIME
mkdir -p "$W/next" && cp -a "$TRI" "$W/next/triton"
echo "copied in $(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME - $t0}") s"
F="$W/next/triton/backends/nvidia/compiler.py"
grep -n "add_coalesce(pm)" "$F"
sed -i '/passes\.ttgpuir\.add_coalesce(pm)/d' "$F"
echo "add_coalesce lines left in the copy: $(grep -c 'add_coalesce(pm)' "$F")"
cat >"$W/python-next" <<EOF
#!/bin/sh
PYTHONPATH="$W/next\${PYTHONPATH:+:\$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1 exec $(command -v $PY) "\$@"
EOF
chmod +x "$W/python-next"
"$W/python-next" -c "import triton; print('patched triton from', triton.__file__)"
explain next-softmax "$W/base" "$W/base" softmax_kernel --head-python "$W/python-next"
step "the suite recompiled under both Tritons (recompile --python), then diffed"
t0=$EPOCHREALTIME
"$K" recompile "$W/base" -o "$W/rc-now" --jobs 16 --no-sass 2>&1 | tail -2
"$K" recompile "$W/base" -o "$W/rc-next" --jobs 16 --no-sass --python "$W/python-next" 2>&1 | tail -2
echo "recompiles took $(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME - $t0}") s"
"$K" diff "$W/rc-now" "$W/rc-next" --format json >"$OUT/next-diff.json" 2>"$W/next-diff.err"
"$K" diff "$W/rc-now" "$W/rc-next" --name-only 2>&1 | sort | uniq -c | head -20
$PY - "$OUT/next-diff.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("headline:", d.get("headline"))
for s in d.get("summary", []):
    print(" ", s)
PY

explain next-matmul "$W/base" "$W/base" \
  "matmul_kernel {BLOCK_SIZE_K=32, BLOCK_SIZE_M=128, BLOCK_SIZE_N=128" --pick 1 \
  --head-python "$W/python-next"

step pack
du -sh "$W"/x-* 2>/dev/null
# Each pair's dumps compressed apart; as many as fit in 15 MB, smallest first.
mkdir -p "$W/pack"
for x in "$W"/x-*; do
  n=$(basename "$x")
  (cd "$W" && tar -cf - "$n/base/passes.log" "$n/head/passes.log" "$n/base/explain.json" \
     "$n/head/explain.json" 2>/dev/null | xz -3 -T16 >"$W/pack/$n.tar.xz")
done
ls -laS "$W/pack"
total=0; keep=()
for f in $(ls -rS "$W"/pack/*.tar.xz); do
  sz=$(stat -c %s "$f")
  if [ $((total + sz)) -lt 15000000 ]; then keep+=("$(basename "$f")"); total=$((total + sz)); fi
done
(cd "$W/pack" && tar -cf "$OUT/dumps.tar" "${keep[@]}")
echo "dumps.tar: ${keep[*]} ($total bytes)"
ls -la "$OUT"
} 2>&1 | tee "$OUT/log.txt"

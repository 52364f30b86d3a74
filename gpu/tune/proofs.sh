#!/bin/sh
# On the GPU machine, from the repo root, with build-tune-gpu/ carried
# (gpu/tune/build.sh): the proofs of gpu/tune/proofs.cc, results in $OUT.
#   sh gpu/tune/proofs.sh          (all)
#   sh gpu/tune/proofs.sh verify   (only the injected-wrong-variant proof)
set -u
B=build-tune-gpu
# The 8 matmul configs compiled here by Triton (cubins are not committed).
CAP=/tmp/proofs-capture
python3 -c "import sys; sys.path.insert(0, 'gpu/tune'); import run_h200; run_h200.write_capture('$CAP')" ||
  { echo "could not write the capture"; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
CAPW=/tmp/proofs-capture-wrong  # the same 8 + an injected wrong variant (run_h200.wrong_matmul_kernel)
python3 -c "import sys; sys.path.insert(0, 'gpu/tune'); import run_h200; run_h200.write_capture('$CAPW', inject_wrong=True)" ||
  { echo "could not write the capture with the wrong variant"; exit 1; }
if [ "${1:-}" = verify ]; then  # only the verification proof
  "$B/tune_proofs" verify "$CAPW" "$OUT/verify.json" 2>"$OUT/verify.stderr.txt"; echo "verify: exit $?"
  exit 0
fi
"$B/tune_proofs" verify "$CAPW" "$OUT/verify.json" 2>"$OUT/verify.stderr.txt"; echo "verify: exit $?"
"$B/tune_proofs" graph "$CAP" "$OUT/graph.json"; echo "graph: exit $?"
"$B/tune_proofs" threads "$CAP" "$OUT/threads.json"; echo "threads: exit $?"
# Two processes at once on one GPU, one decision file: with adoption, then
# with each keeping its own race's choices.
for mode in adopt own; do
  rm -f "/tmp/share_$mode.json"
  "$B/tune_proofs" share "$CAP" "$OUT/share_${mode}_1.json" "/tmp/share_$mode.json" "$mode" &
  p1=$!
  "$B/tune_proofs" share "$CAP" "$OUT/share_${mode}_2.json" "/tmp/share_$mode.json" "$mode" &
  p2=$!
  wait $p1; e1=$?
  wait $p2; e2=$?
  echo "share $mode: exits $e1 $e2"
  cp "/tmp/share_$mode.json" "$OUT/cache_$mode.json" 2>/dev/null || true
done
python3 - "$OUT" <<'PY'
import json, sys, os
out = sys.argv[1]
for mode in ("adopt", "own"):
    a = json.load(open(os.path.join(out, f"share_{mode}_1.json")))
    b = json.load(open(os.path.join(out, f"share_{mode}_2.json")))
    pairs = [(x["shape"], x["choice"], y["choice"]) for x, y in zip(a["shapes"], b["shapes"])]
    agree = sum(1 for _, c1, c2 in pairs if c1 == c2)
    adopted = sum(1 for d in a["decisions"] + b["decisions"] if d["decision"] == "adopted")
    print(f"share {mode}: the two processes agree on {agree} of {len(pairs)} shapes; {adopted} decisions adopted")
    for s, c1, c2 in pairs:
        print(f"  {s}: {c1} | {c2}")
PY

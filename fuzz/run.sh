#!/usr/bin/env bash
# Builds the libFuzzer targets in build-fuzz/ (clang, ASan+UBSan) and runs
# each for SECONDS (default 60), seeded with its committed corpus
# fuzz/corpus/<target>/ (and, for the IR targets, the IR of examples/corpus
# or else the shared Triton corpus). Exits non-zero when a target crashes;
# the reproducer is in build-fuzz/artifacts/. Prints, per target, the
# executions and coverage libFuzzer reports (docs/fuzzing.md).
#
#   fuzz/run.sh 60                 # every target, 60 s each
#   fuzz/run.sh 600 capture_fuzz   # one target
#   KSNAP_FUZZ_JOBS=2              # build parallelism (default 2)
set -euo pipefail
secs="${1:-60}"
shift || true
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${KSNAP_FUZZ_BUILD_DIR:-$root/build-fuzz}"
jobs="${KSNAP_FUZZ_JOBS:-2}"
all=(lexer_fuzz normalize_fuzz json_fuzz capture_fuzz samples_fuzz bench_fuzz tune_cache_fuzz
     store_record_fuzz unstable_fuzz structural_diff_fuzz binary_fuzz recompile_report_fuzz
     manifest_fuzz pass_dump_fuzz)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ "${launcher[@]}" \
  -DKSNAP_BUILD_FUZZ=ON -DKSNAP_BUILD_TESTS=OFF -DKSNAP_BUILD_BENCH=OFF >/dev/null
ninja -C "$build" -j"$jobs" "${targets[@]}"

# IR seeds: every IR file of the example corpus, its first 48 KiB, behind
# the dialect byte (0 mlir, 1 llvm, 2 ptx, 3 amdgcn, 4 spirv).
src=""
for cand in "$root/examples/corpus" "${KSNAP_CORPUS_DIR:-}" "$root/../shared/corpus"; do
  if [ -n "$cand" ] && [ -d "$cand" ]; then src="$cand"; break; fi
done
ir_seeds="$build/ir-seeds"
rm -rf "$ir_seeds"
mkdir -p "$ir_seeds" "$build/artifacts"
if [ -n "$src" ]; then
  n=0
  while IFS= read -r -d '' f; do
    case "$f" in
      *.ttir|*.ttgir|*.source|*.mlir) b='\x00' ;;
      *.llir|*.ll) b='\x01' ;;
      *.ptx) b='\x02' ;;
      *.amdgcn) b='\x03' ;;
      *.spv|*.spvdis) b='\x04' ;;
      *) continue ;;
    esac
    n=$((n + 1))
    { printf "$b"; head -c 49152 "$f"; } >"$ir_seeds/seed_$n"
  done < <(find "$src" -type f -print0 | sort -z)
fi

export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
status=0
printf '%-22s %10s %8s %8s %6s %s\n' target execs cov ft secs result
for t in "${targets[@]}"; do
  work="$build/work/$t"
  mkdir -p "$work"
  seeds=("$root/fuzz/corpus/$t")
  max_len=65536
  case "$t" in
    lexer_fuzz|normalize_fuzz) seeds+=("$ir_seeds") ;;
    structural_diff_fuzz|pass_dump_fuzz) max_len=32768 ;;
    capture_fuzz|json_fuzz|samples_fuzz|bench_fuzz|tune_cache_fuzz|store_record_fuzz|unstable_fuzz|recompile_report_fuzz|manifest_fuzz)
      max_len=16384 ;;
  esac
  log="$build/$t.log"
  result=ok
  if ! "$build/fuzz/$t" -max_total_time="$secs" -max_len="$max_len" -timeout=20 \
      -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-" \
      "$work" "${seeds[@]}" >"$log" 2>&1; then
    result=CRASH
    status=1
  fi
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  cov=$(grep -oE '(#[0-9]+\s+(DONE|INITED|NEW|REDUCE|pulse)\s+cov: [0-9]+ ft: [0-9]+)' "$log" |
        tail -n 1 | sed -E 's/.*cov: ([0-9]+) ft: ([0-9]+)/\1 \2/')
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  ran="$secs"
  if [ "${rate:-0}" -gt 0 ] && [ "$execs" != '?' ]; then ran=$((execs / rate)); fi
  printf '%-22s %10s %8s %8s %6s %s\n' "$t" "${execs:-?}" ${cov:-? ?} "$ran" "$result"
  if [ "$result" = CRASH ]; then
    echo "fuzz: $t FAILED; see $log and $build/artifacts/"
    grep -E "ERROR|SUMMARY|==[0-9]+==|#[0-9]+ 0x" "$log" | head -n 30 || tail -n 40 "$log"
  fi
done
exit "$status"

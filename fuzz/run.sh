#!/usr/bin/env bash
# Builds the libFuzzer targets in build-fuzz/ (clang, ASan+UBSan) and runs
# each for SECONDS (default 60) seeded with the repo's examples/corpus, or
# else the shared Triton corpus (KSNAP_CORPUS_DIR or ../shared/corpus).
# Exits non-zero when a target crashes; the reproducer is in build-fuzz/artifacts/.
#
#   fuzz/run.sh 60
set -euo pipefail
secs="${1:-60}"
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build-fuzz"
jobs="${KSNAP_FUZZ_JOBS:-2}"

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DKSNAP_BUILD_FUZZ=ON -DKSNAP_BUILD_TESTS=OFF -DKSNAP_BUILD_BENCH=OFF >/dev/null
ninja -C "$build" -j"$jobs" lexer_fuzz normalize_fuzz

src=""
for cand in "$root/examples/corpus" "${KSNAP_CORPUS_DIR:-}" "$root/../shared/corpus"; do
  if [ -n "$cand" ] && [ -d "$cand" ]; then src="$cand"; break; fi
done

# Seeds: every IR file, its first 48 KiB, behind the dialect byte
# (0 mlir, 1 llvm, 2 ptx, 3 amdgcn, 4 spirv).
seeds="$build/seeds"
rm -rf "$seeds"
mkdir -p "$seeds" "$build/artifacts"
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
    { printf "$b"; head -c 49152 "$f"; } >"$seeds/seed_$n"
  done < <(find "$src" -type f -print0 | sort -z)
  echo "fuzz: $n seeds from $src"
else
  echo "fuzz: no seed corpus found; starting empty"
fi

status=0
for t in lexer_fuzz normalize_fuzz; do
  work="$build/work/$t"
  mkdir -p "$work"
  echo "fuzz: $t for ${secs}s"
  if ! "$build/fuzz/$t" -max_total_time="$secs" -max_len=65536 -timeout=20 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-" "$work" "$seeds" \
      >"$build/$t.log" 2>&1; then
    echo "fuzz: $t FAILED; see $build/$t.log and $build/artifacts/"
    tail -n 40 "$build/$t.log"
    status=1
  else
    grep -E "stat::number_of_executed_units|cov:" "$build/$t.log" | tail -n 2 || true
  fi
done
exit "$status"

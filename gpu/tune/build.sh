#!/bin/sh
# Builds gpu/tune/tune_gpu here (Debian 12) for the GPU machine: libstdc++ and
# libgcc static, xxhash static, glibc and libdl dynamic (the GPU image's glibc
# is newer). Needs the ksnap_tune/ksnap_support libraries of build dir $1.
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build-tune}
OUTDIR=${2:-$ROOT/build-tune-gpu}
mkdir -p "$OUTDIR"
ninja -C "$BUILD" -j2 ksnap_tune ksnap_capture ksnap_support
# tune_gpu: timings and dispatch cost; tune_proofs: graph capture, threads,
# processes sharing a decision file (gpu/tune/proofs.cc).
for prog in tune_gpu:tune_gpu.cc tune_proofs:proofs.cc; do
  g++ -std=c++20 -O2 -I"$ROOT/include" -I/usr/local/cuda/include "$ROOT/gpu/tune/${prog#*:}" \
    "$BUILD/libksnap_tune.a" "$BUILD/libksnap_capture.a" "$BUILD/libksnap_support.a" \
    /usr/lib/x86_64-linux-gnu/libxxhash.a \
    -static-libstdc++ -static-libgcc -ldl -lpthread -o "$OUTDIR/${prog%%:*}"
  strip "$OUTDIR/${prog%%:*}"
  echo "built $OUTDIR/${prog%%:*}"
done

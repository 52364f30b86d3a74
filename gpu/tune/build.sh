#!/bin/sh
# Builds gpu/tune/tune_gpu here (Debian 12) for the GPU machine: libstdc++ and
# libgcc static, xxhash static, glibc and libdl dynamic (the GPU image's glibc
# is newer). Needs the ksnap_tune/ksnap_support libraries of build dir $1.
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build-tune}
OUTDIR=${2:-$ROOT/build-tune-gpu}
mkdir -p "$OUTDIR"
ninja -C "$BUILD" -j2 ksnap_tune ksnap_support
g++ -std=c++20 -O2 -I"$ROOT/include" -I/usr/local/cuda/include "$ROOT/gpu/tune/tune_gpu.cc" \
  "$BUILD/libksnap_tune.a" "$BUILD/libksnap_support.a" /usr/lib/x86_64-linux-gnu/libxxhash.a \
  -static-libstdc++ -static-libgcc -ldl -lpthread -o "$OUTDIR/tune_gpu"
strip "$OUTDIR/tune_gpu"
echo "built $OUTDIR/tune_gpu"

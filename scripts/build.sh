#!/usr/bin/env bash
# Configures and builds ksnap in build/ (Release, -O3, Ninja; no tests or
# benchmarks unless -DKSNAP_BUILD_TESTS=ON / -DKSNAP_BUILD_BENCH=ON). Uses ccache
# when it is installed (rebuilds and several worktrees share one cache).
# KSNAP_BUILD_DIR overrides the folder; arguments are passed to cmake after
# the defaults (scripts/sanitize.sh: -DKSNAP_SANITIZE=ON ...).
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${KSNAP_BUILD_DIR:-build}"
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
# What a user needs is the CLI, the libraries and the plugin's wheel; tests
# and benchmarks only when asked (scripts/test.sh and sanitize.sh ask).
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" \
  -DKSNAP_BUILD_TESTS=OFF -DKSNAP_BUILD_BENCH=OFF "$@" >/dev/null
ninja -C "$dir" -j"$(nproc)"

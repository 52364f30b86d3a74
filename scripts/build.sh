#!/usr/bin/env bash
# Configures and builds ksnap in build/ (Release, -O3, Ninja). Uses ccache
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
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" "$@" >/dev/null
ninja -C "$dir" -j"$(nproc)"
